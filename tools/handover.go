package tools

import (
	"context"
	"fmt"
	"slices"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// PersonTabs lists the person's own tabs of the session's browser, for the
// console's tab picker: for the person only, never a tool's result.
func (s *Session) PersonTabs(ctx context.Context) ([]browser.PersonTab, error) {
	return s.tab.PersonTabs(ctx)
}

// Attached reports whether the session works in the person's own browser,
// where the person may hand it tabs of theirs.
func (s *Session) Attached() bool { return s.tab.Attached() }

// HandOver makes one of the person's own tabs the session's current page,
// as the person chose in the console. It goes as a takeover does: the
// agent's call in flight is stopped first, and the browser is handed back
// with a note that says which page the agent now has (the password fields
// the person filled there are learnt as secrets on the way, as at any
// hand-back). Only the console, under the session's capability, calls it.
func (s *Session) HandOver(ctx context.Context, id string) (browser.PageInfo, error) {
	// A tab that is none of the person's is refused before the agent's
	// call is stopped for it.
	tabs, err := s.tab.PersonTabs(ctx)
	if err != nil {
		return browser.PageInfo{}, err
	}
	if !slices.ContainsFunc(tabs, func(t browser.PersonTab) bool { return t.ID == id }) {
		return browser.PageInfo{}, fmt.Errorf("handing a tab over: %w", browser.ErrNotPersonTab)
	}
	wasTaken := s.Taken()
	if !wasTaken {
		s.TakeOver()
	}
	info, err := s.tab.HandOver(ctx, id)
	if err != nil {
		if !wasTaken {
			s.HandBack("")
		}
		return browser.PageInfo{}, err
	}
	s.log.Info("a person handed over a tab of theirs", "url", checkpoint.OneLine(info.URL))
	if !wasTaken {
		s.HandBack(fmt.Sprintf("The person handed you one of their own tabs: it is now your current page (%s). Take a snapshot before acting.", s.clip(checkpoint.OneLine(info.URL), messageLimit)))
	}
	return info, nil
}
