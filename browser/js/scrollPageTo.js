// scrollPageTo scrolls the page back to where it was, x and y in CSS
// pixels, after a look that scrolled it.
function scrollPageTo(x, y) {
	window.scrollTo({left: x, top: y, behavior: 'instant'});
}
