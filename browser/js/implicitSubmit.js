// implicitSubmit returns what Enter in this field submits, as HTML's
// implicit submission defines it: the form's default button (its first
// submit button in tree order, wherever the button sits), or, for a form
// with none, the form itself when at most one field blocks implicit
// submission. It returns null when Enter submits nothing: not a field, no
// form, or a form with several text fields and no submit button.
function implicitSubmit() {
	const el = this.nodeType === 1 ? this : this.parentElement;
	if (!el || el.tagName !== 'INPUT' || !el.form) return null;
	const type = (el.getAttribute('type') || 'text').toLowerCase();
	// A button of its own is what Enter activates; the caller judges it.
	if (/^(button|submit|reset|image|file|hidden)$/.test(type)) return null;
	const form = el.form;
	const isSubmit = (f) => (f.tagName === 'BUTTON' && !/^(button|reset|menu)$/.test((f.getAttribute('type') || 'submit').toLowerCase())) ||
		(f.tagName === 'INPUT' && /^(submit|image)$/i.test(f.getAttribute('type') || ''));
	for (const f of form.elements) {
		if (isSubmit(f)) return f;
	}
	const blocking = /^(text|search|url|tel|email|password|date|month|week|time|datetime-local|number)$/;
	let n = 0;
	for (const f of form.elements) {
		if (f.tagName === 'INPUT' && blocking.test((f.getAttribute('type') || 'text').toLowerCase())) n++;
	}
	return n <= 1 ? form : null;
}
