// waitQuiet resolves with the armed watch's count of changes once the DOM
// has had no change for quiet milliseconds or cap milliseconds have passed,
// whichever comes first, and disarms the watch; -1 when no watch is armed in
// this document (the one that was armed is gone). Polling uses timers rather
// than animation frames, which a hidden page does not get.
function waitQuiet(quiet, cap) {
	return new Promise(resolve => {
		const k = '__chaperoneQuiet', q = window[k], start = performance.now();
		if (!q) return resolve(-1);
		const step = Math.max(4, Math.min(10, quiet / 2));
		const tick = () => {
			const now = performance.now();
			if (now - q.last >= quiet || now - start >= cap) {
				q.stop();
				delete window[k];
				resolve(q.count);
				return;
			}
			setTimeout(tick, step);
		};
		tick();
	});
}
