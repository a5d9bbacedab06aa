// focusAndSelect focuses the field (this) and selects its content, so that
// typed text replaces it; with clear false the caret goes to the end instead.
// It reports whether there was content to clear ({had}). Focus runs the
// page's handlers: when, once they ran, the focus is on another element
// ({moved}), or the field is not as it was before (gone, of another type or
// name, or, when the text is added to it, holding another content:
// {changed}), nothing is selected, and the caller types nothing.
function focusAndSelect(clear) {
	const el = this;
	// From now on what the field holds may be the agent's: inspect's
	// record of the page's own value stops following it.
	el.chaperoneTyped = true;
	const content = () => el.isContentEditable ? el.textContent : el.value;
	const look = () => JSON.stringify([el.isConnected, el.tagName, el.type, el.name, el.autocomplete,
		el.isContentEditable, el.readOnly, el.disabled, clear ? '' : content()]);
	const before = look();
	el.focus();
	let at = el.ownerDocument.activeElement;
	while (at && at.shadowRoot && at.shadowRoot.activeElement) at = at.shadowRoot.activeElement;
	if (at !== el && !(el.isContentEditable && el.contains(at))) {
		const name = at && at !== el.ownerDocument.body ?
			(at.tagName.toLowerCase() + ' ' + (at.getAttribute('aria-label') || at.name || at.id || '')).trim() : 'the page';
		return {moved: name.slice(0, 200)};
	}
	if (look() !== before) return {changed: true};
	if (el.isContentEditable) {
		const sel = el.ownerDocument.getSelection();
		const range = el.ownerDocument.createRange();
		range.selectNodeContents(el);
		if (!clear) range.collapse(false);
		sel.removeAllRanges();
		sel.addRange(range);
		return {had: el.textContent.length > 0 && clear};
	}
	const n = el.value.length;
	try {
		if (clear) el.setSelectionRange(0, n); else el.setSelectionRange(n, n);
	} catch (e) { if (clear) el.select(); }
	return {had: n > 0 && clear};
}
