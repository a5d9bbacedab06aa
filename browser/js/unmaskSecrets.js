// unmaskSecrets puts back what maskSecrets changed, once the screenshot is
// taken: the page the agent reads (its accessibility tree, its names) stays
// as the page drew it. It returns 1 when the page fought the mask while
// the screenshot was taken (maskSecrets' watch), and 0 when it did not.
function unmaskSecrets() {
  const key = Symbol.for('chaperone.maskSecrets');
  const watchKey = Symbol.for('chaperone.maskWatch');
  let fought = false;
  for (const check of globalThis[watchKey] || []) fought = check() || fought;
  globalThis[watchKey] = [];
  const changed = globalThis[key] || [];
  globalThis[key] = [];
  for (const c of changed.reverse()) {
    if (c.style) c.style.remove();
    else if (c.attr) c.el.removeAttribute(c.attr);
    else if (c.value) c.el.style.setProperty(c.prop, c.value, c.priority);
    else c.el.style.removeProperty(c.prop);
  }
  return fought ? 1 : 0;
}
