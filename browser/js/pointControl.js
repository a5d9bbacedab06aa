// pointControl returns the control a click on this element (what a hit test
// found at a point) activates: the element itself or its nearest ancestor,
// through open shadow roots, that a person would call a control (a link, a
// button, a field, an element with a widget role or a click handler of its
// own); null when there is none, and the element is what the click reaches.
// A click on the icon in a "Pay" button is a click on the button.
function pointControl() {
	const widget = /^(button|link|checkbox|radio|switch|tab|menuitem|menuitemcheckbox|menuitemradio|option|slider|spinbutton|combobox|textbox|searchbox|treeitem|gridcell)$/;
	const isControl = (n) => n.matches('a[href],area[href],button,input,select,textarea,summary,label,[contenteditable=""],[contenteditable=true],[onclick]') ||
		widget.test(n.getAttribute('role') || '');
	for (let n = this.nodeType === 1 ? this : this.parentElement; n; n = n.parentElement || (n.getRootNode().host || null)) {
		if (n.nodeType === 1 && isControl(n)) return n;
	}
	return null;
}
