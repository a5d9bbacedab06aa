package tools

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// deltas is what Config.SnapshotDelta needs to answer an action with what
// changed (docs/architecture.md, "Snapshots and refs"): the document each
// snapshot was of, its line of refs, and the last snapshot the agent was
// sent, which a delta is always against, whatever was built in between.
type deltas struct {
	// liveDoc is the document of the live ref table's snapshot and lastID
	// that snapshot's id.
	liveDoc, lastID string
	// line counts the lines of refs: a snapshot that keeps the refs of the
	// live table continues its line, any other (another document, the
	// table dropped when a person handed the browser back or the page
	// crashed) starts a new one. lastLine is the newest snapshot's.
	line, lastLine int
	// sent is the last snapshot the agent was sent, whole, and sentLine
	// its line (0: none, no delta follows it).
	sent     *snapshot.Snapshot
	sentLine int
	// seen is the ref table of the snapshot the agent was last sent. A
	// snapshot built and not sent (complete_task's) becomes the live table
	// and keeps the refs of the nodes it finds, whatever they show now: a
	// ref is acted on only as the agent last saw it (Session.target).
	seen snapshot.Table
}

// unseen reports why t, the live target of a ref, is not the element the
// agent was sent under that ref, or "" when it is (or the agent was sent no
// table that names the ref, as after browser_extract's own).
func (d *deltas) unseen(t snapshot.Target) string {
	was, ok := d.seen[t.Ref]
	if !ok || (was.BackendNodeID == t.BackendNodeID && was.FrameID == t.FrameID && was.Dialog == t.Dialog &&
		was.Role == t.Role && was.Name == t.Name && was.AXRole == t.AXRole && was.AXName == t.AXName) {
		return ""
	}
	return fmt.Sprintf("%s changed since the snapshot you were sent: it was %s %q and is now %s %q", t.Ref, was.Role, was.Name, t.Role, t.Name)
}

// document names the current page's document: its tab and the loader id
// of its main frame, so that a reload or another page of the same URL is
// another document. "" when it cannot be told.
func (s *Session) document(ctx context.Context) string {
	w, err := s.tab.PageWhere(ctx)
	if err != nil || w.Target == "" {
		return ""
	}
	return w.Target + " " + w.Document
}

// keep is the ref table whose refs a new snapshot of doc keeps for the
// same nodes: the live one, when deltas are on and it is of that document.
func (s *Session) keep(doc string) snapshot.Table {
	if !s.config.SnapshotDelta || doc == "" || doc != s.delta.liveDoc {
		return nil
	}
	return s.live
}

// built notes a snapshot whose table became the live one: its document,
// and its line of refs, continued when it kept the refs of the table before.
func (s *Session) built(snap *snapshot.Snapshot, doc string, kept bool) {
	if !kept {
		s.delta.line++
	}
	s.delta.liveDoc, s.delta.lastID, s.delta.lastLine = doc, snap.ID, s.delta.line
}

// deltaFor replaces the whole snapshot of an action's result by its delta
// against the last snapshot the agent was sent, when deltas are on, the
// page is the same document, and the delta is worth it (snapshot.Delta.Worth);
// and notes what the agent has now been sent. get_snapshot always answers
// whole, as does every result of another document, a dialog that opened
// or closed, and a snapshot built outside Session.snapshot (a person has
// the browser).
func (s *Session) deltaFor(name string, out Output) Output {
	snap := resultSnapshot(out)
	if snap == nil {
		return out // nothing of the page sent: the agent's view is as it was
	}
	line := 0
	if snap.ID == s.delta.lastID {
		line = s.delta.lastLine
	}
	base, baseLine := s.delta.sent, s.delta.sentLine
	s.delta.sent, s.delta.sentLine = snap, line
	if snap.ID == s.delta.lastID {
		s.delta.seen = s.live
	} else {
		s.delta.seen = nil
	}
	r, ok := out.Value.(toolapi.ActionResult)
	if !ok || !s.config.SnapshotDelta || name == toolapi.GetSnapshot || base == nil || line == 0 || line != baseLine {
		return out
	}
	// The base as the secrets known now hide it: a value the agent typed
	// in the open and that became a secret since must not come back as a
	// line the delta removes.
	old := *base
	old.Elements = slices.Clone(base.Elements)
	old.Notes = slices.Clone(base.Notes)
	old.Positions = slices.Clone(base.Positions)
	s.secrets.redactSnapshot(&old)
	d, ok := snapshot.Diff(&old, snap)
	if !ok {
		return out
	}
	worth := d.Worth(snap)
	if s.log.Enabled(context.Background(), slog.LevelDebug) {
		s.log.Debug("snapshot delta", "tool", name, "delta_bytes", len(d.Render(snap)), "whole_bytes", len(snap.Render()), "sent", worth)
	}
	if !worth {
		return out
	}
	s.secrets.redactDelta(d)
	r.Delta = d
	out.Value = r
	return out
}
