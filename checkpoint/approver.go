package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chaperone-mcp/chaperone/snapshot"
)

// ErrNoApprover is returned by an Approver that cannot reach a human at all
// (a client without elicitation, no terminal). First moves on to the next
// approver; the gate turns it into a rejection that says why.
var ErrNoApprover = errors.New("no approval channel available")

// Kind says who asks for an approval: the gate at a checkpoint, or the
// agent itself. A person is told which, since the agent's words are not the
// system's.
type Kind string

// Kinds of Request.
const (
	// KindCheckpoint is a request the gate makes because the page matched a
	// checkpoint and the agent tried a state-changing action.
	KindCheckpoint Kind = "checkpoint"
	// KindAgent is a request the agent made with request_human_approval; its
	// Words and Reason are the agent's words.
	KindAgent Kind = "agent_request"
	// KindPlan is the agent's plan for a task (request_human_approval with
	// a plan): Plan holds its steps, in its words, and its sites.
	KindPlan Kind = "plan"
)

// Channel names who made a Decision: one of the ways to reach a person, or
// the system itself when no person was asked. The audit log and the agent's
// messages say it as it is spelled here.
type Channel string

// Channels a Decision can come from that involve no human.
const (
	// ChannelNone marks a decision no human made: no checkpoint applied, or
	// no approver could be reached.
	ChannelNone Channel = "none"
	// ChannelDryRun marks an action refused because the server runs with
	// --dry-run.
	ChannelDryRun Channel = "dry-run"
)

// Channels through which a human decides.
const (
	// ChannelElicitation is the MCP client itself, asked with an
	// elicitation.
	ChannelElicitation Channel = "elicitation"
	// ChannelWeb is the local web approval console.
	ChannelWeb Channel = "web"
	// ChannelTTY is the controlling terminal.
	ChannelTTY Channel = "tty"
	// ChannelWebhook is an agent host that was POSTed the request and
	// answered through the callback.
	ChannelWebhook Channel = "webhook"
)

// Request asks a human to approve one action.
type Request struct {
	// ID is unique per request (a UUID).
	ID string `json:"id"`
	// Session names the agent session asking.
	Session string `json:"session,omitempty"`
	// Kind is KindCheckpoint or KindAgent.
	Kind Kind `json:"kind"`
	// Action says the action in one line: Concrete.String(), e.g.
	// `click button "Finish Cancellation"`, or, when the agent gave only
	// words, those words. It is not escaped: Prompt and Lines are.
	Action string `json:"action"`
	// Concrete is the action a person approves, or nil when the agent asked
	// in words only: then an approval covers nothing.
	Concrete *Action `json:"concrete,omitempty"`
	// Words are the agent's own words about what it wants to do (KindAgent).
	Words string `json:"words,omitempty"`
	// Reason says why a human is asked: the checkpoint that matched, or the
	// agent's stated reason.
	Reason string `json:"reason,omitempty"`
	// URL and Title are the page's.
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
	// SnapshotID is the snapshot the action was planned on.
	SnapshotID string `json:"snapshot_id,omitempty"`
	// Screenshot is the page when the request was made, with the target's
	// box drawn on it when the action has one; may be nil.
	Screenshot *snapshot.Screenshot `json:"-"`
	// Site is the site outside the session's write set that the action
	// writes on, when that is why a person is asked: the person may then
	// allow writing there for the rest of the task (Decision.WidenSite).
	Site string `json:"site,omitempty"`
	// Plan is the agent's plan (KindPlan), its sites as Site writes them.
	// A person may narrow it (Decision.Plan).
	Plan *Plan `json:"plan,omitempty"`
	// Time is when the request was made.
	Time time.Time `json:"time"`
}

// Prompt is the question put to the human: "The system wants to proceed
// with: {action}. Approve?" for a checkpoint, and the agent's request, marked
// as the agent's, for request_human_approval. It is escaped with OneLine.
func (r Request) Prompt() string {
	if r.Kind == KindPlan && r.Plan != nil {
		// The plan's figures come before the agent's words, which are
		// quoted: a task written to look like figures forges none.
		return OneLine(fmt.Sprintf("The agent asks you to approve its plan (%s, writing without asking on %d of its %s) for the task it names, in its own words: %q. Approve?",
			count(len(r.Plan.Steps), "step"), len(r.Plan.WriteSites()), count(len(r.Plan.Sites), "site"), r.Action))
	}
	if r.Kind == KindAgent {
		return fmt.Sprintf("The agent asks for approval to: %s. Approve?", OneLine(r.Action))
	}
	if r.Site != "" {
		return fmt.Sprintf("The system wants to proceed with: %s, which writes to %s, a site outside this task's write set. Approve?", OneLine(r.Action), OneLine(r.Site))
	}
	return fmt.Sprintf("The system wants to proceed with: %s. Approve?", OneLine(r.Action))
}

// count is n things, e.g. "1 step", "3 steps".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// Lines says what the person is approving, one fact a line, each escaped
// with OneLine: the verb; the element's role and name; the value to be typed
// (masked for a password or a secret); the options a select will choose; the
// dialog answered; the page's title and URL; why a person is asked; and for
// an agent's request its own words, marked as such. Every way to reach a
// person shows these lines.
func (r Request) Lines() []string {
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, OneLine(fmt.Sprintf(format, args...))) }
	if a := r.Concrete; a != nil {
		if a.Verb == VerbClick && a.Gesture != "" {
			// The person approves the very gesture: "double click".
			add("Action: %s", a.Gesture)
		} else {
			add("Action: %s", a.Verb)
		}
		if a.Role != "" {
			add("Element: %s %q", a.Role, a.Name)
		}
		if a.Name == "" && a.FieldName != "" {
			// A nameless field still says which one it is in the page's
			// own markup, which a person can check against the screenshot.
			add("Field: %q (its name or id in the page)", a.FieldName)
		}
		switch {
		case a.Masked:
			add("Value: %s (masked: a password or secret is never shown)", a.Value)
		case a.Verb == VerbFill:
			add("Value: %q", a.Value)
		case a.Verb == VerbPress && a.Value != "":
			add("Key: %s", a.Value)
		case a.Verb == VerbNavigate:
			add("Destination: %s", a.Value)
		case a.Verb == VerbDrag:
			add("Drop on: %s", a.Value)
		case a.Verb == VerbUpload:
			add("Files: %s", a.Value)
		case a.Verb == VerbScript:
			// Quoted whole: every character the browser will run is
			// shown, none can start a line or hide (a bidi override, a
			// zero-width space is an escape), in ASCII: a letter of
			// another script drawn as a Latin one ("аpple.com" with a
			// Cyrillic а, a full-width ｆetch) is an escape too.
			add("Script (the agent's JavaScript, run in the page as is): %+q", a.Value)
		}
		switch {
		case len(a.Options) == 1:
			add("Option: %s", a.Options[0])
		case a.Verb == VerbSelect:
			add("Options: %s", OptionList(a.Options))
		}
		if a.Dialog != nil {
			add("Dialog: %s %q", a.Dialog.Type, a.Dialog.Message)
		}
	}
	if r.Plan != nil {
		for _, l := range r.Plan.lines() {
			add("%s", l)
		}
	}
	if r.Title != "" {
		add("Page: %q", r.Title)
	}
	if r.URL != "" {
		add("URL: %s", r.URL)
	}
	if r.Reason != "" {
		if r.Kind == KindAgent || r.Kind == KindPlan {
			add("Reason (the agent's words): %s", r.Reason)
		} else {
			add("Reason: %s", r.Reason)
		}
	}
	if r.Kind == KindAgent {
		words := r.Words
		if words == "" && r.Concrete == nil {
			words = r.Action
		}
		if words != "" {
			add("The agent's own words: %q", words)
		}
		if r.Concrete == nil {
			add("This approves nothing by itself: the agent named no concrete action, so it will be asked again before any action that needs approval.")
		}
	}
	return lines
}

// Decision is a human's answer, or the system's refusal.
type Decision struct {
	// Approved is true only when a human approved.
	Approved bool `json:"approved"`
	// Feedback is the human's message, or for system refusals (Channel none
	// or dry-run) the reason.
	Feedback string `json:"feedback,omitempty"`
	// Channel names who decided: a human channel (ChannelElicitation,
	// ChannelWeb, ChannelTTY, ChannelWebhook), or ChannelNone / ChannelDryRun.
	Channel Channel `json:"channel"`
	// RequestID is the ID of the Request this decision answers, which the
	// gate also recorded; empty when the gate decided without making one
	// (the action was not gated). A performed gated action carries it into
	// the audit log as the approval that covered it.
	RequestID string `json:"request_id,omitempty"`
	// WidenSite, set only by an approver for a person who chose "Allow on
	// <site> for this task", is the request's Site: the approval then also
	// adds that site to the session's write set, a decision of its own in
	// the audit log. Anything else in it widens nothing.
	WidenSite string `json:"widen_site,omitempty"`
	// Plan, for an approved plan (KindPlan), is the plan as the person
	// left it: sites removed or turned to read-only. Nil means as
	// proposed. It can only narrow the request's plan (Plan.Narrowed).
	Plan *Plan `json:"plan,omitempty"`
	// Note is what the gate adds for the agent, e.g. that an approval of
	// words alone pre-approves nothing. It is not the human's.
	Note string `json:"note,omitempty"`
}

// Message is the text the agent reads about a decision: for a human's
// rejection "User feedback: …", for a system refusal its reason, followed by
// the gate's note if any.
func (d Decision) Message() string {
	m := d.message()
	if d.Note != "" {
		m += " " + d.Note
	}
	return m
}

func (d Decision) message() string {
	switch {
	case d.Channel == ChannelNone || d.Channel == ChannelDryRun:
		return d.Feedback
	case d.Approved && d.Feedback == "":
		return "Approved by a human via " + string(d.Channel) + "."
	case d.Approved:
		return "Approved by a human via " + string(d.Channel) + ". User feedback: " + d.Feedback
	case d.Feedback == "":
		return "User feedback: (none; the human rejected the action without a message)"
	}
	return "User feedback: " + d.Feedback
}

// Approver asks a human to approve a request and waits for the answer, with
// no timeout: only ctx ends the wait, and a cancelled ctx withdraws the
// request. An approver that cannot reach a human returns an error wrapping
// ErrNoApprover.
type Approver interface {
	Approve(ctx context.Context, r Request) (Decision, error)
}

// Registrar is an Approver whose requests wait where a person comes to
// look (a web console). Register puts r there and returns the wait for its
// decision, which the caller must call: between the two the caller can
// point someone to the request, knowing it is there to be found. Approve
// is Register followed by the wait.
type Registrar interface {
	Approver
	Register(r Request) (wait func(ctx context.Context) (Decision, error))
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, r Request) (Decision, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, r Request) (Decision, error) { return f(ctx, r) }

// First asks the first approver that is available: each one in turn until
// one answers without ErrNoApprover. The "auto" choice is
// First{elicitation, web}.
type First []Approver

// Approve asks the first available approver.
func (f First) Approve(ctx context.Context, r Request) (Decision, error) {
	var why []string
	for _, a := range f {
		if a == nil {
			continue
		}
		d, err := a.Approve(ctx, r)
		if errors.Is(err, ErrNoApprover) {
			why = append(why, err.Error())
			continue
		}
		return d, err
	}
	if len(why) == 0 {
		return Decision{}, ErrNoApprover
	}
	return Decision{}, fmt.Errorf("%w: %s", ErrNoApprover, strings.Join(why, "; "))
}
