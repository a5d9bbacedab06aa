// holdsPaymentField returns 1 when the window's document (with framesOnly,
// only its frames), or a same-origin frame inside it, holds a payment-card
// field, else 0. payment is the source
// of the case-insensitive regexp that marks one by its field name
// (browser.PaymentFieldPattern), as inspect tests it.
function holdsPaymentField(payment, framesOnly) {
	const re = new RegExp(payment, 'i');
	const labelText = (f) => Array.from(f.labels || [], l => l.textContent).join(' ').trim();
	const isPayment = (f) => (f.getAttribute('autocomplete') || '').toLowerCase().split(/\s+/).some(t => t.startsWith('cc-')) ||
		re.test(f.getAttribute('name') || '') || re.test(f.id || '') || re.test(f.getAttribute('aria-label') || '') ||
		re.test(f.getAttribute('placeholder') || '') || re.test(labelText(f));
	// root is a document or an open shadow root, whose fields count too.
	const holds = (root, depth) => {
		if (!root || depth > 8) return false;
		const own = !(framesOnly && depth === 0);
		for (const f of own ? root.querySelectorAll('input,select,textarea') : []) {
			if (isPayment(f)) return true;
		}
		for (const h of root.querySelectorAll('*')) {
			if (h.shadowRoot && (own ? holds(h.shadowRoot, depth + 1) : h.shadowRoot.querySelector('iframe,frame') && holds(h.shadowRoot, depth))) return true;
		}
		for (const fr of root.querySelectorAll('iframe,frame')) {
			let inner = null;
			try { inner = fr.contentDocument; } catch (e) { inner = null; }
			if (holds(inner, depth + 1)) return true;
		}
		return false;
	};
	return holds(document, 0) ? 1 : 0;
}
