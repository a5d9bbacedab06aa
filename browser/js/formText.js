// formText returns what a person reads of a form that has no name of its
// own: its visible text, squeezed and cut to max characters.
function formText(max) {
	return (this.innerText || this.textContent || '').trim().replace(/\s+/g, ' ').slice(0, max);
}
