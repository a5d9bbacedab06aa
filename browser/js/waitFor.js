// waitFor resolves with true once a condition holds, or with whether it
// holds after timeout milliseconds. mode "text": text shows in the visible
// text of the document and its same-origin frames (case and runs of spaces
// ignored); "text_gone": it does not; "gone": this node is removed or has no
// box. A MutationObserver rechecks on every change: no polling.
function waitFor(mode, text, timeout) {
	const node = mode === 'gone' ? this : null;
	const doc = node ? node.ownerDocument : document;
	const norm = (s) => s.replace(/\s+/g, ' ').toLowerCase();
	const want = norm(text || '').trim();
	const visibleText = () => {
		let t = doc.body ? doc.body.innerText : '';
		for (const f of doc.querySelectorAll('iframe,frame')) {
			try { t += '\n' + f.contentDocument.body.innerText; } catch (e) { /* cross-origin */ }
		}
		return norm(t);
	};
	const holds = () => {
		if (node) {
			const el = node.nodeType === 1 ? node : node.parentElement;
			if (!node.isConnected || !el) return true;
			return el.getClientRects().length === 0 || doc.defaultView.getComputedStyle(el).visibility === 'hidden';
		}
		return visibleText().includes(want) === (mode === 'text');
	};
	return new Promise((resolve) => {
		if (holds()) return resolve(true);
		let timer = 0;
		const obs = new MutationObserver(() => { if (holds()) done(true); });
		const done = (v) => { obs.disconnect(); clearTimeout(timer); resolve(v); };
		obs.observe(doc, {subtree: true, childList: true, attributes: true, characterData: true});
		timer = setTimeout(() => done(holds()), timeout);
	});
}
