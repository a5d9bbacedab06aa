// waitFirstChange resolves with the armed watch's count at the first change,
// or when cap milliseconds pass without one; -1 when no watch is armed in
// this document. Polling uses timers rather than animation frames, which a
// hidden page does not get.
function waitFirstChange(cap) {
	return new Promise(resolve => {
		const q = window['__chaperoneQuiet'], start = performance.now();
		if (!q) return resolve(-1);
		const tick = () => {
			if (q.count > 0 || performance.now() - start >= cap) { resolve(q.count); return; }
			setTimeout(tick, 4);
		};
		tick();
	});
}
