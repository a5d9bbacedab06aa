// sliderValue says the value a slider (this) shows after a key moved it: a
// role=slider's aria-valuetext or aria-valuenow, a range input's value, or,
// for a widget library's handle that says nothing (a focusable handle in a
// track, as jQuery UI draws it), the number shown beside its track ("-97
// (shown beside)") or, when none is, where the handle stands along its
// track ("55% (position)"), as the snapshot reads them. It returns '' for
// anything else.
function sliderValue() {
  const el = this;
  if (el.nodeType !== 1) return '';
  if (el.tagName === 'INPUT' && el.type === 'range') return el.value;
  const aria = el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow');
  if (aria && el.getAttribute('role') === 'slider') return aria;
  const track = el.parentElement;
  const handleWords = /(^|[-_\s])(handle|thumb|knob)([-_\s]|$)/i;
  if (!track || !/(^|[-_\s])(slider|handle|thumb)([-_\s]|$)/i.test(el.className + ' ' + track.className)) return aria || '';
  const h = el.getBoundingClientRect(), r = track.getBoundingClientRect();
  if (!(r.width > 0) || !(h.width > 0)) return aria || '';
  if (aria) return aria;
  const shown = besideText(track, r, handleWords);
  if (shown) return shown + ' (shown beside)';
  const vertical = r.height > r.width;
  const at = vertical ? (r.bottom - (h.top + h.height / 2)) / r.height : (h.left + h.width / 2 - r.left) / r.width;
  return Math.round(Math.max(0, Math.min(1, at)) * 100) + '% (position)';

  // besideText is the short text or read-only field value holding a number
  // that stands nearest the track (box r), within 120 px, among the three
  // ancestors around it, and nearer to it than to any other slider's track;
  // the part after a colon when it has one.
  function besideText(track, r, handleWords) {
    let scope = track;
    for (let i = 0; i < 3 && scope.parentElement && scope.parentElement !== document.documentElement; i++) scope = scope.parentElement;
    const gap = (a, b) => Math.hypot(Math.max(0, a.left - b.right, b.left - a.right), Math.max(0, a.top - b.bottom, b.top - a.bottom));
    const texts = [], others = [];
    const walk = document.createTreeWalker(scope, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(), i = 0; n && i < 400; i++) {
      if (n === track) {
        n = walk.nextSibling() || nextOutside(walk);
        continue;
      }
      let s = '', box = null;
      if (n.nodeType === 3) {
        s = n.nodeValue;
        box = n.parentElement && n.parentElement.getBoundingClientRect();
      } else if (n.tagName === 'INPUT' && n.readOnly) {
        s = n.value;
        box = n.getBoundingClientRect();
      } else if (Array.from(n.children).some((c) => handleWords.test(c.className) && c !== track)) {
        others.push({node: n, box: n.getBoundingClientRect()});
      }
      s = (s || '').replace(/\s+/g, ' ').trim();
      if (s && s.length <= 24 && /[0-9]/.test(s) && box && box.width > 0 && box.height > 0) texts.push({s, box, node: n});
      n = walk.nextNode();
    }
    // Between two sliders, text goes to the one it comes before.
    const score = (t, box, node) => gap(t.box, box) + (node.compareDocumentPosition(t.node) & Node.DOCUMENT_POSITION_FOLLOWING ? 6 : 0);
    let best = Infinity, found = '';
    for (const t of texts) {
      const d = score(t, r, track);
      if (gap(t.box, r) > 120 || d >= best || others.some((o) => score(t, o.box, o.node) <= d)) continue;
      best = d;
      found = t.s;
    }
    const colon = found.indexOf(':');
    if (colon >= 0 && /[0-9]/.test(found.slice(colon + 1))) found = found.slice(colon + 1).trim();
    return found;
  }

  // nextOutside moves the walker past the current node's subtree when it has
  // no next sibling: to the next sibling of its nearest ancestor that has one.
  function nextOutside(walk) {
    while (walk.parentNode()) {
      const s = walk.nextSibling();
      if (s) return s;
    }
    return null;
  }
}
