// focusAndSelect focuses the field (this) and selects its content, so that
// typed text replaces it; with clear false the caret goes to the end instead.
// It reports whether there was content to clear.
function focusAndSelect(clear) {
	const el = this;
	el.focus();
	if (el.isContentEditable) {
		const sel = el.ownerDocument.getSelection();
		const range = el.ownerDocument.createRange();
		range.selectNodeContents(el);
		if (!clear) range.collapse(false);
		sel.removeAllRanges();
		sel.addRange(range);
		return el.textContent.length > 0 && clear;
	}
	const n = el.value.length;
	try {
		if (clear) el.setSelectionRange(0, n); else el.setSelectionRange(n, n);
	} catch (e) { if (clear) el.select(); }
	return n > 0 && clear;
}
