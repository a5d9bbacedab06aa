// scrollElement scrolls the node's (this) own content to an edge, 'top' or
// 'bottom', or brings the node into view when edge is empty; with edge
// 'none' it only reads. It returns the content's scroll offset.
function scrollElement(edge) {
	const el = this;
	if (edge === 'none') return el.scrollTop;
	if (edge === 'top') el.scrollTop = 0;
	else if (edge === 'bottom') el.scrollTop = el.scrollHeight;
	else el.scrollIntoView({block: 'center', inline: 'nearest', behavior: 'instant'});
	return el.scrollTop;
}
