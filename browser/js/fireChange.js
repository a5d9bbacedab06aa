// fireChange ends typing into the field (this) as leaving it would, with a
// change event, and returns the field's value then. The change, which is what
// forms act on, is sent only when the field holds the text typed (all of
// it, or with clear false its end), compared as the server compares a fill
// read back: letters and digits, lower-cased. A page that rewrote the value
// as it was typed does not hear it committed ({withheld: true}); a field
// left empty (a page that reads the keys and keeps no text) is not judged.
function fireChange(typed, clear) {
	const read = () => this.isContentEditable ? this.textContent : this.value;
	const value = read();
	const significant = (s) => Array.from(s).map(c => c.toLowerCase()).join('').replace(/[^\p{L}\p{Nd}]/gu, '');
	let v = significant(value), t = significant(typed);
	if (t === '' && typed !== '') { v = value; t = typed; }
	const holds = clear ? v === t : v.endsWith(t);
	if (value !== '' && !holds) return {value, withheld: true};
	this.dispatchEvent(new Event('change', {bubbles: true}));
	// Read again: a change handler may rewrite it, which the caller checks.
	return {value: read(), withheld: false};
}
