// fireChange ends typing into the field (this) as leaving it would, with a
// change event, and returns the field's value.
function fireChange() {
	this.dispatchEvent(new Event('change', {bubbles: true}));
	return this.isContentEditable ? this.textContent : this.value;
}
