// waitLoaded resolves with true once the document has fired its load event
// (at once if it has), or with false after cap milliseconds.
function waitLoaded(cap) {
	return new Promise(resolve => {
		if (document.readyState === 'complete') return resolve(true);
		const timer = setTimeout(() => resolve(false), cap);
		addEventListener('load', () => { clearTimeout(timer); resolve(true); }, {once: true});
	});
}
