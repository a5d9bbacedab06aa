// standIn looks after the styled stand-in a page shows in place of this, a
// native select it hides from sight (selectric, select2 and chosen draw
// their own box and list and listen to the select's change), once the
// select was chosen by script:
//   - 'look': whether the select is hidden under a stand-in, and whether a
//     list of its options is left open over the page ({standIn, open,
//     shows}); shows is true when a shown element outside that list shows
//     the text of the selected option;
//   - 'close': close that list as a person leaves one: the select loses
//     focus and a click lands on the page's body, outside the widget (what
//     plugins listen to), then Escape if it is still open; reports as
//     'look' does.
function standIn(mode) {
	const el = this;
	const doc = el.ownerDocument, win = doc.defaultView;
	const squash = (s) => (s || '').replace(/\s+/g, ' ').trim();
	const cs = win.getComputedStyle(el);
	const r = el.getBoundingClientRect();
	let hidden = cs.display === 'none' || cs.visibility === 'hidden' || Number(cs.opacity) === 0 ||
		r.width < 2 || r.height < 2 || r.right <= 0 || r.bottom <= 0;
	if (!hidden) {
		// Inside a box too small to show it (selectric's zero-size one),
		// or clipped away by a rule (select2's clip).
		for (let a = el.parentElement; a && a !== doc.body && !hidden; a = a.parentElement) {
			const s = win.getComputedStyle(a);
			const b = a.getBoundingClientRect();
			hidden = s.overflow !== 'visible' && (b.width < 2 || b.height < 2);
		}
		hidden = hidden || (cs.clip && cs.clip !== 'auto' && r.width <= 1);
	}
	if (!hidden) return {standIn: false};
	const texts = new Set(Array.from(el.options, (o) => squash(o.label || o.text)).filter(Boolean));
	const chosen = el.selectedIndex >= 0 ? squash(el.options[el.selectedIndex].text) : '';
	const shown = (e) => e.getClientRects().length > 0 && win.getComputedStyle(e).visibility !== 'hidden';
	// A list showing: a shown element, floating over the page (it or an
	// ancestor is absolutely positioned or fixed, as dropdowns are), that
	// holds at least two shown items whose own text is an option's (the one
	// item of a select of one option).
	const floating = (e) => {
		for (let a = e; a && a !== doc.body; a = a.parentElement) {
			if (/^(absolute|fixed)$/.test(win.getComputedStyle(a).position)) return true;
		}
		return false;
	};
	const lists = () => {
		const count = new Map();
		for (const e of doc.body.querySelectorAll('li, [role=option], div, span, a')) {
			if (el.contains(e) || e.childElementCount > 1 || !texts.has(squash(e.textContent))) continue;
			const list = e.parentElement;
			if (!list || !shown(e)) continue;
			count.set(list, (count.get(list) || 0) + 1);
		}
		return [...count].filter(([l, n]) => n >= Math.min(2, texts.size) && floating(l)).map(([l]) => l);
	};
	const look = () => {
		const open = lists();
		// What shows the choice: a shown element outside the lists whose
		// own text is the chosen option's.
		let shows = false;
		for (const e of doc.body.querySelectorAll('*')) {
			if (e.childElementCount > 0 || el.contains(e) || open.some((l) => l.contains(e))) continue;
			if (squash(e.textContent) === chosen && shown(e)) { shows = true; break; }
		}
		return {standIn: true, open: open.length > 0, shows};
	};
	if (mode === 'close') {
		if (doc.activeElement === el) el.blur();
		const at = {bubbles: true, cancelable: true, view: win, clientX: 1, clientY: 1};
		for (const type of ['mousedown', 'mouseup', 'click']) doc.body.dispatchEvent(new MouseEvent(type, at));
		if (lists().length > 0) {
			for (const type of ['keydown', 'keyup']) {
				doc.body.dispatchEvent(new KeyboardEvent(type, {bubbles: true, cancelable: true, key: 'Escape', code: 'Escape', keyCode: 27, which: 27}));
			}
		}
	}
	return look();
}
