// waitQuiet resolves with the armed watch's count of changes once the DOM
// has had no change for quiet milliseconds or cap milliseconds have passed,
// whichever comes first, and disarms the watch; -1 when no watch is armed in
// this document (the one that was armed is gone). Rather than poll, it sets
// one timer for when the window would close; a change meanwhile moved
// q.last, and the timer is set again for the rest of the new window. A busy
// page's timers come late, and a poll every few milliseconds in every page
// was as many wake-ups to come late. Timers rather than animation frames,
// which a hidden page does not get.
function waitQuiet(quiet, cap) {
	return new Promise(resolve => {
		const k = '__chaperoneQuiet', q = window[k], start = performance.now();
		if (!q) return resolve(-1);
		const check = () => {
			const left = Math.min(q.last + quiet, start + cap) - performance.now();
			if (left > 0) {
				setTimeout(check, Math.ceil(left));
				return;
			}
			q.stop();
			delete window[k];
			resolve(q.count);
		};
		check();
	});
}
