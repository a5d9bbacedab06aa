// armDelivery listens, in the document of the node (this), for the trusted
// events of an input aimed at it (kind "click", "hover" or "wheel"), and
// returns the
// record readDelivery reads once the input is sent. The browser routes
// input by what it last rendered, so an input can land on something else
// (a cover swapped in on pointerdown, the parent page while a cross-site
// frame is not ready): only an event that reaches the node, or something
// inside it, or a label of it, counts. Listeners go on the window and the
// document in the capture phase, the earliest a script added now can be,
// so a page that stops the event in its own handlers is still seen, and on
// the node itself, which sees events inside closed shadow roots. Only a
// page that stops the event in a window capture listener it added earlier
// hides it. A click's press, release or click that reaches anything else is
// stopped there and its default action prevented, so that a miss does
// nothing in the node's document, until the click or guardFor milliseconds
// have passed. The first event that reaches the node is also reported at once
// through the binding named binding, with token, so that it is known even
// when the document goes away before the record is read. A click of
// another button or a later press of several ends otherwise (mouse.go):
// end is the event that says it reached the node (click, contextmenu,
// auxclick), last the one after which nothing is stopped any more (a
// double click's dblclick, the right button's auxclick).
function armDelivery(kind, token, binding, guardFor, end, last) {
	const el = this.nodeType === 1 ? this : this.parentElement;
	end = end || 'click';
	last = last || end;
	const types = {
		hover: ['pointerover', 'pointermove', 'mouseover', 'mousemove'],
		wheel: ['wheel'],
	}[kind] || [...new Set(['pointerdown', 'mousedown', 'pointerup', 'mouseup', end, last])];
	const doc = el.ownerDocument, win = doc.defaultView;
	const isLabel = (n) => n && n.tagName === 'LABEL' && n.control === el;
	if (kind !== 'hover' && kind !== 'wheel') kind = 'click';
	const rec = {kind, end, el, seen: {}, hit: {}, missed: null};
	const hosts = [];
	for (let r = el.getRootNode(); r && r.host; r = r.host.getRootNode()) hosts.push(r.host);
	const report = win[binding];
	let reported = false;
	const note = (e) => {
		if (!e.isTrusted) return;
		const path = e.composedPath();
		rec.seen[e.type] = true;
		if (path.includes(el) || path.some(isLabel)) {
			rec.hit[e.type] = true;
			if (!reported && typeof report === 'function') { reported = true; try { report(token); } catch (x) {} }
		}
		else {
			if (!rec.missed) rec.missed = path[0] || null;
			// A press or click that reached something nobody judged (the
			// page moved it under the pointer, or routed the input
			// elsewhere) goes no further in this document: no handler of
			// the page after this one, and no default action (a submit, a
			// link, a checkbox), hears it.
			// A path that holds a shadow host of the node may reach it
			// inside a closed shadow root, where only the node's own
			// listener sees it: that one is left to go on.
			if (guard && !path.some(n => hosts.includes(n))) { e.preventDefault(); e.stopImmediatePropagation(); }
		}
		// The click ends the input: a record nobody read (its document
		// was held by a dialog the click opened) must not stop the
		// page's later clicks.
		if (e.type === last) guard = false;
	};
	let guard = kind === 'click';
	setTimeout(() => { guard = false; }, guardFor);
	// A click's record may cancel what missed; the others never cancel, and
	// must not hold up scrolling.
	const opts = {capture: true, passive: kind !== 'click'};
	const targets = [win, doc, el];
	for (const t of types) for (const at of targets) at.addEventListener(t, note, opts);
	rec.stop = () => { for (const t of types) for (const at of targets) at.removeEventListener(t, note, opts); };
	return rec;
}
