// labelControl returns the control a click on this element activates
// through a label it is in (the label's for, or the control inside it),
// when that control is not the element itself or one of its ancestors or
// descendants; else null. A label styled as a button can click a hidden
// "Place order" elsewhere on the page.
function labelControl() {
	const el = this.nodeType === 1 ? this : this.parentElement;
	const label = el && el.closest('label');
	const control = label && label.control;
	if (!control || control === el || control.contains(el) || el.contains(control)) return null;
	return control;
}
