// maskSecrets draws as discs, the way a password field draws its value, every
// element of the document (and of its same-origin frames and open shadow
// roots) whose text holds one of texts, in either case: the smallest element
// that holds it, or a field whose value does. It keeps what it changed for
// unmaskSecrets, and returns how many elements it masked; when there were
// some it resolves only once the document has rendered them (or after cap
// milliseconds), so that a screenshot taken next shows them masked.
function maskSecrets(texts, cap) {
	const key = Symbol.for('chaperone.maskSecrets');
	const needles = texts.map(t => String(t).toLowerCase()).filter(t => t.length > 0);
	const holds = s => {
		if (!s) return false;
		s = String(s).toLowerCase();
		for (const n of needles) if (s.includes(n)) return true;
		return false;
	};
	const changed = [];
	const mask = el => {
		if (!el.style || changed.some(c => c.el === el)) return;
		changed.push({el, value: el.style.getPropertyValue('-webkit-text-security'), priority: el.style.getPropertyPriority('-webkit-text-security')});
		el.style.setProperty('-webkit-text-security', 'disc', 'important');
	};
	// descend masks, under el whose text holds a needle, the elements that
	// hold it: those whose own text nodes do, and el itself when the needle
	// runs across its children.
	const descend = el => {
		let inChild = false;
		for (const c of el.children) {
			if (holds(c.textContent)) {
				inChild = true;
				descend(c);
			}
		}
		let own = false;
		for (const n of el.childNodes) {
			if (n.nodeType === 3 && holds(n.data)) own = true;
		}
		if (own || !inChild) mask(el.tagName === 'OPTION' && el.closest('select') || el);
	};
	const scan = root => {
		const top = root.body || root.documentElement || root;
		if (top && top.children && holds(top.textContent)) descend(top);
		for (const el of root.querySelectorAll('*')) {
			if ((el.tagName === 'INPUT' && el.type !== 'password' || el.tagName === 'TEXTAREA') && holds(el.value)) mask(el);
			if (el.shadowRoot) scan(el.shadowRoot);
			if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') {
				let doc = null;
				try { doc = el.contentDocument; } catch (e) { doc = null; }
				if (doc) scan(doc);
			}
		}
	};
	if (needles.length) scan(document);
	const before = globalThis[key] || [];
	Object.defineProperty(globalThis, key, {value: before.concat(changed), configurable: true, enumerable: false, writable: true});
	if (!changed.length) return 0;
	return new Promise(resolve => {
		let left = 2;
		const tick = () => { if (--left <= 0) resolve(changed.length); else requestAnimationFrame(tick); };
		requestAnimationFrame(tick);
		setTimeout(() => resolve(changed.length), cap);
	});
}
