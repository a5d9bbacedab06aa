// scrollPage scrolls the page to its top or, when edge is 'bottom', its
// bottom, firing scroll events as any scroll does.
function scrollPage(edge) {
	if (edge === 'bottom') window.scrollTo({top: document.scrollingElement.scrollHeight, behavior: 'instant'});
	else window.scrollTo({top: 0, behavior: 'instant'});
}
