// guardOption arms a guard on this option of a listbox or popup for the
// click about to be sent: the click must find the option as it is now (its
// text and value, read as selectOption reads a listbox's), once the
// handlers of the press before it ran. When they changed or replaced it,
// the click is stopped at the document, in the capture phase, before the
// page's listeners below it hear it, and its default action is prevented:
// the page never hears a choice nobody approved. The window's listeners
// (the delivery record's) still hear it. The guard is read, and ended, by
// readGuard.
function guardOption() {
	const el = this, doc = el.ownerDocument;
	const squash = (s) => (s || '').replace(/\s+/g, ' ').trim();
	const text = () => squash(el.getAttribute('aria-label') || el.textContent);
	const read = () => JSON.stringify([el.isConnected, text(), el.getAttribute('data-value') ?? el.getAttribute('value') ?? text()]);
	const armed = read();
	const guard = {ok: true, blocked: false, now: '', end: null};
	const check = (e) => {
		if (e.composedPath().includes(el) && read() === armed) return;
		if (!guard.blocked) {
			guard.blocked = true;
			guard.now = el.isConnected ? 'the option read ' + JSON.stringify(text().slice(0, 200)) + ' when the click came' :
				'the page replaced the option before the click came';
		}
		e.stopImmediatePropagation();
		e.preventDefault();
	};
	doc.addEventListener('click', check, true);
	guard.end = () => doc.removeEventListener('click', check, true);
	return guard;
}
