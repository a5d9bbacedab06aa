package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// maxAsks bounds how often one call asks a person about its action while
// the page keeps changing, as the element takes focus, what the input
// would commit.
const maxAsks = 3

// committed plans a gated action, has the gate decide on it, and runs its
// input, commit, which refuses (a *browser.ChangedError) when, once its
// element has focus and the page's handlers have run, what it would commit
// is not what was planned: the page never hears it. Done is then what was
// approved, before the page hears it (docs/architecture.md, "Checkpoints").
// When a person approved the plan and the action as the page has it now is
// another one (a select's option rewritten as it took focus), the person
// is asked again about that one, at most maxAsks times in all; otherwise
// the answer is action_failed, saying what changed, and nothing was done.
func (s *Session) committed(ctx context.Context, c *call, plan func(context.Context) (planned, error), commit func(context.Context, planned) error) (planned, error) {
	for ask := 1; ; ask++ {
		p, asked, err := s.gatedAsked(ctx, c, plan)
		if err != nil {
			return p, err
		}
		err = commit(ctx, p)
		var changed *browser.ChangedError
		if !errors.As(err, &changed) {
			return p, err
		}
		why := s.changedNote(changed)
		if !asked {
			return p, fail(toolapi.ActionFailed, "%s was not done: %s. Nothing more was committed; check the new snapshot before trying again.", s.clip(p.action.String(), messageLimit), why)
		}
		if ask == maxAsks {
			return p, fail(toolapi.ActionFailed, "%s was not done: the page changed it again after a human approved it %d times (%s). Nothing more was committed; do not go on with it.", s.clip(p.action.String(), messageLimit), maxAsks, why)
		}
		now, err := s.placed(ctx, plan)
		if err != nil {
			// The action cannot even be planned on the page as it is now
			// (the value picks no option): nothing to ask about.
			return now, fail(toolapi.ActionFailed, "%s was approved but not done: %s. Now: %s", s.clip(p.action.String(), messageLimit), why, asProblem(err).msg)
		}
		if now.action.Same(p.action) {
			// Nothing new to show a person: the page diverts the input
			// itself.
			return p, fail(toolapi.ActionFailed, "%s was approved but not done: %s. Nothing more was committed; check the new snapshot.", s.clip(p.action.String(), messageLimit), why)
		}
		s.log.Info("the page changed an approved action as it was committed; asking again",
			"approved", s.clip(p.action.String(), messageLimit), "now", s.clip(now.action.String(), messageLimit))
	}
}

// changedNote says what a page changed under an input, as the agent reads
// it: page text clipped, the session's secrets redacted.
func (s *Session) changedNote(e *browser.ChangedError) string {
	switch {
	case e.Now != "":
		return s.clip(e.Now, messageLimit)
	case e.Input == "select" && e.Missing != "":
		return fmt.Sprintf("once the select had focus, %q picked no option", s.clip(e.Missing, textLimit))
	case e.Input == "select":
		return fmt.Sprintf("once the select had focus, the value picked %s instead of the option approved", s.clip(checkpoint.OptionList(s.options(e.Options)), messageLimit))
	}
	return "the page changed what it commits"
}
