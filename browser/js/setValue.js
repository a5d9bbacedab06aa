// setValue sets the input's (this) value through the native setter, the way
// a browser's own input does, so that frameworks that track the value (React)
// see the change; then it fires input and change.
function setValue(v) {
	const el = this;
	const proto = el.tagName === 'TEXTAREA' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
	Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, v);
	el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
	el.dispatchEvent(new Event('change', {bubbles: true}));
	return el.value;
}
