// waitReadyQuiet waits until the document is interactive (DOMContentLoaded
// has fired), then arms the quiet watch and waits for quiet (see waitQuiet),
// and reports the document: its URL, its title, whether its subresources
// still load, and the count of changes the watch saw.
function waitReadyQuiet(quiet, cap, armAndWaitQuiet) {
	const ready = document.readyState !== 'loading' ? Promise.resolve() :
		new Promise(resolve => document.addEventListener('DOMContentLoaded', resolve, {once: true}));
	return ready.then(() => armAndWaitQuiet.call(this, quiet, cap)).then(changes => ({
		url: location.href, title: document.title, loading: document.readyState !== 'complete', changes,
	}));
}
