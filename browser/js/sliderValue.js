// sliderValue says the value a slider (this) shows after a key moved it: a
// role=slider's aria-valuetext or aria-valuenow, a range input's value, or,
// for a widget library's handle that says nothing (a focusable handle in a
// track, as jQuery UI draws it), where the handle stands along its track,
// in percent. It returns '' for anything else.
function sliderValue() {
	const el = this;
	if (el.nodeType !== 1) return '';
	if (el.tagName === 'INPUT' && el.type === 'range') return el.value;
	const aria = el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow');
	if (aria && el.getAttribute('role') === 'slider') return aria;
	const track = el.parentElement;
	if (!track || !/(^|[-_\s])(slider|handle|thumb)([-_\s]|$)/i.test(el.className + ' ' + track.className)) return aria || '';
	const h = el.getBoundingClientRect(), r = track.getBoundingClientRect();
	if (!(r.width > 0) || !(h.width > 0)) return aria || '';
	const vertical = r.height > r.width;
	const at = vertical ? (r.bottom - (h.top + h.height / 2)) / r.height : (h.left + h.width / 2 - r.left) / r.width;
	return aria || Math.round(Math.max(0, Math.min(1, at)) * 100) + '% along its track';
}
