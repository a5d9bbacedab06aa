package driver

import (
	"context"
	"encoding/json"
	"fmt"
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
	// Failures are the failed calls, one line each: the tool, its target,
	// the outcome with its error code.
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

// watch counts the failed calls in a row on one page. The ReflectAfter-th
// makes the next request carry a reflection prompt, returned as note; the
// 2×ReflectAfter-th asks a person, whose hint becomes the note, and whose
// "stop" ends the run (stop is then the result). A call that works, or one
// on another page, starts the count again.
func (r *run) watch(ctx context.Context, failed bool, before *snapshot.Snapshot, what string) (note string, stop *Result) {
	page := ""
	if before != nil {
		page = before.Page.URL
	}
	if !failed || page != r.failPage {
		r.failures, r.failPage = nil, page
	}
	if !failed {
		return "", nil
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
		return "", &Result{Reason: ReasonStuck, Detail: fmt.Sprintf("%d failed calls in a row on %s, and nobody to ask", len(failures), page)}
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

// reflection is the prompt that follows ReflectAfter failures in a row.
func reflection(failures []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "REFLECT: your last %d calls on this page failed:", len(failures))
	for _, f := range failures {
		b.WriteString("\n- ")
		b.WriteString(f)
	}
	b.WriteString("\nDo not repeat them. Read the newest snapshot and the screenshot again, say in one sentence why they failed, then try another approach: another element, scrolling, closing what covers the target, or another route to the goal. If none is left, call complete_task with status \"failed\" and the reason.")
	return b.String()
}
