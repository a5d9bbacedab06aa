// activeElement returns the element that has focus, inside open shadow roots
// and same-origin frames, or null when only the page (its body) has it.
function activeElement() {
	let el = document.activeElement;
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
	return el && el !== document.body && el !== document.documentElement ? el : null;
}
