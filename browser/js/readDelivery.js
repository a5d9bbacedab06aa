// readDelivery says whether the input armDelivery or armKeyDelivery
// watched for (this is the record) reached its element. Events routed to
// another process arrive a little after the input is acknowledged, so it
// waits, while the answer is still open, up to frames animation frames or
// cap milliseconds. It returns {delivered, seen, received, holds}: seen
// says whether any of the input's events reached this document at all,
// and received describes what one reached instead.
function readDelivery(frames, cap) {
	const rec = this;
	const el = rec.el;
	// A click counts when it reached the element; a press that reached it
	// and no click at all (a native select's popup takes the release), or
	// that made it leave the page (it handled the press), counts too.
	const down = () => rec.hit.pointerdown || rec.hit.mousedown;
	const verdict = (final) => {
		switch (rec.kind) {
		case 'click':
			if (rec.hit[rec.end]) return true;
			if (down() && !el.isConnected) return true;
			if (rec.seen[rec.end]) return false;
			return final ? !!down() : null;
		case 'wheel':
			if (rec.hit.wheel) return true;
			if (rec.seen.wheel) return false;
			return final ? false : null;
		case 'hover':
			if (Object.keys(rec.hit).length > 0) return true;
			try { if (el.isConnected && el.matches(':hover')) return true; } catch (e) {}
			return final ? false : null;
		default:
			if (rec.hit.keydown) return true;
			return final ? false : null;
		}
	};
	const describe = (n) => {
		if (!n || n.nodeType !== 1) return n && n.nodeType === 9 ? 'the document' : '';
		const tag = n.tagName.toLowerCase();
		const role = n.getAttribute('role');
		// Page text, so bounded: it goes into the agent's message.
		const name = (n.getAttribute('aria-label') || n.getAttribute('title') || n.getAttribute('alt') ||
			n.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 60);
		const id = n.id ? '#' + n.id.slice(0, 40) : '';
		return tag + id + (role ? ' (' + role.slice(0, 20) + ')' : '') + (name ? ' "' + name + '"' : '');
	};
	const answer = (delivered) => {
		rec.stop();
		return {delivered, seen: Object.keys(rec.seen).length > 0, received: describe(rec.missed), holds: rec.holds !== false};
	};
	return new Promise(resolve => {
		let left = frames, done = false;
		const end = (final) => {
			if (done) return true;
			const v = verdict(final);
			if (v === null) return false;
			done = true;
			resolve(answer(v));
			return true;
		};
		if (end(false)) return;
		const tick = () => { if (!end(--left <= 0)) requestAnimationFrame(tick); };
		requestAnimationFrame(tick);
		setTimeout(() => end(true), cap);
	});
}
