// drawnRects lists where the element (this) is drawn besides its own box:
// the boxes of the elements inside it and the runs of its text, in the
// viewport of the page's process (offsets of same-origin frames added, as
// inspect does), largest first, at most max of them. Its pseudo-elements'
// boxes are read through the protocol, which alone knows them.
function drawnRects(max) {
	const el = this.nodeType === 1 ? this : this.parentElement;
	const doc = el.ownerDocument, win = doc.defaultView;
	let dx = 0, dy = 0;
	for (let w = win; w.frameElement; w = w.parent) {
		const fr = w.frameElement.getBoundingClientRect();
		dx += fr.left + w.frameElement.clientLeft;
		dy += fr.top + w.frameElement.clientTop;
	}
	const rects = [];
	const walker = doc.createTreeWalker(el, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
	for (let n = walker.nextNode(), i = 0; n && i < 200; n = walker.nextNode(), i++) {
		let list;
		if (n.nodeType === 3) {
			if (!n.data.trim()) continue;
			const range = doc.createRange();
			range.selectNodeContents(n);
			list = range.getClientRects();
		} else {
			list = n.getClientRects();
		}
		for (const q of list) {
			if (q.width >= 1 && q.height >= 1) rects.push({x: q.left + dx, y: q.top + dy, width: q.width, height: q.height});
		}
	}
	rects.sort((a, b) => b.width * b.height - a.width * a.height);
	return rects.slice(0, max);
}
