package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// tabsInput is the arguments of browser_tabs.
type tabsInput struct {
	Action string `json:"action" schema:"enum=list|select|close|new"`
	Index  *int   `json:"index,omitempty" schema:"minimum=0"`
	URL    string `json:"url,omitempty"`
}

// tabs runs browser_tabs: it lists the session's tabs, switches to one,
// closes one, or opens a new one; every answer lists the tabs.
func (s *Session) tabs(ctx context.Context, c *call, in tabsInput) (string, error) {
	msg, err := s.tabsAction(ctx, c, in)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(msg + " " + s.tabList()), nil
}

func (s *Session) tabsAction(ctx context.Context, c *call, in tabsInput) (string, error) {
	if in.URL != "" && in.Action != "new" {
		return "", fail(toolapi.InvalidParams, "url goes with action new only.")
	}
	if in.Action != "list" {
		// A tab opened, closed or switched to acts on the browser: only
		// while the agent has it (takeover.go).
		if err := s.mayAct(ctx); err != nil {
			return "", err
		}
	}
	switch in.Action {
	case "list":
		return "", nil
	case "select":
		if in.Index == nil {
			return "", fail(toolapi.InvalidParams, "select needs the index of the tab, from the list.")
		}
		if err := s.tab.SwitchTo(ctx, *in.Index); err != nil {
			return "", tabsProblem(err, *in.Index)
		}
		return fmt.Sprintf("Switched to tab %d.", *in.Index), nil
	case "close":
		i := s.tab.Current().Index
		if in.Index != nil {
			i = *in.Index
		}
		if err := s.tab.ClosePage(ctx, i); err != nil {
			return "", tabsProblem(err, i)
		}
		return fmt.Sprintf("Closed tab %d.", i), nil
	case "new":
		return s.newTab(ctx, c, strings.TrimSpace(in.URL))
	}
	return "", fail(toolapi.InvalidParams, "action must be list, select, close or new, not %q.", in.Action)
}

// newTab opens a new tab, and with a URL goes there as browser_navigate
// would: checked by the policy and the gate first.
func (s *Session) newTab(ctx context.Context, c *call, raw string) (string, error) {
	if raw == "" {
		if err := s.tab.OpenPage(ctx); err != nil {
			return "", err
		}
		return "Opened a new, blank tab.", nil
	}
	dest, err := s.gatedDestination(ctx, c, navigateInput{URL: raw})
	if err != nil {
		return "", err
	}
	if err := s.mayAct(ctx); err != nil {
		return "", err // a person took the browser while the gate asked
	}
	if err := s.tab.OpenPage(ctx); err != nil {
		return "", err
	}
	return s.settle(ctx, c, s.config.ActionTimeout, func(ctx context.Context) error {
		return s.tab.GoChecked(ctx, dest.url, s.redirectCheck(ctx, dest))
	}, "Opened a new tab at "+dest.url+".")
}

// tabsProblem says what a refused tab index means to the agent.
func tabsProblem(err error, i int) error {
	switch {
	case errors.Is(err, browser.ErrNoSuchPage):
		return fail(toolapi.InvalidParams, "There is no tab %d; list the tabs to see their indexes.", i)
	case errors.Is(err, browser.ErrLastPage):
		return fail(toolapi.ActionFailed, "Tab %d is the only tab; it cannot be closed.", i)
	}
	return err
}

// tabList is the session's tabs, one a line, the current one marked.
func (s *Session) tabList() string {
	pages := s.tab.Pages()
	var b strings.Builder
	fmt.Fprintf(&b, "Tabs (%d):", len(pages))
	for _, p := range pages {
		mark := ""
		if p.Current {
			mark = " (current)"
		}
		fmt.Fprintf(&b, "\n%d%s: %q %s", p.Index, mark, p.Title, p.URL)
	}
	return b.String()
}
