// unmaskSecrets puts back what maskSecrets changed, once the screenshot is
// taken: the page the agent reads (its accessibility tree, its names) stays
// as the page drew it.
function unmaskSecrets() {
  const key = Symbol.for('chaperone.maskSecrets');
  const changed = globalThis[key] || [];
  globalThis[key] = [];
  for (const c of changed.reverse()) {
    if (c.style) c.style.remove();
    else if (c.attr) c.el.removeAttribute(c.attr);
    else if (c.value) c.el.style.setProperty(c.prop, c.value, c.priority);
    else c.el.style.removeProperty(c.prop);
  }
  return changed.length;
}
