// armKeyDelivery listens, in this document, for the trusted keydown of key,
// and returns the record readDelivery reads once the key is sent. The
// document holds the focus when its focused element (through open shadow
// roots and same-origin frames) is not a frame of another process: a key
// counts as delivered only when it reached that element, or the body when
// nothing is focused. A keydown that reaches an iframe element went to the
// page while the frame inside should have had it. A keydown that reached
// the element is also reported at once through the binding named binding,
// with token, so that it is known even when the document goes away first.
function armKeyDelivery(key, token, binding) {
	let el = document.activeElement;
	for (;;) {
		if (el && el.shadowRoot && el.shadowRoot.activeElement) { el = el.shadowRoot.activeElement; continue; }
		let inner = null;
		try { inner = el && el.contentDocument && el.contentDocument.activeElement; } catch (e) { inner = null; }
		if (inner) { el = inner; continue; }
		break;
	}
	const isFrame = (n) => !!n && /^(IFRAME|FRAME|OBJECT|EMBED|FENCEDFRAME|PORTAL)$/.test(n.tagName || '');
	const doc = (el && el.ownerDocument) || document, win = doc.defaultView;
	const rec = {kind: 'key', el: el || doc.body, holds: !isFrame(el), seen: {}, hit: {}, missed: null};
	const report = win[binding];
	const note = (e) => {
		if (!e.isTrusted || e.key !== key) return;
		const path = e.composedPath();
		rec.seen.keydown = true;
		if (!isFrame(path[0]) && (path.includes(rec.el) || path[0] === doc.body || path[0] === doc.documentElement || path[0] === doc)) {
			if (!rec.hit.keydown && typeof report === 'function') { try { report(token); } catch (x) {} }
			rec.hit.keydown = true;
		} else if (!rec.hit.keydown) {
			rec.missed = path[0] || null;
		}
	};
	for (const at of [win, doc]) at.addEventListener('keydown', note, true);
	rec.stop = () => { for (const at of [win, doc]) at.removeEventListener('keydown', note, true); };
	return rec;
}
