// paintedText serves browser.Context.TextPainted, in an isolated world, so
// that nothing the page changed in its own (a patched prototype, a fake
// Range) takes part. this is the first of nodes, the text nodes whose text,
// joined, holds needle. By mode:
//   'find': finds needle in nodes (case and white space aside), leaving out
//     stretches that repeat one of skip, keeps what it found and returns,
//     per occurrence, its glyphs (characters other than white space) and
//     its font size in CSS pixels;
//   'place' (arg: an occurrence): scrolls it into view where it is outside
//     the viewport or a box that scrolls, as a person would scroll to it,
//     and returns its box in the viewport of the top document of this
//     process, or null when it draws no box or only a scroll no person can
//     make (of a box or page that hides its overflow) shows it;
//   'hide' (arg: an occurrence): paints its glyphs transparent with a
//     custom highlight, which changes neither the DOM nor its styles (SVG
//     text, which Chromium paints no highlight on, by its elements' fill
//     and stroke instead), and resolves once the document has rendered it;
//   'show': takes the highlight away, rendered as 'hide';
//   'done': shows, puts back every scroll 'place' made and forgets.
function paintedText(mode, arg, needle, skip, ...nodes) {
	const key = Symbol.for('chaperone.paintedText');
	const doc = this.ownerDocument;
	const win = doc.defaultView;
	const rendered = () => new Promise(resolve => {
		let left = 2;
		const tick = () => { if (--left <= 0) resolve(true); else win.requestAnimationFrame(tick); };
		win.requestAnimationFrame(tick);
		win.setTimeout(() => resolve(true), 300);
	});
	let st = win[key];
	if (mode === 'find') {
		const norm = [];
		const at = [];
		let space = false;
		nodes.forEach(n => {
			const s = n.data || '';
			for (let i = 0; i < s.length; i++) {
				const c = s[i];
				if (/\s/.test(c)) { space = norm.length > 0; continue; }
				if (space) { norm.push(' '); at.push([n, i]); space = false; }
				const l = c.toLowerCase();
				for (let k = 0; k < l.length; k++) { norm.push(l[k]); at.push([n, i]); }
			}
			space = norm.length > 0;
		});
		const t = norm.join('');
		const nd = String(needle).toLowerCase().split(/\s+/).filter(Boolean).join(' ');
		const echoes = (skip || []).map(e => String(e)).filter(e => e.length >= nd.length);
		const covered = (from, to) => echoes.some(e => {
			for (let s = Math.max(0, to - e.length); s <= from && s + e.length <= t.length; s++) {
				if (t.startsWith(e, s)) return true;
			}
			return false;
		});
		const found = [];
		for (let i = nd ? t.indexOf(nd) : -1; i >= 0 && found.length < 8; i = t.indexOf(nd, i + 1)) {
			if (covered(i, i + nd.length)) continue;
			const [sn, so] = at[i];
			const [en, eo] = at[i + nd.length - 1];
			const r = doc.createRange();
			r.setStart(sn, so);
			r.setEnd(en, Math.min(eo + 1, en.data.length));
			const el = sn.parentElement;
			const font = el ? parseFloat(win.getComputedStyle(el).fontSize) || 0 : 0;
			found.push({range: r, glyphs: nd.replace(/\s/g, '').length, font});
		}
		const scrolls = st ? st.scrolls : [];
		const name = 'chaperone-' + Math.random().toString(36).slice(2);
		const sheet = new win.CSSStyleSheet();
		sheet.replaceSync('::highlight(' + name + '){color:transparent;-webkit-text-fill-color:transparent;' +
			'-webkit-text-stroke-color:transparent;text-shadow:none;text-decoration-color:transparent;background-color:transparent}');
		st = {found, scrolls, name, sheet, roots: []};
		Object.defineProperty(win, key, {value: st, configurable: true, enumerable: false, writable: true});
		return found.map(f => ({glyphs: f.glyphs, font: f.font}));
	}
	if (!st) return null;
	const show = () => {
		win.CSS.highlights.delete(st.name);
		for (const root of st.roots) root.adoptedStyleSheets = root.adoptedStyleSheets.filter(s => s !== st.sheet);
		st.roots = [];
		for (const [el, prop, value, priority] of (st.styled || []).reverse()) {
			if (value) el.style.setProperty(prop, value, priority);
			else el.style.removeProperty(prop);
		}
		st.styled = [];
	};
	if (mode === 'place') {
		const f = st.found[arg];
		if (!f) return null;
		let r = f.range.getBoundingClientRect();
		if (r.width <= 0 || r.height <= 0) return null;
		// Bring the occurrence into view as a person would, scrolling each
		// box that holds it, then the page, only as far as needed: the
		// range itself, as an element's scrollIntoView would bring the
		// start of a long element only.
		const el = f.range.startContainer.parentElement;
		const up = a => a.parentElement || (a.getRootNode() && a.getRootNode().host) || null;
		const root = doc.documentElement, body = doc.body;
		const boxes = [];
		for (let a = el; a && a !== root && a !== body; a = up(a)) {
			if (a.scrollHeight > a.clientHeight || a.scrollWidth > a.clientWidth) boxes.push([a, a.scrollLeft, a.scrollTop]);
		}
		boxes.push([win, win.scrollX, win.scrollY]);
		st.scrolls.push(...boxes);
		const centre = (a, v) => {
			const rr = f.range.getBoundingClientRect();
			const dx = rr.right > v.right || rr.left < v.left ? (rr.left + rr.right) / 2 - (v.left + v.right) / 2 : 0;
			const dy = rr.bottom > v.bottom || rr.top < v.top ? (rr.top + rr.bottom) / 2 - (v.top + v.bottom) / 2 : 0;
			if (dx || dy) {
				if (a === win) win.scrollBy({left: dx, top: dy, behavior: 'instant'});
				else { a.scrollLeft += dx; a.scrollTop += dy; }
			}
		};
		for (const [a] of boxes) {
			if (a === win) {
				centre(win, {left: 0, top: 0, right: win.innerWidth, bottom: win.innerHeight});
				continue;
			}
			const c = a.getBoundingClientRect();
			const left = c.left + a.clientLeft, top = c.top + a.clientTop;
			centre(a, {left, top, right: left + a.clientWidth, bottom: top + a.clientHeight});
		}
		r = f.range.getBoundingClientRect();
		// Script scrolls what a person cannot: a box that hides its
		// overflow, or a page whose root or body does. Text only such a
		// scroll brings into view is no text a person sees.
		const hides = v => v === 'hidden' || v === 'clip';
		const rootStyle = root ? win.getComputedStyle(root) : null;
		const viewportStyle = rootStyle && rootStyle.overflowX === 'visible' && rootStyle.overflowY === 'visible' && body ?
			win.getComputedStyle(body) : rootStyle;
		for (const [a, x, y] of boxes) {
			const cs = a === win ? viewportStyle : win.getComputedStyle(a);
			const nx = a === win ? win.scrollX : a.scrollLeft, ny = a === win ? win.scrollY : a.scrollTop;
			if (cs && ((nx !== x && hides(cs.overflowX)) || (ny !== y && hides(cs.overflowY)))) return null;
		}
		let dx = 0, dy = 0;
		for (let w = win; w.frameElement; w = w.parent) {
			const fr = w.frameElement.getBoundingClientRect();
			dx += fr.left + w.frameElement.clientLeft;
			dy += fr.top + w.frameElement.clientTop;
		}
		return rendered().then(() => ({x: r.left + dx, y: r.top + dy, width: r.width, height: r.height}));
	}
	if (mode === 'hide') {
		const f = st.found[arg];
		if (!f) return false;
		show();
		const roots = new Set();
		for (const n of nodes) roots.add(n.getRootNode());
		for (const root of roots) {
			if (!('adoptedStyleSheets' in root)) continue;
			root.adoptedStyleSheets = [...root.adoptedStyleSheets, st.sheet];
			st.roots.push(root);
		}
		// Chromium paints no highlight on SVG text: its elements are
		// painted transparent instead, for the moment of the look.
		st.styled = [];
		for (const el of new Set(nodes.map(n => n.parentElement))) {
			if (!el || el.namespaceURI !== 'http://www.w3.org/2000/svg') continue;
			for (const prop of ['fill', 'stroke']) {
				st.styled.push([el, prop, el.style.getPropertyValue(prop), el.style.getPropertyPriority(prop)]);
				el.style.setProperty(prop, 'transparent', 'important');
			}
		}
		const h = new win.Highlight(f.range);
		h.priority = 1e6;
		win.CSS.highlights.set(st.name, h);
		return rendered();
	}
	if (mode === 'show') {
		show();
		return rendered();
	}
	if (mode === 'done') {
		show();
		for (const [a, x, y] of st.scrolls.reverse()) {
			if (a === win) win.scrollTo({left: x, top: y, behavior: 'instant'});
			else { a.scrollLeft = x; a.scrollTop = y; }
		}
		delete win[key];
		return true;
	}
	return null;
}
