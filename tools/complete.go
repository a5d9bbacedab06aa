package tools

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/chaperone-mcp/chaperone/audit"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// completeInput is the arguments of complete_task.
type completeInput struct {
	Status string `json:"status" schema:"enum=success|failed"`
	Reason string `json:"reason"`
}

// complete runs complete_task: it checks success on the page itself and
// writes the outcome to the audit log.
func (s *Session) complete(ctx context.Context, c *call, in completeInput) Output {
	if in.Status != "success" && in.Status != "failed" {
		return Output{Value: toolapi.CompletionResult{Message: fmt.Sprintf("invalid_params: status must be success or failed, not %q.", in.Status)}}
	}
	// The agent still gets the page as it sees it; the verdict is judged on
	// all of the page as it is now, never on the agent's word or view.
	snap, _ := s.snapshot(ctx, c, true)
	page, err := s.judgedPage(ctx)
	ev := checkpoint.Evidence{Typed: s.typed.texts(), Painted: s.painted(ctx)}
	var r toolapi.CompletionResult
	switch {
	case in.Status == "failed":
		r = toolapi.CompletionResult{Acknowledged: true, Message: "Failure acknowledged and logged."}
		if f := s.gate.Failures(page, ev); len(f) > 0 {
			r.Message += " Failure indicators on the page: " + strings.Join(f, "; ") + "."
		}
	case err != nil:
		r.Message = fmt.Sprintf("Not acknowledged: the page could not be checked (%v). Try complete_task again.", err)
	default:
		r.Acknowledged, r.Message = s.gate.Verify(page, ev)
	}
	if r.Acknowledged && s.gate.EndTask() {
		r.Message += " The plan approved for this task has ended: writing outside the write set asks again; put a new plan to the person for the next task."
	}
	s.log.Info("complete_task", "status", in.Status, "reason", s.secrets.redact(in.Reason), "acknowledged", r.Acknowledged,
		"snapshot", snap.ID, "url", snap.Page.URL)
	if err := s.audit.Completion(audit.Completion{
		Status: in.Status, Reason: s.secrets.redact(in.Reason), Acknowledged: r.Acknowledged, Message: s.secrets.redact(r.Message),
		SnapshotID: snap.ID, URL: snap.Page.URL, Indicators: s.gate.Evaluate(page, ev),
	}); err != nil {
		s.log.Warn("audit: completion not logged", "err", err)
	}
	return Output{Value: r, Image: snap.Screenshot}
}

// completeArgsInvalid answers complete_task arguments that do not decode:
// not acknowledged, and why.
func (s *Session) completeArgsInvalid(_ context.Context, c *call, err error) Output {
	return Output{Value: toolapi.CompletionResult{Message: fmt.Sprintf("invalid_params: %v", err)}}
}

// judgedPage captures the whole page as it is now for a verdict: with what
// tells what a person sees of it (browser.CaptureOptions.Judged), which
// the agent's snapshots do without, as it costs more.
func (s *Session) judgedPage(ctx context.Context) (*snapshot.Snapshot, error) {
	opts := s.config.Capture
	opts.Screenshot, opts.Judged = false, true
	return s.capturePage(ctx, opts)
}

// maxPaintedLooks bounds the pixel looks of one verdict: a page that
// repeats the success text in many places no person sees would otherwise
// make the verdict take three screenshots for each.
const maxPaintedLooks = 8

// painted returns the verdict's look at the pixels of the text a success
// indicator matched (checkpoint.Evidence.Painted): the browser hides the
// text and compares (browser.Context.TextPainted). Each text is looked at
// once per verdict, though the audit log's indicators ask again, and at
// most maxPaintedLooks texts are; a look that fails, or is one too many,
// counts as not seen.
func (s *Session) painted(ctx context.Context) func(nodes []int64, needle string, skip []string) bool {
	seen := make(map[string]bool)
	return func(nodes []int64, needle string, skip []string) bool {
		key := fmt.Sprint(nodes, needle)
		if ok, done := seen[key]; done {
			return ok
		}
		if len(seen) >= maxPaintedLooks {
			return false
		}
		c, cancel := context.WithTimeout(ctx, s.config.SnapshotTimeout)
		defer cancel()
		ok, err := s.tab.TextPainted(c, nodes, needle, skip)
		if err != nil {
			s.log.Warn("complete_task: looking at the text's pixels", "err", err)
		}
		seen[key] = ok
		return ok
	}
}

// typedLog keeps what the agent typed this session, the URLs it navigated
// to included: a page that shows it back (a live preview, a search box's
// results) or a URL it wrote proves nothing, so a verdict does not count
// it (checkpoint.Evidence).
type typedLog struct {
	done []string
	// keys is the run of characters typed by browser_press_key since the
	// last key that types none.
	keys  []rune
	bytes int
}

// maxTyped bounds what typedLog keeps; past it, the oldest goes first.
const maxTyped = 64 << 10

// fill records a value typed by browser_fill (nil records nothing).
func (l *typedLog) fill(v *string) {
	if v != nil {
		l.add(*v)
	}
}

// key records a key pressed by browser_press_key: a printable character
// (with Shift or none) continues the run of typed text, Space adds a space,
// and any other key ends the run.
func (l *typedLog) key(k string) {
	ch := strings.TrimPrefix(k, "Shift+")
	if ch == "Space" {
		ch = " "
	}
	if r, size := utf8.DecodeRuneInString(ch); size == len(ch) && size > 0 && r != utf8.RuneError {
		if len(l.keys) < maxTyped {
			l.keys = append(l.keys, r)
		}
		return
	}
	if len(l.keys) > 0 {
		l.add(string(l.keys))
		l.keys = nil
	}
}

func (l *typedLog) add(v string) {
	if strings.TrimSpace(v) == "" {
		return
	}
	if len(v) > maxTyped {
		v = v[:maxTyped]
	}
	l.done = append(l.done, v)
	l.bytes += len(v)
	for l.bytes > maxTyped && len(l.done) > 1 {
		l.bytes -= len(l.done[0])
		l.done = l.done[1:]
	}
}

// texts returns everything typed, the run of keys under way included.
func (l *typedLog) texts() []string {
	out := append([]string(nil), l.done...)
	if len(l.keys) > 0 {
		out = append(out, string(l.keys))
	}
	return out
}
