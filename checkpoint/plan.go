package checkpoint

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/chaperone-mcp/chaperone/snapshot"
)

// Bounds of a plan the agent proposes. A plan past them is refused, not
// cut: a person must never approve a plan of which they were shown part.
const (
	MaxPlanSteps    = 20
	MaxPlanStepLen  = 300 // bytes
	MaxPlanSites    = 16
	maxPlanSiteText = 300 // bytes of one site as the agent wrote it
)

// Plan is what the agent says it will do for a task, put to a person once
// (request_human_approval with a plan): its steps in its own words, and the
// sites it will use, each to read or to write. The sites a person approves
// for writing join the session's write set for the task (Gate.ApprovePlan);
// every gated action still asks.
type Plan struct {
	// Steps are the agent's words, one step each.
	Steps []string `json:"steps"`
	// Sites are the sites the plan uses, as Site writes them (scheme and
	// registrable domain, the host as the browser connects to it:
	// punycode), each once, in the order the agent gave them.
	Sites []PlanSite `json:"sites"`
}

// PlanSite is one site of a Plan.
type PlanSite struct {
	// Site is scheme://registrable-domain, e.g. "https://example.com".
	Site string `json:"site"`
	// Write is true when the plan writes there (types, submits forms)
	// without asking; false when it only reads.
	Write bool `json:"write"`
}

// NewPlan checks an agent's plan and returns it with each site written as
// Site writes it: steps, and the sites it writes on and reads. A site may
// be a URL, an origin or a bare host ("shop.example.com" is read as
// https://shop.example.com); a site both read and written is written. Too
// many steps or sites, an empty or overlong step, or an entry that names
// no site, is an error that says which.
func NewPlan(steps, write, read []string) (Plan, error) {
	var p Plan
	if len(steps) == 0 {
		return Plan{}, fmt.Errorf("a plan needs its steps")
	}
	if len(steps) > MaxPlanSteps {
		return Plan{}, fmt.Errorf("a plan has at most %d steps, not %d", MaxPlanSteps, len(steps))
	}
	for i, s := range steps {
		s = words(s)
		switch {
		case s == "":
			return Plan{}, fmt.Errorf("step %d is empty", i+1)
		case len(s) > MaxPlanStepLen:
			return Plan{}, fmt.Errorf("step %d is %d bytes, more than %d", i+1, len(s), MaxPlanStepLen)
		case !utf8.ValidString(s):
			return Plan{}, fmt.Errorf("step %d is not UTF-8", i+1)
		}
		p.Steps = append(p.Steps, s)
	}
	if n := len(write) + len(read); n > MaxPlanSites {
		return Plan{}, fmt.Errorf("a plan names at most %d sites, not %d", MaxPlanSites, n)
	}
	add := func(entries []string, writes bool) error {
		for _, e := range entries {
			site, err := planSite(e)
			if err != nil {
				return err
			}
			if i := slices.IndexFunc(p.Sites, func(s PlanSite) bool { return s.Site == site }); i >= 0 {
				p.Sites[i].Write = p.Sites[i].Write || writes
				continue
			}
			p.Sites = append(p.Sites, PlanSite{Site: site, Write: writes})
		}
		return nil
	}
	if err := add(write, true); err != nil {
		return Plan{}, err
	}
	if err := add(read, false); err != nil {
		return Plan{}, err
	}
	return p, nil
}

// planSite is the site of one entry of a plan's site list.
func planSite(entry string) (string, error) {
	e := strings.TrimSpace(entry)
	if e == "" || len(e) > maxPlanSiteText {
		return "", fmt.Errorf("site %q: empty or longer than %d bytes", clipText(e, 60), maxPlanSiteText)
	}
	if !strings.Contains(e, "://") {
		e = "https://" + e
	}
	s, err := Site(e)
	if err != nil {
		return "", fmt.Errorf("site %s: not a web site (a URL, an origin or a host)", OneLine(clipText(entry, 60)))
	}
	if scheme, _, _ := strings.Cut(s, "://"); scheme != "http" && scheme != "https" {
		return "", fmt.Errorf("site %s: only http and https sites can be in a plan", OneLine(clipText(entry, 60)))
	}
	return s, nil
}

// words is the agent's text s with each run of spaces one space: a plan
// is words, and a run of spaces is layout, which wraps on a terminal or a
// narrow page to start a line of the agent's text where the person reads
// the server's ("Site: …: read only", "Approve? [y/N]"). Line breaks and
// tabs stay, for the person to read escaped (OneLine), as what they are.
func words(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.TrimSpace(s) {
		if unicode.IsSpace(r) && !strings.ContainsRune("\n\r\t\v\f", r) {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// clipText is s cut to at most n bytes on a rune boundary, "…" marking a cut.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// WriteSites is the sites the plan writes on.
func (p Plan) WriteSites() []string {
	var out []string
	for _, s := range p.Sites {
		if s.Write {
			out = append(out, s.Site)
		}
	}
	return out
}

// Narrowed is p as a person left it in edited: a site they removed is
// gone, one they turned to read-only writes nothing. A person narrows a
// plan; nothing in edited widens it: a site the agent did not propose, or
// write on a site the agent proposed only to read, is ignored (the person
// allows such a site when the agent first writes there, as for any site
// outside the write set). A nil edited leaves p as it is.
func (p Plan) Narrowed(edited *Plan) Plan {
	if edited == nil {
		return p
	}
	out := Plan{Steps: p.Steps}
	for _, s := range p.Sites {
		i := slices.IndexFunc(edited.Sites, func(e PlanSite) bool { return e.Site == s.Site })
		if i < 0 {
			continue
		}
		out.Sites = append(out.Sites, PlanSite{Site: s.Site, Write: s.Write && edited.Sites[i].Write})
	}
	return out
}

// planLines are a plan's lines as a person reads them (Request.Lines),
// each escaped by the caller.
func (p Plan) lines() []string {
	var out []string
	for i, s := range p.Steps {
		out = append(out, fmt.Sprintf("Step %d (the agent's words): %q", i+1, s))
	}
	for _, s := range p.Sites {
		if s.Write {
			out = append(out, fmt.Sprintf("Site: %s: WRITE (typing and sending forms there without asking)", s.Site))
		} else {
			out = append(out, fmt.Sprintf("Site: %s: read only", s.Site))
		}
	}
	if len(p.WriteSites()) == 0 {
		out = append(out, "The plan writes on no site: approving it allows nothing new.")
	}
	out = append(out, "Approving lets the agent write on the WRITE sites for this task without asking again; every gated action (buying, paying, sending, deleting…) still asks you, and so does writing on any other site.")
	return out
}

// PlanRecorder is a Recorder that also keeps the write sites of an approved
// plan as a record of their own.
type PlanRecorder interface {
	Recorder
	PlanApproved(r Request, d Decision, approved Plan) error
}

// ApprovePlan puts the agent's plan p for task (its words, with its
// reason) to a person, on page. Approved, the plan's write sites, as the
// person left them (Decision.Plan, which can only narrow p), become the
// session's plan sites (Widen), replacing those of any plan approved
// before; the returned plan is that one. Rejected, or not decided by a
// person, nothing changes, and an earlier approved plan stands. Each plan
// is asked anew: none is approved for the agent. Like RequestApproval it
// uses up a pending pre-approval, and its error is non-nil only when ctx
// ended before a person decided.
func (g *Gate) ApprovePlan(ctx context.Context, page *snapshot.Snapshot, p Plan, task, reason string) (Decision, Plan, error) {
	g.takePreApproval()
	task = words(task)
	r := g.newRequest(page, KindPlan, nil, words(reason))
	r.Action, r.Words = task, task
	r.Plan = &p
	// A plan's screenshot is of a page the plan is not about.
	r.Screenshot = nil
	d, err := g.ask(ctx, r)
	if err != nil || !d.Approved {
		return d, Plan{}, err
	}
	approved := p.Narrowed(d.Plan)
	planned, err := NewWriteSet(approved.WriteSites()...)
	if err != nil {
		// The sites were Site's own: this cannot fail; refuse if it does.
		return Decision{Channel: ChannelNone, RequestID: r.ID, Feedback: fmt.Sprintf("Not applied: the plan's sites: %v.", err)}, Plan{}, nil
	}
	g.mu.Lock()
	g.planned = planned
	g.mu.Unlock()
	d.Plan = &approved
	g.log.Info("plan approved by a person", "id", r.ID, "write", planned.String(), "channel", d.Channel)
	if pr, ok := g.opts.Audit.(PlanRecorder); ok {
		if err := pr.PlanApproved(r, d, approved); err != nil {
			g.log.Warn("audit: approved plan not logged", "id", r.ID, "err", err)
		}
	}
	return d, approved, nil
}

// EndTask ends the task a plan was approved for: the plan's sites leave the
// session's write set (a person approved them "for this task"), and writing
// there asks again until a person approves another plan. It reports
// whether a plan had been in force.
func (g *Gate) EndTask() bool {
	g.mu.Lock()
	had := len(g.planned.sites) > 0
	g.planned = WriteSet{}
	g.mu.Unlock()
	if had {
		g.log.Info("task ended: the approved plan's sites are read-only again")
	}
	return had
}
