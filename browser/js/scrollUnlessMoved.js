// scrollUnlessMoved waits up to five animation frames for the node's (this)
// content to leave the scroll offset before; if it never does, it scrolls
// the content by dy itself. It returns whether the wheel had moved it.
function scrollUnlessMoved(before, dy) {
	const el = this;
	return new Promise(resolve => {
		let frames = 0;
		const look = () => {
			if (el.scrollTop !== before) return resolve(true);
			if (++frames < 5) return requestAnimationFrame(look);
			el.scrollBy({top: dy, behavior: 'instant'});
			resolve(false);
		};
		requestAnimationFrame(look);
	});
}
