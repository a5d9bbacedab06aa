// consent looks for the cookie-consent banner of a known platform that the
// page shows, by the platform's own element ids and classes, and answers
// {platform, text, reject, accept} (each control {name, x, y}, its centre
// in viewport pixels, or null) or null when no such banner is visible. A
// control counts only if it is visible, on top at its centre, and says
// what it does in the words of its kind (reject, decline, necessary only…;
// accept, agree, allow…): an id alone must not make a page's other button,
// "Delete account" say, one the server clicks.
function consent() {
	const platforms = [
		{ name: 'OneTrust', banner: '#onetrust-banner-sdk', reject: '#onetrust-reject-all-handler', accept: '#onetrust-accept-btn-handler' },
		{ name: 'Cookiebot', banner: '#CybotCookiebotDialog', reject: '#CybotCookiebotDialogBodyButtonDecline',
			accept: '#CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll, #CybotCookiebotDialogBodyButtonAccept' },
		{ name: 'Didomi', banner: '#didomi-notice', reject: '#didomi-notice-disagree-button', accept: '#didomi-notice-agree-button' },
		{ name: 'Quantcast', banner: '.qc-cmp2-summary-buttons', reject: '.qc-cmp2-summary-buttons button', accept: '.qc-cmp2-summary-buttons button',
			text: '.qc-cmp2-container, #qc-cmp2-ui' },
		{ name: 'TrustArc', banner: '#truste-consent-track', reject: '#truste-consent-required', accept: '#truste-consent-button' },
		{ name: 'Usercentrics', host: '#usercentrics-root', banner: '[data-testid="uc-default-banner"]',
			reject: '[data-testid="uc-deny-all-button"]', accept: '[data-testid="uc-accept-all-button"]' },
	];
	const rejectWords = /\b(reject|decline|deny|refuse|disagree|necessary|essential|required only|only required|do not accept|don't accept|continue without|ablehnen|refuser|rechazar|rifiuta)/i;
	const acceptWords = /\b(accept|agree|allow|consent|got it|i understand|ok\b|okay|akzeptieren|accepter|aceptar|accetta|zustimmen)/i;
	const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
	const visible = (el) => {
		if (!el || !el.checkVisibility || !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
		const r = el.getBoundingClientRect();
		return r.width > 0 && r.height > 0;
	};
	// control is the first of the candidates that is visible, on top at its
	// centre, and named in the words of its kind.
	const control = (scope, selector, words, not) => {
		for (const el of scope.querySelectorAll(selector)) {
			const name = norm(el.getAttribute('aria-label') || el.innerText || el.textContent);
			if (!visible(el) || !words.test(name) || (not && not.test(name))) continue;
			const r = el.getBoundingClientRect();
			const x = Math.min(Math.max(r.left + r.width / 2, 0), innerWidth - 1);
			const y = Math.min(Math.max(r.top + r.height / 2, 0), innerHeight - 1);
			let hit = document.elementFromPoint(x, y);
			while (hit && hit.shadowRoot && hit.shadowRoot.elementFromPoint) {
				const inner = hit.shadowRoot.elementFromPoint(x, y);
				if (!inner || inner === hit) break;
				hit = inner;
			}
			if (!hit || !(hit === el || el.contains(hit))) continue;
			return { name: name.slice(0, 100), x, y };
		}
		return null;
	};
	for (const p of platforms) {
		let scope = document;
		if (p.host) {
			const host = document.querySelector(p.host);
			if (!host || !host.shadowRoot) continue;
			scope = host.shadowRoot;
		}
		const banner = scope.querySelector(p.banner);
		if (!visible(banner)) continue;
		const textOf = (p.text && scope.querySelector(p.text)) || banner;
		// Reject is looked for first and accept never takes a button that
		// also reads as a refusal ("Do not accept").
		const reject = control(scope, p.reject, rejectWords, null);
		const accept = control(scope, p.accept, acceptWords, rejectWords);
		if (!reject && !accept) continue;
		return { platform: p.name, text: norm(textOf.innerText).slice(0, 600), reject, accept };
	}
	return null;
}
