// armQuietWatch starts counting the page's DOM changes and scrolls,
// remembering when the last one happened, for waitFirstChange and waitQuiet.
// A change also wakes whoever waits for the first one (q.wakes), so that no
// wait polls: under load a renderer's timers stretch, and every poll of every
// page is a wake-up the machine pays for. The watcher hides in a
// non-enumerable property of the window.
function armQuietWatch() {
	const k = '__chaperoneQuiet';
	if (window[k]) window[k].stop();
	const q = {count: 0, last: performance.now(), wakes: new Set()};
	const change = () => {
		q.count++;
		q.last = performance.now();
		for (const wake of q.wakes) wake();
	};
	q.obs = new MutationObserver(change);
	q.obs.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
	// A scroll changes what a snapshot shows without touching the DOM.
	document.addEventListener('scroll', change, {capture: true, passive: true});
	q.stop = () => { q.obs.disconnect(); document.removeEventListener('scroll', change, {capture: true}); };
	Object.defineProperty(window, k, {value: q, configurable: true});
}
