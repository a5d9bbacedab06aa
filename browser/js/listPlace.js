// listPlace says where the dragged element (this) and its drop target
// (other) stand as items of one list: the nearest ancestors of each (or
// themselves) that are children of one element and look alike. It returns
// {list: false} when they are not, else each item's index among the list's
// shown items, whether the list runs left to right, the target item's box
// in the viewport, and the shown items' texts in order (the first 40, each
// cut to 60 characters).
function listPlace(other) {
  const none = {list: false};
  // Boxes are read in the node's own viewport: a list in a frame is none.
  if (window.top !== window) return none;
  if (!(this instanceof Element) || !(other instanceof Element) || !this.isConnected || !other.isConnected) return none;
  if (this === other || this.contains(other) || other.contains(this)) return none;
  let a = this;
  for (let i = 0; a.parentElement && !a.parentElement.contains(other); i++) {
    if (i >= 3) return none;
    a = a.parentElement;
  }
  const list = a.parentElement;
  if (!list || list === document.body || list === document.documentElement) return none;
  let b = other;
  for (let i = 0; b.parentElement !== list; i++) {
    if (i >= 6 || !b.parentElement) return none;
    b = b.parentElement;
  }
  // Items of one list look alike: the same tag, and list items, table
  // rows, items of one role, or elements sharing a class.
  // An item holds what was dragged (a handle in it) but no more like it:
  // two lists side by side are no items of their parent.
  const alone = (item, el) => item === el || item.getElementsByTagName(el.tagName).length === 1;
  if (!alone(a, this) || !alone(b, other)) return none;
  if (a.tagName !== b.tagName) return none;
  const role = a.getAttribute('role');
  const shared = Array.from(a.classList).some((c) => b.classList.contains(c));
  if (!(a.tagName === 'LI' || a.tagName === 'TR' || (role && role === b.getAttribute('role')) || shared)) return none;
  const shown = Array.from(list.children).filter((e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && e.tagName === a.tagName;
  });
  const from = shown.indexOf(a), to = shown.indexOf(b);
  if (from < 0 || to < 0 || shown.length < 2) return none;
  const ra = a.getBoundingClientRect(), rb = b.getBoundingClientRect();
  // Side by side: the two overlap more across than along.
  const overlapY = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
  const overlapX = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
  const horizontal = overlapY > overlapX;
  const items = shown.slice(0, 40).map((e) => (e.innerText || e.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 60));
  return {
    list: true, from, to, horizontal, count: shown.length, items,
    box: {x: rb.left, y: rb.top, width: rb.width, height: rb.height},
  };
}
