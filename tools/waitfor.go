package tools

import (
	"context"
	"fmt"
	"time"

	"github.com/chaperone-mcp/chaperone/toolapi"
)

// waitForInput is the arguments of browser_wait_for: one of Text, TextGone,
// RefGone and Seconds, and for the first three a Timeout in seconds.
type waitForInput struct {
	Text     string   `json:"text,omitempty"`
	TextGone string   `json:"text_gone,omitempty"`
	RefGone  string   `json:"ref_gone,omitempty"`
	Seconds  *float64 `json:"seconds,omitempty"`
	Timeout  float64  `json:"timeout,omitempty" schema:"default=10,maximum=30"`
}

// maxWait bounds every wait of browser_wait_for: an agent that needs longer
// calls it again, and a person watching sees it alive.
const maxWait = 30 * time.Second

// waitFor runs browser_wait_for: it waits for the page (text to show or go,
// an element to go) or for a time, then returns a fresh snapshot.
func (s *Session) waitFor(ctx context.Context, c *call, in waitForInput) (string, error) {
	modes := 0
	for _, set := range []bool{in.Text != "", in.TextGone != "", in.RefGone != "", in.Seconds != nil} {
		if set {
			modes++
		}
	}
	if modes != 1 {
		return "", fail(toolapi.InvalidParams, "browser_wait_for needs exactly one of text, text_gone, ref_gone or seconds (got %d).", modes)
	}
	limit, err := waitSeconds("timeout", in.Timeout)
	if err != nil {
		return "", err
	}
	if in.Seconds != nil {
		d, err := waitSeconds("seconds", *in.Seconds)
		if err != nil {
			return "", err
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return fmt.Sprintf("Waited %s.", d), nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	if d := s.tab.Dialog(); d != nil && in.RefGone == "" {
		// The page is stopped while a dialog waits: nothing would change.
		return "", fail(toolapi.InvalidParams, "A %s dialog is open and the page waits for it: answer it with browser_click on OK or Cancel first.", d.Type)
	}
	var held bool
	var done, notYet string
	switch {
	case in.RefGone != "":
		t, err := s.target(in.RefGone)
		if err != nil {
			return "", err
		}
		done = fmt.Sprintf("%s %s %q went away.", t.Ref, t.Role, t.Name)
		notYet = fmt.Sprintf("%s %s %q is still there", t.Ref, t.Role, t.Name)
		if t.Dialog != "" {
			held = s.tab.Dialog() == nil
			break
		}
		if held, err = s.tab.WaitForGone(ctx, t.BackendNodeID, limit); err != nil {
			return "", err
		}
	case in.TextGone != "":
		done, notYet = fmt.Sprintf("%q went away.", in.TextGone), fmt.Sprintf("%q is still on the page", in.TextGone)
		if held, err = s.tab.WaitForText(ctx, in.TextGone, true, limit); err != nil {
			return "", err
		}
	default:
		done, notYet = fmt.Sprintf("%q appeared.", in.Text), fmt.Sprintf("%q did not appear", in.Text)
		if held, err = s.tab.WaitForText(ctx, in.Text, false, limit); err != nil {
			return "", err
		}
	}
	if !held {
		return "", fail(toolapi.Timeout, "After %s, %s. The page may still be working: wait again, or go on from this snapshot.", limit, notYet)
	}
	return done, nil
}

// waitSeconds reads a number of seconds of browser_wait_for, which must be
// positive and at most maxWait.
func waitSeconds(name string, secs float64) (time.Duration, error) {
	d := time.Duration(secs * float64(time.Second))
	if secs <= 0 || d > maxWait {
		return 0, fail(toolapi.InvalidParams, "%s must be more than 0 and at most %.0f seconds, not %v.", name, maxWait.Seconds(), secs)
	}
	return d, nil
}
