// waitFirstChange resolves with the armed watch's count at the first change,
// or when cap milliseconds pass without one; -1 when no watch is armed in
// this document. The change itself wakes it (armQuietWatch): nothing polls.
// The cap is a timer rather than an animation frame, which a hidden page
// does not get.
function waitFirstChange(cap) {
	return new Promise(resolve => {
		const q = window['__chaperoneQuiet'];
		if (!q) return resolve(-1);
		if (q.count > 0) return resolve(q.count);
		let timer = 0;
		const done = () => {
			clearTimeout(timer);
			q.wakes.delete(done);
			resolve(q.count);
		};
		q.wakes.add(done);
		timer = setTimeout(done, cap);
	});
}
