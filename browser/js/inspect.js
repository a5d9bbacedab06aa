// inspect looks at the node (this) before an action, scrolling it into view
// first when scroll is set. Offsets of same-origin frames are added so that x,
// y and box are main-viewport coordinates. payment is the source of the
// case-insensitive regexp that marks a payment-card field by its field name
// (browser.PaymentFieldPattern; the same test as checkpoint.IsPaymentField).
// at, when set, makes this the iframe element of an out-of-process frame:
// {x, y} is a point of that frame, already taken through the iframe as
// this process draws it into its main viewport, which is hit-tested here
// instead of the element's centre (a page hit test sees only the iframe
// element).
//
// retried is set on the second look, after a hit test that landed on the
// document itself scrolled the element into view once more.
//
// Beyond what own finds of the element's own box, it says whether the
// element is rendered with no size (zero: the caller looks for where it
// is drawn, drawn.go), whether it is a form control a person cannot see
// (standIn: transparent or smaller than 4 px a side, and if covered, by
// something its own wrapper draws), and moves the click
// point of such a checkbox or radio, or of one covered or without a box,
// to its visible label (via "label").
function inspect(scroll, payment, at, retried) {
	const out = own.call(this, scroll, payment, at, retried);
	if (!out.connected || at) return out;
	const el = this.nodeType === 1 ? this : this.parentElement;
	const doc = el.ownerDocument, win = doc.defaultView;
	const cs = win.getComputedStyle(el);
	// Drawn by nothing of its own: rendered, but with no size (what shows
	// of it is drawn by its pseudo-elements or overflows it: the caller
	// looks there), or, for a form control, transparent or too small to
	// point at (a page draws something else in its place).
	const rendered = el.getClientRects().length > 0 && cs.visibility !== 'hidden';
	const r = el.getBoundingClientRect();
	out.zero = rendered && (r.width === 0 || r.height === 0);
	if (!rendered || !el.labels && !/^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(el.tagName)) return out;
	// How opaque a person sees an element: its opacity and its
	// ancestors', across shadow roots.
	const opacity = (e) => {
		let o = 1;
		for (let a = e; a && a.nodeType === 1 && o >= 0.1; a = a.parentElement || a.getRootNode().host || null) {
			o *= parseFloat(win.getComputedStyle(a).opacity);
		}
		return o;
	};
	const toggles = el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio');
	// Only a checkbox or radio, or a control something covers, is asked
	// (the ancestors' styles are read for it).
	if (!toggles && !out.covered) return out;
	const undrawn = opacity(el) < 0.1 || r.width < 4 || r.height < 4;
	let dx = 0, dy = 0;
	for (let w = win; w.frameElement; w = w.parent) {
		const fr = w.frameElement.getBoundingClientRect();
		dx += fr.left + w.frameElement.clientLeft;
		dy += fr.top + w.frameElement.clientTop;
	}
	const hitAt = (root, x, y) => {
		let hit = root.elementFromPoint ? root.elementFromPoint(x, y) : doc.elementFromPoint(x, y);
		while (hit && hit.shadowRoot) {
			const inner = hit.shadowRoot.elementFromPoint(x, y);
			if (!inner || inner === hit) break;
			hit = inner;
		}
		return hit;
	};
	// What covers a control a person cannot see stands in for it when the
	// control's own wrapper draws it (a switch's knob, a styled box), not
	// when it is a dialog or something from elsewhere on the page.
	out.standIn = undrawn;
	if (undrawn && out.covered) {
		const hit = hitAt(el.getRootNode(), out.x - dx, out.y - dy);
		const modal = hit && hit.closest && hit.closest('[role=dialog],[role=alertdialog],dialog,[aria-modal=true]');
		let near = false;
		for (let a = el.parentElement, i = 0; a && i < 3 && !near; a = a.parentElement, i++) near = !!hit && a.contains(hit);
		out.standIn = !modal && near;
	}
	if (!toggles || !(undrawn || !out.visible || out.covered) || !el.labels || el.labels.length === 0) return out;
	// A checkbox or radio a person cannot point at is used through its
	// label, as a person uses it: the
	// click goes to a point of a label where the browser finds the label
	// (or something in it that is not another control), and a click there
	// activates the control.
	const other = 'a[href],button,select,textarea,input,[role=link],[role=button],[role=checkbox],[role=radio],[contenteditable=""],[contenteditable=true]';
	const point = (label) => {
		const ls = win.getComputedStyle(label);
		if (ls.visibility === 'hidden' || opacity(label) < 0.1) return null;
		let lr = label.getBoundingClientRect();
		if (lr.width < 1 || lr.height < 1) return null;
		if (scroll && (lr.top < 0 || lr.left < 0 || lr.bottom > win.innerHeight || lr.right > win.innerWidth)) {
			label.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
			lr = label.getBoundingClientRect();
		}
		const left = Math.max(lr.left, 0), top = Math.max(lr.top, 0);
		const right = Math.min(lr.right, win.innerWidth), bottom = Math.min(lr.bottom, win.innerHeight);
		for (const fy of [0.5, 0.25, 0.75]) {
			for (const fx of [0.5, 0.25, 0.75, 0.1, 0.9]) {
				const x = Math.floor(left + (right - left) * fx), y = Math.floor(top + (bottom - top) * fy);
				if (x < left || y < top || x >= right || y >= bottom) continue;
				const hit = hitAt(label.getRootNode(), x, y);
				if (!hit || !(hit === label || label.contains(hit))) continue;
				const inner = hit.closest(other);
				if (inner && inner !== el && label.contains(inner)) continue;
				return {x: x + dx, y: y + dy, box: {x: lr.left + dx, y: lr.top + dy, width: lr.width, height: lr.height}};
			}
		}
		return null;
	};
	for (const label of el.labels) {
		const p = point(label);
		if (!p) continue;
		out.visible = true;
		out.covered = '';
		out.x = p.x; out.y = p.y; out.box = p.box;
		out.via = 'label';
		break;
	}
	return out;

	function own(scroll, payment, at, retried) {
		const el = this.nodeType === 1 ? this : this.parentElement;
		const out = {connected: !!(el && el.isConnected)};
		if (!out.connected) return out;
		const doc = el.ownerDocument;
		out.documentURL = doc.URL;
		out.docOrigin = doc.defaultView ? doc.defaultView.origin : '';
		out.tag = el.tagName.toLowerCase();
		// The value the page gave a field, as the server found it before an
		// action: a page that fills a field by script (not by its value
		// attribute) leaves defaultValue empty, so an edit of it would read as
		// a first entry. Until the agent types into it (focusAndSelect marks
		// chaperoneTyped), a value the page puts in later (once the field is
		// clicked, once its data arrives) is the page's too. Kept on the
		// judging world's own view of the node, which the page cannot see.
		if ((out.tag === 'input' || out.tag === 'textarea') && (el.chaperonePageValue === undefined || (el.chaperonePageValue === '' && !el.chaperoneTyped))) el.chaperonePageValue = el.value;
		out.inputType = out.tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : '';
		// A password field by any of the signs a person's are read by
		// (passwordFields.js): its type, a password's autocomplete, or text
		// drawn as discs.
		out.password = (out.tag === 'input' || out.tag === 'textarea') && (el.type === 'password' ||
			/\b(current|new)-password\b/i.test(el.getAttribute('autocomplete') || '') ||
			(getComputedStyle(el).webkitTextSecurity || 'none') !== 'none');
		out.editable = !!el.isContentEditable;
		out.disabled = !!(el.disabled || el.closest('[aria-disabled="true"]') || el.closest('fieldset[disabled]') && el.matches('input,select,textarea,button'));
		out.readOnly = !!(el.readOnly || el.getAttribute('aria-readonly') === 'true');
		const labelText = (f) => {
			const by = f.getAttribute('aria-labelledby');
			const texts = by ? by.split(/\s+/).map(id => f.ownerDocument.getElementById(id)?.textContent || '') :
				Array.from(f.labels || [], l => l.textContent);
			return texts.join(' ').trim().replace(/\s+/g, ' ');
		};
		const fieldName = (f) => f.getAttribute('name') || f.id || f.getAttribute('aria-label') || labelText(f);
		const payRe = new RegExp(payment, 'i');
		const isPayment = (f) => (f.getAttribute('autocomplete') || '').toLowerCase().split(/\s+/).some(t => t.startsWith('cc-')) ||
			payRe.test(fieldName(f));
		out.autocomplete = el.getAttribute('autocomplete') || '';
		out.fieldName = fieldName(el).slice(0, 200);
		const submits = (el.tagName === 'BUTTON' && (el.getAttribute('type') || 'submit').toLowerCase() === 'submit') ||
			(el.tagName === 'INPUT' && /^(submit|image)$/.test(out.inputType));
		// accountForm says whether sending form by submitter changes the
		// account it is sent to (the default policy's account-change rule):
		// it sets a password (a new-password field, or one whose name says
		// new, confirm or repeat: a change or a sign-up), or it holds an
		// email, phone or user-name field, or two password fields, and is no
		// sign-in. A field the page filled in, since changed, is an edit; so
		// is a form whose submit, action, name or page says change, save,
		// settings or profile, unless it says sign in and no edit. Without
		// such words the fields decide: one identifier (and a password) is a
		// sign-in or a newsletter, more is a profile.
		// The fields under root, in open shadow roots too: a page's own
		// elements keep theirs there, and its script sends them.
		const deepFields = (root) => {
			const out = [];
			const walk = (r) => {
				for (const e of r.querySelectorAll('*')) {
					if (e.matches('input,textarea')) out.push(e);
					if (e.shadowRoot) walk(e.shadowRoot);
				}
			};
			walk(root);
			return out;
		};
		// up is the element a node is in, across a shadow root's boundary.
		const up = (a) => a.parentElement || (a.getRootNode() !== doc && a.getRootNode().host) || null;
		const accountForm = (form, submitter) => {
			if (!form) return false;
			const words = (f) => [f.getAttribute('name'), f.id, f.getAttribute('aria-label'), f.getAttribute('placeholder'), f.getAttribute('title'), labelText(f)].join(' ');
			const tokens = (f) => (f.getAttribute('autocomplete') || '').toLowerCase().split(/\s+/);
			const fields = Array.from(new Set([...(form.elements || []), ...deepFields(form)])).filter(f => f.matches('input,textarea') &&
				!/^(hidden|submit|button|reset|image|checkbox|radio|file|range|color)$/.test((f.getAttribute('type') || 'text').toLowerCase()));
			const isPassword = (f) => f.type === 'password' || tokens(f).some(t => /^(current|new)-password$/.test(t)) ||
				(getComputedStyle(f).webkitTextSecurity || 'none') !== 'none';
			const passwords = fields.filter(isPassword);
			if (passwords.some(f => tokens(f).includes('new-password') || /new|confirm|repeat|retype|again|verify|change/i.test(words(f)))) return true;
			const ids = fields.filter(f => !isPassword(f) && (/^(email|tel)$/i.test(f.type) || /^(email|tel)$/i.test(f.getAttribute('inputmode') || '') ||
				tokens(f).some(t => /^(email|tel|tel-national|username)$/.test(t)) || /e-?mail|phone|mobile|user.?name/i.test(words(f))));
			const edited = (f) => [f.defaultValue, f.chaperonePageValue].some(v => v !== undefined && v !== '' && f.value !== v);
			if (ids.some(edited)) return true;
			if (!ids.length && passwords.length < 2) return false;
			const name = (b) => !b ? '' : [b.getAttribute('aria-label'), b.getAttribute('title'), b.value, b.textContent, b.getAttribute('formaction')].join(' ');
			let action = '';
			try { action = decodeURIComponent(new URL(form.getAttribute('action') || '', doc.baseURI).pathname); } catch (e) { /* no action */ }
			const said = [name(submitter), action, form.getAttribute('name'), form.id, form.getAttribute('aria-label'), doc.location.pathname].join(' ').replace(/[_\-/.]+/g, ' ');
			const edit = /\b(change|update|edit|save|modify|replace|rename|new|apply|confirm)\b/i;
			// A sign-in may ask for a password and a PIN: two password fields.
			if (/\b(sign|log)\s?(in|on)\b|\b(signin|login|logon|sessions?|auth)\b/i.test(said) && !edit.test(said)) return false;
			if (passwords.length >= 2 || edit.test(said) || /\b(settings?|profile|security|preferences?|recovery|account)\b/i.test(said)) return true;
			return fields.length > ids.length + passwords.length;
		};
		// The button Enter in a field of form presses: its first submit control.
		const defaultButton = (form) => form && Array.from(form.elements).find(f =>
			(f.tagName === 'BUTTON' && (f.getAttribute('type') || 'submit').toLowerCase() === 'submit') ||
			(f.tagName === 'INPUT' && /^(submit|image)$/i.test(f.getAttribute('type') || '')));
		const paymentForm = (form) => !!form && Array.from(form.elements).some(f => f.matches('input,select,textarea') && isPayment(f));
		out.submitsPayment = submits && paymentForm(el.form);
		// Enter in a text field submits its form too (implicit submission).
		const implicit = out.tag === 'input' && !/^(button|checkbox|radio|reset|file|hidden|color|range|image|submit)$/.test(out.inputType);
		out.enterSubmitsPayment = out.submitsPayment || (implicit && paymentForm(el.form));
		// A button that sends its fields by script, as a submit would: a
		// button element of any type, an input of type button, or anything
		// with a button's role, in a form or beside fields outside any (pages
		// that have no form element); not one that only shows, hides, clears
		// or cancels.
		const buttonish = el.tagName === 'BUTTON' || (out.tag === 'input' && out.inputType === 'button') ||
			/^button$/i.test(el.getAttribute('role') || '');
		const scripted = !submits && buttonish &&
			!/\b(show|hide|reveal|toggle|clear|cancel|back|close)\b|\beye\b/i.test([el.getAttribute('aria-label'), el.getAttribute('title'), el.value, el.textContent].join(' '));
		const around = () => {
			const form = el.closest('form');
			if (form) return form;
			for (let a = up(el); a && a !== doc.body && a !== doc.documentElement; a = up(a)) {
				if (deepFields(a).length) return a;
			}
			return null;
		};
		// Enter in a field outside any form sends what the page's script
		// sends: the fields around it up to the first box that also holds a
		// button, as that button would.
		const buttonSel = 'button,input[type=submit],input[type=button],input[type=image],[role=button]';
		const aroundField = () => {
			for (let a = up(el); a && a !== doc.documentElement; a = up(a)) {
				const b = a.querySelector(buttonSel);
				if (b || a === doc.body) return [a, b];
			}
			return [null, null];
		};
		out.submitsAccount = (submits && accountForm(el.form, el)) || (scripted && accountForm(around(), el));
		out.enterSubmitsAccount = out.submitsAccount || (implicit && (el.form ? accountForm(el.form, defaultButton(el.form)) : accountForm(...aroundField())));
		// What the caller needs to follow card fields into frames this page
		// script cannot read: whether the node submits a form, or Enter in it
		// does.
		out.submits = submits;
		out.form = !!el.form;
		// Where the form is sent: a submit control's own formaction, else its
		// form's action (the document's URL when it has none).
		out.formAction = !el.form ? '' : (submits && el.hasAttribute('formaction') ? el.formAction : el.form.action);
		// A click inside a label activates the label's control.
		const label = el.closest('label');
		out.label = !!(label && label.control && label.control !== el && !label.control.contains(el) && !el.contains(label.control));
		out.implicit = implicit && !!el.form;
		const cs = doc.defaultView.getComputedStyle(el);
		out.scrollable = (el.scrollHeight > el.clientHeight + 1 && /(auto|scroll)/.test(cs.overflowY)) ||
			(el.scrollWidth > el.clientWidth + 1 && /(auto|scroll)/.test(cs.overflowX)) ||
			((out.tag === 'textarea') && el.scrollHeight > el.clientHeight + 1);
		let r = el.getBoundingClientRect();
		const win = doc.defaultView;
		// The part of the box a person sees: inside the viewport and inside
		// every ancestor that clips its overflow (a scrolled box, nested ones
		// too), whose hidden part a click would miss.
		const seen = () => {
			let v = {left: Math.max(r.left, 0), top: Math.max(r.top, 0), right: Math.min(r.right, win.innerWidth), bottom: Math.min(r.bottom, win.innerHeight)};
			for (let a = el.parentElement; a && a !== doc.body && a !== doc.documentElement; a = a.parentElement) {
				const s = win.getComputedStyle(a);
				if (s.position === 'fixed') break;
				if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
				const c = a.getBoundingClientRect();
				v = {left: Math.max(v.left, c.left + a.clientLeft), top: Math.max(v.top, c.top + a.clientTop),
					right: Math.min(v.right, c.left + a.clientLeft + a.clientWidth), bottom: Math.min(v.bottom, c.top + a.clientTop + a.clientHeight)};
			}
			return v;
		};
		let v = seen();
		const clipped = () => v.right - v.left < Math.min(r.width, win.innerWidth) - 1 || v.bottom - v.top < Math.min(r.height, win.innerHeight) - 1;
		if (scroll && r.width > 0 && r.height > 0 && clipped()) {
			// scrollIntoView scrolls every scrolling ancestor, as a person
			// scrolls the box the element is in, then the page.
			el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
			r = el.getBoundingClientRect();
			v = seen();
		}
		out.visible = r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && cs.display !== 'none';
		if (!out.visible) return out;
		let dx = 0, dy = 0;
		for (let w = win; w.frameElement; w = w.parent) {
			const fr = w.frameElement.getBoundingClientRect();
			dx += fr.left + w.frameElement.clientLeft;
			dy += fr.top + w.frameElement.clientTop;
		}
		out.box = {x: r.left + dx, y: r.top + dy, width: r.width, height: r.height};
		const left = v.left, right = v.right, top = v.top, bottom = v.bottom;
		if (right <= left || bottom <= top) { out.visible = false; return out; }
		// The click point is a whole pixel of this frame's viewport, the one
		// nearest the centre inside what shows: the check below and the input
		// then read the same point, where a fractional one may be read as
		// either of two neighbours at a sub-pixel edge. An element with no
		// whole pixel showing has no point a click can be sure to reach.
		const whole = (c, lo, hi) => {
			let p = Math.round(c);
			if (p >= hi) p = Math.ceil(hi) - 1;
			if (p < lo) p = Math.ceil(lo);
			return p >= lo && p < hi ? p : null;
		};
		let lx = whole((left + right) / 2, left, right), ly = whole((top + bottom) / 2, top, bottom);
		if (!at && (lx === null || ly === null)) { out.visible = false; return out; }
		if (at) {
			// at is in the viewport of this process's main frame, taken
			// through the iframe as drawn (browser.placeThrough).
			lx = at.x - dx; ly = at.y - dy;
			if (lx < left || lx >= right || ly < top || ly >= bottom) { out.visible = false; return out; }
		}
		out.x = lx + dx; out.y = ly + dy;
		let hit = el.getRootNode().elementFromPoint ? el.getRootNode().elementFromPoint(lx, ly) : doc.elementFromPoint(lx, ly);
		while (hit && hit.shadowRoot && hit !== el) {
			const inner = hit.shadowRoot.elementFromPoint(lx, ly);
			if (!inner || inner === hit) break;
			hit = inner;
		}
		const inside = (n) => {
			for (; n; n = n.parentNode || n.host) if (n === el) return true;
			return false;
		};
		const labelFor = (n) => n && n.tagName === 'LABEL' && n.control === el;
		if (hit && (hit === doc.documentElement || hit === doc.body) && !inside(hit)) {
			// The document itself covers nothing: the point is outside what
			// shows of the element (it was scrolled away, or moved), so the
			// element is out of view rather than covered: scroll it into view
			// and look once more.
			if (scroll && !retried) {
				el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
				return own.call(this, scroll, payment, at, true);
			}
			out.visible = false;
			return out;
		}
		if (hit && !inside(hit) && !labelFor(hit) && !labelFor(hit.closest && hit.closest('label'))) {
			const cover = hit.closest('[role=dialog],[role=alertdialog],dialog,[aria-modal=true]') || hit;
			const role = cover.getAttribute('role') || (cover.tagName === 'DIALOG' ? 'dialog' : cover.tagName.toLowerCase());
			const name = cover.getAttribute('aria-label') || cover.getAttribute('title') ||
				(cover.getAttribute('aria-labelledby') && doc.getElementById(cover.getAttribute('aria-labelledby'))?.textContent) ||
				(cover.textContent || '').trim().slice(0, 60);
			out.covered = name ? role + ' "' + name.trim().replace(/\s+/g, ' ') + '"' : role;
		}
		return out;
	}
}
