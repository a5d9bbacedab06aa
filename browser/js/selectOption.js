// selectOption finds the option of the select or listbox (this) whose value
// or visible text is v, exactly first, then ignoring case and surrounding
// space. With choose it picks it, firing input and change as a person's
// choice does; without, it only says which option that would be. Without a
// match it lists the options.
function selectOption(v, choose) {
	const el = this;
	const opts = Array.from(el.options || el.querySelectorAll('[role=option]'));
	const text = (o) => (o.label || o.textContent || '').trim();
	const norm = (s) => s.trim().toLowerCase();
	let pick = opts.find(o => o.value === v) || opts.find(o => text(o) === v) ||
		opts.find(o => norm(o.value || '') === norm(v)) || opts.find(o => norm(text(o)) === norm(v));
	if (!pick) return {ok: false, options: opts.map(o => text(o) + (o.value !== undefined && o.value !== text(o) ? ' (' + o.value + ')' : ''))};
	if (pick.disabled) return {ok: false, disabled: true, options: [text(pick)]};
	if (choose && el.tagName === 'SELECT') {
		el.focus();
		pick.selected = true;
		el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
		el.dispatchEvent(new Event('change', {bubbles: true}));
	} else if (choose) {
		pick.click();
	}
	return {ok: true, value: pick.value !== undefined ? pick.value : text(pick), text: text(pick)};
}
