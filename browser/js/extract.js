// extract finds the items matching selector, under this when it is an
// element (a region) or in the document and its same-origin frames, and
// reads fields of each: fields maps a name to a selector relative to the
// item ("" for the item itself), optionally ending in "@attr" for an
// attribute instead of the text. It answers {items, total}, items cut at
// limit, or {error} with the reason a selector is not valid CSS.
function extract(selector, fields, limit) {
	const root = this && this.nodeType === 1 ? this : document;
	const text = (el) => (el.innerText !== undefined ? el.innerText : el.textContent || '').replace(/\s+/g, ' ').trim();
	const parsed = [];
	for (const [name, spec] of Object.entries(fields || {})) {
		const at = spec.lastIndexOf('@');
		const sel = (at >= 0 ? spec.slice(0, at) : spec).trim();
		const attr = at >= 0 ? spec.slice(at + 1).trim() : '';
		parsed.push({ name, sel, attr });
	}
	const roots = [root];
	if (root === document) {
		// Same-origin frames are part of the page a person sees; cross-site
		// ones answer from their own sessions.
		for (let i = 0; i < roots.length; i++) {
			for (const f of roots[i].querySelectorAll('iframe,frame')) {
				try {
					if (f.contentDocument) roots.push(f.contentDocument);
				} catch (e) { /* cross-origin */ }
			}
		}
	}
	const items = [];
	let total = 0;
	try {
		// Each selector is checked once, so that a bad one is an error even
		// when nothing matches the items.
		root.querySelector(selector);
		for (const f of parsed) if (f.sel) root.querySelector(f.sel);
		for (const r of roots) {
			for (const el of r.querySelectorAll(selector)) {
				total++;
				if (items.length >= limit) continue;
				const item = {};
				for (const f of parsed) {
					const t = f.sel ? el.querySelector(f.sel) : el;
					let v = '';
					if (t && f.attr && t.localName === 'input' && t.type === 'password') {
						// A password's value is never read, as in the snapshot.
					} else if (t && f.attr) {
						// href and src read as the absolute URL a click would open.
						const p = (f.attr === 'href' || f.attr === 'src') ? t[f.attr] : undefined;
						v = typeof p === 'string' ? p : (t.getAttribute(f.attr) || '');
					} else if (t) {
						v = text(t);
					}
					item[f.name] = v;
				}
				items.push(item);
			}
		}
	} catch (e) {
		// Only a selector the browser cannot parse is the agent's error;
		// anything else the page threw is a failure to read it.
		if (e && e.name === 'SyntaxError') return { error: String(e.message) };
		return { failed: String(e && e.message || e) };
	}
	return { items, total };
}
