// activeElement returns the element that has focus in this document (this,
// when it is one; else the window's document), inside open shadow roots and
// same-origin frames, or null when only the document (its body) has it. A
// frame whose document it cannot read (another origin) is returned as the
// iframe element: the caller follows focus into it through the protocol.
function activeElement() {
	const doc = this && this.nodeType === 9 ? this : document;
	let el = doc.activeElement;
	for (;;) {
		if (el && el.shadowRoot && el.shadowRoot.activeElement) {
			el = el.shadowRoot.activeElement;
			continue;
		}
		let inner = null;
		try { inner = el && el.contentDocument && el.contentDocument.activeElement; } catch (e) { inner = null; }
		if (inner && inner !== el.contentDocument.body) {
			el = inner;
			continue;
		}
		break;
	}
	return el && el !== doc.body && el !== doc.documentElement ? el : null;
}
