// shownText counts the elements of the document of the field (this), in
// its open shadow roots too, that show typed as their whole text (compared
// as a fill is read back: letters and digits, lower-cased) and are not
// inside the field: the innermost of each, only those a person sees.
// Before a field's change event and after the page has settled, it says
// whether the page put the text typed somewhere else (a list that gained
// the item) while it emptied the field.
function shownText(typed) {
	const significant = (s) => Array.from(s).map(c => c.toLowerCase()).join('').replace(/[^\p{L}\p{Nd}]/gu, '');
	let want = significant(typed);
	const norm = want === '' ? (s) => s.trim() : significant;
	if (want === '') want = typed.trim();
	if (want === '') return 0;
	const field = this.nodeType === 1 ? this : this.parentElement;
	const win = field.ownerDocument.defaultView;
	// Seen: drawn, not transparent, and with a box a person can scroll
	// to (not pushed off the page's left or top edge).
	const seen = (el) => {
		if (typeof el.checkVisibility === 'function' &&
			!el.checkVisibility({opacityProperty: true, visibilityProperty: true, checkOpacity: true, checkVisibilityCSS: true})) return false;
		const r = el.getBoundingClientRect();
		return r.width >= 1 && r.height >= 1 && r.right + win.scrollX > 0 && r.bottom + win.scrollY > 0;
	};
	let count = 0, budget = 20000;
	// matches says whether el shows the text; it counts el when none of
	// its children does.
	const walk = (el) => {
		if (--budget < 0 || el === field || /^(SCRIPT|STYLE|TEMPLATE|NOSCRIPT)$/.test(el.tagName)) return false;
		let inner = false;
		for (const c of el.children) inner = walk(c) || inner;
		if (el.shadowRoot) for (const c of el.shadowRoot.children) inner = walk(c) || inner;
		const text = el.shadowRoot ? el.shadowRoot.textContent : el.textContent;
		const matches = norm(text || '') === want && !el.contains(field);
		if (matches && !inner && seen(el)) count++;
		return matches || inner;
	};
	walk(field.ownerDocument.documentElement);
	return count;
}
