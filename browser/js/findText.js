// findText finds the first place where text shows in the element (this),
// or in the document when this is the window, for a drag that selects it:
// runs of white space count as one space, as the page reads them; text no
// box draws (hidden, in a script or style) is passed over. It brings the
// place into view when it is not, and returns the points a person presses
// and lets go at (the left half of the first character, the right half of
// the last, where the caret goes before and after them), the box of the
// text; or {found: false}.
function findText(text) {
	const root = this.nodeType === 1 ? this : document.body;
	if (!root) return {found: false};
	const want = String(text).replace(/\s+/g, ' ').trim();
	if (!want) return {found: false};
	const chars = [];
	const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
	for (let n = walker.nextNode(); n; n = walker.nextNode()) {
		const el = n.parentElement;
		if (!el || el.closest('script,style,noscript,template,textarea,select')) continue;
		if (!el.getClientRects().length || getComputedStyle(el).visibility !== 'visible') continue;
		const s = n.data;
		for (let i = 0; i < s.length; i++) {
			const ws = /\s/.test(s[i]);
			if (ws && chars.length && chars[chars.length - 1].c === ' ') continue;
			chars.push({c: ws ? ' ' : s[i], n, i});
		}
	}
	const flat = chars.map(x => x.c).join('');
	const at = flat.indexOf(want);
	if (at < 0) return {found: false};
	const first = chars[at], last = chars[at + want.length - 1];
	const rectOf = (x) => {
		const r = document.createRange();
		r.setStart(x.n, x.i);
		r.setEnd(x.n, x.i + 1);
		const rs = r.getClientRects();
		return rs.length ? rs[0] : r.getBoundingClientRect();
	};
	const whole = () => {
		const r = document.createRange();
		r.setStart(first.n, first.i);
		r.setEnd(last.n, last.i + 1);
		return r;
	};
	const inView = (b) => b.top >= 0 && b.left >= 0 && b.bottom <= innerHeight && b.right <= innerWidth;
	if (!inView(whole().getBoundingClientRect())) {
		first.n.parentElement.scrollIntoView({block: 'center', inline: 'nearest'});
	}
	const a = rectOf(first), b = rectOf(last), box = whole().getBoundingClientRect();
	const pad = (r) => Math.min(1, r.width / 4);
	return {
		found: true, visible: inView(box),
		fromX: a.left + pad(a), fromY: a.top + a.height / 2,
		toX: b.right - pad(b), toY: b.top + b.height / 2,
		box: {x: box.left, y: box.top, width: box.width, height: box.height},
		text: flat.slice(at, at + want.length),
	};
}
