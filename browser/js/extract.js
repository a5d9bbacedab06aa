// extract finds the items matching selector, under this when it is an
// element (a region) or in the document and its same-origin frames, and
// reads fields of each: fields maps a name to a selector relative to the
// item ("" for the item itself), optionally ending in "@attr" for an
// attribute instead of the text; or to a role and name written as the
// snapshot writes an element, role "name" (optionally followed by @attr):
// the first element of the item with that ARIA role (explicit or implied
// by its tag) whose accessible name is name, else holds it ("" for any).
// The role text reads what a label names: the text of an element labelled
// so (aria-label, title), or the text after the label ("Price: $8",
// <dt>Price</dt><dd>$8</dd>). It answers {items, total}, items cut at
// limit, or {error} with the reason a selector or role is not valid.
function extract(selector, fields, limit) {
	const root = this && this.nodeType === 1 ? this : document;
	const text = (el) => (el.innerText !== undefined ? el.innerText : el.textContent || '').replace(/\s+/g, ' ').trim();
	const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
	// roles are the roles a field may name: those roleOf tells, and text.
	const roles = ['text', 'link', 'button', 'heading', 'img', 'textbox', 'searchbox', 'checkbox', 'radio',
		'switch', 'slider', 'spinbutton', 'combobox', 'listbox', 'option', 'list', 'listitem', 'table', 'row',
		'cell', 'columnheader', 'rowheader', 'navigation', 'main', 'article', 'region', 'form', 'dialog',
		'paragraph', 'term', 'definition', 'time', 'progressbar', 'figure', 'group', 'status', 'alert',
		'menuitem', 'tab'];
	const parsed = [];
	for (const [name, spec] of Object.entries(fields || {})) {
		// role "name" is never valid CSS, so it shadows no selector.
		const m = /^\s*([A-Za-z]+)\s+("(?:[^"\\]|\\.)*")\s*(?:@\s*([^\s@"]+))?\s*$/.exec(spec);
		if (m) {
			const role = m[1].toLowerCase();
			if (!roles.includes(role)) {
				return { error: 'field ' + JSON.stringify(name) + ': unknown role "' + m[1] + '": use one of ' + roles.join(', ') };
			}
			let label;
			try {
				label = norm(JSON.parse(m[2])).toLowerCase();
			} catch (e) {
				return { error: 'field ' + JSON.stringify(name) + ': the name ' + m[2] + ' is not a valid quoted string' };
			}
			parsed.push({ name, role, label, attr: m[3] || '' });
			continue;
		}
		const at = spec.lastIndexOf('@');
		const sel = (at >= 0 ? spec.slice(0, at) : spec).trim();
		const attr = at >= 0 ? spec.slice(at + 1).trim() : '';
		parsed.push({ name, sel, attr });
	}
	// roleOf is an element's ARIA role: its role attribute's first token,
	// else the role its tag implies.
	const roleOf = (t) => {
		const explicit = (t.getAttribute('role') || '').trim().split(/\s+/)[0].toLowerCase();
		if (explicit) return explicit;
		switch (t.localName) {
		case 'a': case 'area': return t.hasAttribute('href') ? 'link' : '';
		case 'button': return 'button';
		case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
		case 'img': return t.getAttribute('alt') === '' ? '' : 'img';
		case 'input':
			switch (t.type) {
			case 'button': case 'submit': case 'reset': case 'image': return 'button';
			case 'checkbox': return 'checkbox';
			case 'radio': return 'radio';
			case 'range': return 'slider';
			case 'number': return 'spinbutton';
			case 'search': return 'searchbox';
			case 'hidden': case 'file': case 'color': return '';
			}
			return 'textbox';
		case 'textarea': return 'textbox';
		case 'select': return t.multiple || t.size > 1 ? 'listbox' : 'combobox';
		case 'option': return 'option';
		case 'ul': case 'ol': case 'menu': return 'list';
		case 'li': return 'listitem';
		case 'table': return 'table';
		case 'tr': return 'row';
		case 'td': return 'cell';
		case 'th': return t.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
		case 'nav': return 'navigation';
		case 'main': return 'main';
		case 'article': return 'article';
		case 'section': return t.hasAttribute('aria-label') || t.hasAttribute('aria-labelledby') ? 'region' : '';
		case 'form': return 'form';
		case 'dialog': return 'dialog';
		case 'p': return 'paragraph';
		case 'dt': return 'term';
		case 'dd': return 'definition';
		case 'time': return 'time';
		case 'progress': return 'progressbar';
		case 'figure': return 'figure';
		case 'fieldset': return 'group';
		case 'output': return 'status';
		}
		return '';
	};
	// attrOf reads an attribute: href and src as the absolute URL a click
	// would open, a password's value never, as in the snapshot.
	const attrOf = (t, attr) => {
		if (t.localName === 'input' && t.type === 'password') return '';
		const p = (attr === 'href' || attr === 'src') ? t[attr] : undefined;
		return typeof p === 'string' ? p : (t.getAttribute(attr) || '');
	};
	// nameOf is an element's accessible name, as near as a script can tell:
	// aria-labelledby, aria-label, alt, its labels, a button's value, a
	// placeholder or title, else its text.
	const nameOf = (t) => {
		const by = norm((t.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean)
			.map((id) => t.ownerDocument.getElementById(id)).filter(Boolean).map(text).join(' '));
		if (by) return by;
		if (norm(t.getAttribute('aria-label'))) return norm(t.getAttribute('aria-label'));
		if (t.localName === 'img' || (t.localName === 'input' && t.type === 'image')) return norm(t.getAttribute('alt'));
		if (t.labels && t.labels.length) return norm([...t.labels].map(text).join(' '));
		if (t.localName === 'input' && ['button', 'submit', 'reset'].includes(t.type)) return norm(t.value);
		if (['input', 'textarea', 'select'].includes(t.localName)) return norm(t.getAttribute('placeholder') || t.getAttribute('title'));
		return text(t) || norm(t.getAttribute('title'));
	};
	// valueOf is what a field by role reads of the element it found: a
	// control's value (a checkbox's checked state, a password's never), an
	// image's name, else its text.
	const valueOf = (t) => {
		switch (t.localName) {
		case 'input':
			if (t.type === 'password') return '';
			if (t.type === 'checkbox' || t.type === 'radio') return String(t.checked);
			return t.value;
		case 'textarea':
			return t.value;
		case 'select':
			return [...t.selectedOptions].map((o) => norm(o.text)).join(', ');
		case 'img':
			return nameOf(t);
		}
		const r = roleOf(t);
		if (r === 'checkbox' || r === 'switch' || r === 'radio') return String(t.getAttribute('aria-checked') === 'true');
		return text(t) || nameOf(t);
	};
	// labelled reads the text label f names in item el: an element named
	// so by aria-label or title gives its text; else the deepest element
	// whose text starts with the label gives the rest of its text or, when
	// nothing follows the label there, the text of what comes after it.
	const labelled = (el, all, f) => {
		if (f.label === '') return f.attr ? attrOf(el, f.attr) : text(el);
		const own = all.find((t) => norm(t.getAttribute('aria-label') || t.getAttribute('title')).toLowerCase() === f.label &&
			text(t).toLowerCase() !== f.label);
		if (own) return f.attr ? attrOf(own, f.attr) : text(own);
		const starts = (t) => text(t).toLowerCase().startsWith(f.label);
		let m = all.find(starts);
		if (!m) return '';
		for (let deeper = true; deeper;) {
			deeper = false;
			for (const c of m.children) {
				if (starts(c)) {
					m = c;
					deeper = true;
					break;
				}
			}
		}
		if (f.attr) return attrOf(m, f.attr);
		const rest = text(m).slice(f.label.length).replace(/^[\s:=\-\u2013\u2014]+/, '');
		if (rest) return rest;
		for (let cur = m; cur && cur !== el; cur = cur.parentElement) {
			for (let sib = cur.nextElementSibling; sib; sib = sib.nextElementSibling) {
				if (text(sib)) return text(sib);
			}
		}
		return '';
	};
	// byRole reads field f of item el by role and name: an exact name
	// first, else a name that holds the label.
	const byRole = (el, f) => {
		const all = [el, ...el.querySelectorAll('*')];
		if (f.role === 'text') return labelled(el, all, f);
		const of = all.filter((t) => roleOf(t) === f.role);
		const t = f.label === '' ? of[0] :
			(of.find((t) => nameOf(t).toLowerCase() === f.label) || of.find((t) => nameOf(t).toLowerCase().includes(f.label)));
		if (!t) return '';
		return f.attr ? attrOf(t, f.attr) : valueOf(t);
	};
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
					if (f.role) {
						item[f.name] = byRole(el, f);
						continue;
					}
					const t = f.sel ? el.querySelector(f.sel) : el;
					let v = '';
					if (t && f.attr) {
						v = attrOf(t, f.attr);
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
