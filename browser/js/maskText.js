// maskText draws the field's (this) text as discs, as a password field's
// is, so that no screenshot shows a secret typed into another kind of field.
function maskText() {
	this.style.setProperty('-webkit-text-security', 'disc', 'important');
}
