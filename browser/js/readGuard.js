// readGuard says what the guard (this) that guardFiles armed found, and
// with end, disarms it.
function readGuard(end) {
	if (end && this.end) this.end();
	return {ok: this.ok, blocked: !!this.blocked, now: this.now || ''};
}
