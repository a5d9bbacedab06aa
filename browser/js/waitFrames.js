// waitFrames resolves once the document has rendered n more frames, or after
// cap milliseconds, whichever comes first (a hidden page renders none). The
// browser routes input into a cross-site frame by what the last rendered
// frames showed, so a click waits for the layout it aims at to be on screen.
function waitFrames(n, cap) {
	return new Promise(resolve => {
		let left = n;
		const tick = () => { if (--left <= 0) resolve(); else requestAnimationFrame(tick); };
		requestAnimationFrame(tick);
		setTimeout(resolve, cap);
	});
}
