package driver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/chaperone-mcp/chaperone/snapshot"
)

// AskPerson asks a person what to do with an agent that is stuck. It waits
// for the answer.
type AskPerson func(ctx context.Context, q StuckQuestion) (StuckAnswer, error)

// StuckQuestion is what a person is shown when the agent is stuck.
type StuckQuestion struct {
	Goal string
	// URL and Title are the page the calls failed on.
	URL, Title string
	// Failures are the calls that failed or made no progress, one line
	// each: the tool, its target, the outcome with its error code.
	Failures []string
}

// StuckPrompt is the question a person is asked, in one line.
const StuckPrompt = "The agent is stuck: stop, continue, or give a hint"

// StuckAnswer is the person's answer: stop the run, or continue, with a
// hint for the model if they gave one.
type StuckAnswer struct {
	Stop bool
	Hint string
}

// failure reports whether an outcome (see describe) is a failed call.
func failure(outcome string) bool {
	return outcome == "error" || outcome == "not acknowledged" || strings.HasPrefix(outcome, "failed")
}

// recordable reports whether a call with this outcome belongs in a script.
func recordable(outcome string) bool {
	return outcome == "success" || outcome == "approved" || outcome == "acknowledged"
}

// describeTarget names what a call aimed at as the person and the model
// read it: the element's role and name from the snapshot the ref came from,
// else the raw target.
func describeTarget(before *snapshot.Snapshot, input json.RawMessage) string {
	var in struct {
		Ref string `json:"ref"`
	}
	_ = json.Unmarshal(input, &in) // a malformed input has no ref
	if e, ok := before.Element(in.Ref); ok && in.Ref != "" {
		return fmt.Sprintf("%s %s %q", in.Ref, e.Role, clip(e.Name, 60))
	}
	return target("", input)
}

// progress remembers, for one run, every page state the model has seen and
// every call it made on each, so that a call that goes nowhere is told from
// one that moves the task on.
type progress struct {
	// states are the digests of the pages seen; calls the calls made, each
	// with the digest of the page it was made on.
	states, calls map[string]bool
}

// stalled reports whether a call made no progress: the model made this very
// call on this very page before, and the page it left is one already seen.
// Repeating get_snapshot, scrolling at the bottom again and again, clicking
// what changes nothing, alternating two such calls, toggling between two
// pages: each counts as stuck as a failure does, and costs as many turns.
// The call's ref counts as the element it names, since each snapshot gives
// the same element a new ref.
func (p *progress) stalled(name string, input json.RawMessage, before, after *snapshot.Snapshot) bool {
	if p.states == nil {
		p.states, p.calls = make(map[string]bool), make(map[string]bool)
	}
	on, left := pageDigest(before), pageDigest(after)
	key := callKey(name, input, before) + "\x00" + on
	repeated, known := p.calls[key], p.states[left]
	p.calls[key], p.states[on], p.states[left] = true, true, true
	return repeated && known
}

// pageDigest identifies what a page shows, whatever its snapshot's id, time
// and refs: its URL and title, where it is scrolled, each element's role,
// name, kind, states and value, the open dialog and the text without its
// inline refs.
func pageDigest(s *snapshot.Snapshot) string {
	if s == nil {
		return ""
	}
	h := sha256.New()
	put := func(parts ...string) {
		for _, p := range parts {
			io.WriteString(h, p)
			h.Write([]byte{0})
		}
	}
	put(s.Page.URL, s.Page.Title, fmt.Sprint(s.Viewport.ScrollX, s.Viewport.ScrollY))
	for _, e := range s.Elements {
		v := "-"
		if e.Value != nil {
			v = "=" + *e.Value
		}
		put(e.Role, e.Name, e.Kind, strings.Join(e.State, " "), v, strconv.Itoa(e.Level), e.Frame)
	}
	if d := s.Dialog; d != nil {
		put("dialog", d.Type, d.Message)
	}
	put(inlineRef.ReplaceAllString(s.Text, ""))
	return hex.EncodeToString(h.Sum(nil))
}

// inlineRef is a ref inside the page text, which changes with every
// snapshot while the page does not.
var inlineRef = regexp.MustCompile(`@e[0-9]+`)

// callKey identifies a call: the tool and its arguments, a ref replaced by
// the element it named on the page it was made on.
func callKey(name string, input json.RawMessage, on *snapshot.Snapshot) string {
	var args map[string]any
	if json.Unmarshal(input, &args) != nil {
		return name + " " + string(input)
	}
	if ref, ok := args["ref"].(string); ok {
		if e, ok := on.Element(ref); ok && on != nil {
			args["ref"] = []string{e.Role, e.Name, e.Kind, e.DOMID, e.CSS, e.Frame}
		}
	}
	b, err := json.Marshal(args) // map keys sorted: one key per call
	if err != nil {
		return name + " " + string(input)
	}
	return name + " " + string(b)
}

// watch counts the calls in a row that failed or made no progress (see
// progress.stalled). The ReflectAfter-th makes the next request carry a
// reflection prompt, returned as note; the 2×ReflectAfter-th asks a person,
// whose hint becomes the note, and whose "stop" ends the run (stop is then
// the result). A call that works and moves on starts the count again; so
// does a failure on another page, but not a call that goes nowhere, whatever
// page it goes nowhere on.
func (r *run) watch(ctx context.Context, failed, stalled bool, before *snapshot.Snapshot, what string) (note string, stop *Result) {
	page := ""
	if before != nil {
		page = before.Page.URL
	}
	counted := failed || stalled
	if !counted || (!stalled && page != r.failPage) {
		r.failures = nil
	}
	r.failPage = page
	if !counted {
		return "", nil
	}
	if stalled && !failed {
		what += " (no progress: the same call on a page already seen)"
	}
	r.failures = append(r.failures, r.redact.String(what))
	switch len(r.failures) {
	case ReflectAfter:
		r.log.Warn("calls keep failing; the model is asked to reflect", "page", page, "failures", len(r.failures))
		return reflection(r.failures), nil
	case 2 * ReflectAfter:
	default:
		return "", nil
	}
	failures := r.failures
	r.failures = nil
	if r.cfg.Ask == nil {
		return "", &Result{Reason: ReasonStuck, Detail: fmt.Sprintf("%d calls in a row on %s failed or made no progress, and nobody to ask", len(failures), page)}
	}
	q := StuckQuestion{Goal: r.redact.String(r.cfg.Goal), URL: r.redact.String(page), Failures: failures}
	if before != nil {
		q.Title = r.redact.String(before.Page.Title)
	}
	r.log.Warn("the agent is stuck; asking a person", "page", page, "failures", len(failures))
	ans, err := r.cfg.Ask(ctx, q)
	switch {
	case err != nil:
		return "", &Result{Reason: ReasonStuck, Detail: "the agent is stuck, and asking a person failed: " + err.Error()}
	case ans.Stop:
		return "", &Result{Reason: ReasonStuck, Detail: firstNonEmpty(ans.Hint, "a person stopped the stuck agent")}
	case strings.TrimSpace(ans.Hint) != "":
		return "A person looked at the page and says: " + strings.TrimSpace(ans.Hint), nil
	}
	return "A person looked at the page and says: continue. Try another approach than the calls that failed.", nil
}

// reflection is the prompt that follows ReflectAfter calls in a row that
// failed or made no progress.
func reflection(failures []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "REFLECT: your last %d calls on this page failed or changed nothing:", len(failures))
	for _, f := range failures {
		b.WriteString("\n- ")
		b.WriteString(f)
	}
	b.WriteString("\nDo not repeat them. Read the newest snapshot and the screenshot again, say in one sentence why they failed, then try another approach: another element, scrolling, closing what covers the target, or another route to the goal. If none is left, call complete_task with status \"failed\" and the reason.")
	return b.String()
}
