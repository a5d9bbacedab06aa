// guardFiles arms a guard on this file input for the files it is about to
// be given, want ({name, size} each, in order: what a person approved). The
// input's input and change events are heard first, at its window in the
// capture phase: when the input does not hold exactly want then, they are
// stopped before the page's listeners on the input hear them, and the input
// is given back the files it held before. Nothing is armed ({ok: false,
// now}) when the input would not take want as it is (no longer a file
// input, one file only for several, a folder picker). The guard is read,
// and ended, by readGuard.
function guardFiles(want) {
	const el = this;
	const win = el.ownerDocument.defaultView;
	const guard = {ok: true, blocked: false, now: '', end: null};
	if (!(el instanceof win.HTMLInputElement) || el.type !== 'file') return {ok: false, now: 'it is no longer a file input'};
	if (want.length > 1 && !el.multiple) return {ok: false, now: 'it takes one file now, not ' + want.length};
	if (el.hasAttribute('webkitdirectory')) return {ok: false, now: 'it takes a folder now, not files'};
	const before = el.files;
	const describe = (fs) => Array.from(fs || [], f => JSON.stringify(f.name).slice(0, 200) + ' (' + f.size + ' bytes)').join(', ') || 'no file';
	const holds = () => {
		const fs = Array.from(el.files || []);
		return fs.length === want.length && fs.every((f, i) => f.name === want[i].name && f.size === want[i].size);
	};
	const check = (e) => {
		if (e.composedPath()[0] !== el) return;
		if (!guard.blocked && holds()) return;
		if (!guard.blocked) {
			guard.blocked = true;
			guard.now = 'it was given ' + describe(el.files);
			try { el.files = before; } catch (x) { /* the input keeps what it was given, unheard */ }
		}
		e.stopImmediatePropagation();
	};
	for (const type of ['input', 'change']) win.addEventListener(type, check, true);
	guard.end = () => { for (const type of ['input', 'change']) win.removeEventListener(type, check, true); };
	return guard;
}
