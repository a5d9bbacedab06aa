// selectOption matches values to the options of this: a native select, a
// listbox, or a combobox with a popup of options. Each value is an option's
// value or visible text, exactly first, then ignoring case and surrounding
// space; a combobox's popup options match by visible text only, since what
// a person approves before its popup exists is the text they will see. list
// says the values are a list, which only a select or listbox that takes
// several accepts: exactly the options listed end up selected.
//
// mode says what to do:
//   - 'pick': only say which options the values are, in the page's order
//     ({kind, ok, picked}); a miss names the options there are. kind is
//     'native', 'list' (options a person clicks), or 'closed' (a combobox
//     whose popup is not open, so its options are unknown yet);
//   - 'choose': choose them in a native select by script, with input and
//     change events as a person's choice fires; the select is focused
//     first, and the options are matched again once its focus handlers
//     ran: when they are no longer approved ({value, text} of each, in
//     order), nothing is chosen and no event fires ({changed: true,
//     picked: what they match now}), so the page never hears a choice
//     nobody approved; nor is change sent when an input handler changed
//     the choice (the select goes back to what it had);
//   - 'next': the option element a person would click next to reach the
//     choice in a listbox or an open popup, or null when there is none left;
//   - 'wait': a promise of whether the popup's options showed within ms;
//   - 'shows': a promise of whether the combobox shows the text of values[0]
//     within ms, and what it shows;
//   - 'change': a promise of whether the page changed within ms, for a page
//     that answers a click late;
//   - 'selected': the options selected now ({kind, ok, selected}), read
//     back after a choice: what took effect, which the page's own handlers
//     may have made other than what was picked.
//
// 'choose' reports the options selected once its events ran as selected.
function selectOption(values, list, mode, ms, approved) {
	const el = this;
	const commit = mode === 'choose' && el.tagName === 'SELECT';
	// Focus runs the page's handlers, which may rewrite the options: what is
	// matched below is what the choice would commit.
	if (commit) el.focus();
	const check = Array.isArray(approved);
	const doc = el.ownerDocument;
	const squash = (s) => (s || '').replace(/\s+/g, ' ').trim();
	const native = el.tagName === 'SELECT';
	const combo = !native && el.getAttribute('role') === 'combobox';
	const shown = (o) => o.getClientRects().length > 0 && doc.defaultView.getComputedStyle(o).visibility !== 'hidden';
	const text = (o) => native ? (o.label || o.textContent || '').trim() : squash(o.getAttribute('aria-label') || o.textContent);
	const value = (o) => native ? o.value : (o.getAttribute('data-value') ?? o.getAttribute('value') ?? text(o));
	const options = () => {
		if (native) return {opts: Array.from(el.options), multiple: el.multiple};
		const ids = squash((el.getAttribute('aria-controls') || '') + ' ' + (el.getAttribute('aria-owns') || '')).split(' ').filter(Boolean);
		let roots = [el, ...ids.map(id => doc.getElementById(id)).filter(Boolean)];
		if (combo && roots.length === 1 && el.getAttribute('aria-expanded') === 'true') {
			// An open popup the combobox does not name: a listbox showing.
			roots = roots.concat(Array.from(doc.querySelectorAll('[role=listbox]')).filter(shown));
		}
		let opts = [...new Set(roots.flatMap(r => Array.from(r.querySelectorAll('[role=option]'))))];
		if (combo) opts = opts.filter(shown);
		const lists = roots.filter(r => r.getAttribute('role') === 'listbox');
		return {opts, multiple: lists.some(r => r.getAttribute('aria-multiselectable') === 'true')};
	};
	const {opts, multiple} = options();
	const closed = combo && (opts.length === 0 || el.getAttribute('aria-expanded') === 'false');
	// until resolves with test() as soon as it holds, checked on every
	// change of the page, or with its last answer after ms.
	const until = (test) => new Promise(resolve => {
		let last = test();
		if (last.ok) return resolve(last);
		const obs = new MutationObserver(() => { last = test(); if (last.ok) done(); });
		const timer = setTimeout(() => done(), ms);
		const done = () => { obs.disconnect(); clearTimeout(timer); resolve(last); };
		obs.observe(doc, {subtree: true, childList: true, attributes: true, characterData: true});
	});
	if (mode === 'wait') {
		return until(() => ({ok: options().opts.length > 0 && el.getAttribute('aria-expanded') !== 'false'})).then(r => r.ok);
	}
	if (mode === 'shows') {
		const want = squash(values[0]).toLowerCase();
		return until(() => {
			const now = squash(el.value !== undefined && el.tagName !== 'BUTTON' ? el.value : el.textContent);
			return {ok: now.toLowerCase().includes(want), shown: now.slice(0, 200)};
		});
	}
	if (mode === 'change') {
		// The first look comes before any change; every later one after one.
		let looks = 0;
		return until(() => ({ok: looks++ > 0})).then(r => r.ok);
	}
	const selected = (o) => native ? o.selected : o.getAttribute('aria-selected') === 'true';
	const described = (os) => os.map(o => ({value: value(o), text: text(o)}));
	if (mode === 'selected') {
		// Read anew: the page may have replaced the options meanwhile.
		const now = options().opts;
		// A listbox that marks no option at all tells nothing to read.
		if (!native && !now.some(o => o.hasAttribute('aria-selected'))) return {ok: false, kind: 'list'};
		return {ok: true, kind: native ? 'native' : 'list', combo, selected: described(now.filter(selected))};
	}
	if (list && !multiple) return {ok: false, single: true, kind: native ? 'native' : 'list'};
	if (closed) return {ok: true, kind: 'closed', combo};
	const norm = (s) => squash(s).toLowerCase();
	const find = (v) => combo ? (opts.find(o => text(o) === v) || opts.find(o => norm(text(o)) === norm(v))) :
		(opts.find(o => value(o) === v) || opts.find(o => text(o) === v) ||
			opts.find(o => norm(value(o)) === norm(v)) || opts.find(o => norm(text(o)) === norm(v)));
	const picks = new Set();
	for (const v of values) {
		const o = find(v);
		if (!o && commit && check) return {ok: true, kind: 'native', changed: true, picked: [], missing: v};
		if (!o) return {ok: false, missing: v, options: opts.map(o => text(o) + (value(o) !== text(o) ? ' (' + value(o) + ')' : ''))};
		if (o.disabled || o.getAttribute('aria-disabled') === 'true') return {ok: false, disabled: true, options: [text(o)]};
		picks.add(o);
	}
	const ordered = opts.filter(o => picks.has(o));
	if (mode === 'next') {
		if (!multiple) return ordered[0];
		return opts.find(o => selected(o) !== picks.has(o)) || null;
	}
	if (commit) {
		const now = described(ordered);
		if (check && (now.length !== approved.length || now.some((o, i) => o.value !== approved[i].value || o.text !== approved[i].text))) {
			return {ok: true, kind: 'native', changed: true, picked: now};
		}
		const was = Array.from(el.options).filter(selected);
		for (const o of opts) {
			if (multiple) o.selected = picks.has(o);
			else if (picks.has(o)) o.selected = true;
		}
		el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
		if (check) {
			// An input handler that rewrote the choice does not get it
			// committed: the change a form acts on is not sent, and the
			// select goes back to what it had.
			const after = described(Array.from(el.options).filter(selected));
			if (after.length !== approved.length || after.some((o, i) => o.value !== approved[i].value || o.text !== approved[i].text)) {
				for (const o of el.options) o.selected = was.includes(o);
				return {ok: true, kind: 'native', changed: true, picked: after};
			}
		}
		el.dispatchEvent(new Event('change', {bubbles: true}));
		return {ok: true, kind: 'native', picked: described(ordered), selected: described(Array.from(el.options).filter(selected))};
	}
	return {ok: true, kind: native ? 'native' : 'list', combo, picked: described(ordered)};
}
