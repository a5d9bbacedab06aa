package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// typeText runs browser_press_key with a text: each character is a key
// press on ref (focused first) or on what has focus, a line break being
// Enter. The gate judges the text as it judges its keys one by one: by its
// Enter when it has one (which submits where Enter does), else by a space
// (which activates a focused button), else as the typing of its first
// character; a person approving sees the text, or the Enter that submits.
func (s *Session) typeText(ctx context.Context, c *call, in pressKeyInput) (string, error) {
	if in.Text == "" || in.Key != "" {
		return "", fail(toolapi.InvalidParams, "browser_press_key takes a key or a text to type, one of them: %s.", keyExamples)
	}
	chords, judged, err := textChords(in.Text)
	if err != nil {
		return "", err
	}
	for _, c := range chords {
		s.typed.key(c.Name)
	}
	var msg string
	_, err = s.committed(ctx, c, func(ctx context.Context) (planned, error) {
		p, err := s.planPress(ctx, in.Ref, judged)
		if p.insp != nil && p.insp.Password {
			// A password typed key by key is a password as a fill's is:
			// learnt, line by line (an Enter ends it), before anything
			// shows it, and masked in the audit log whether or not it
			// is then typed.
			c.masked = true
			for line := range strings.Lines(strings.ReplaceAll(in.Text, "\r\n", "\n")) {
				s.secrets.learn(strings.TrimSuffix(line, "\n"))
			}
		}
		if err == nil && !p.action.Masked && !judged.Activates() {
			p.action.Value = s.secrets.redact(in.Text)
		}
		return p, err
	}, func(ctx context.Context, p planned) error {
		shown := fmt.Sprintf("%q", s.clip(in.Text, textLimit))
		if p.action.Masked {
			shown = fmt.Sprintf("%d characters", len(chords))
		}
		done := fmt.Sprintf("Typed %s.", shown)
		if p.action.Role != "" {
			done = fmt.Sprintf("Typed %s into %s %q.", shown, p.action.Role, p.action.Name)
		}
		var err error
		msg, err = s.settle(ctx, c, s.config.ActionTimeout, func(ctx context.Context) error {
			if in.Ref != "" {
				if err := s.tab.Focus(ctx, p.t.BackendNodeID); err != nil {
					return fail(toolapi.InvalidParams, "%s (%s %q) cannot take the keyboard focus; type without ref, or click the element first.", p.t.Ref, p.t.Role, p.t.Name)
				}
			}
			if now, err := s.tab.Focused(ctx); err != nil || now != p.t.BackendNodeID {
				return fail(toolapi.ActionFailed, "The page moved the keyboard focus away from %s before typing; nothing was typed. Take a snapshot and try again.", pressTarget(p))
			}
			for i, c := range chords {
				err := s.tab.Press(ctx, c)
				var changed *browser.ChangedError
				if errors.As(err, &changed) && i > 0 {
					changed.Now += fmt.Sprintf(" (after %d of %d characters were typed)", i, len(chords))
					return changed
				}
				if err != nil {
					return fmt.Errorf("typed %d of %d characters: %w", i, len(chords), err)
				}
			}
			return nil
		}, done)
		return err
	})
	return msg, err
}

// textChords turns a text into the keys that type it, and returns the key
// the gate judges the whole text by: its first Enter, else its first space,
// else its first character.
func textChords(text string) ([]browser.Chord, browser.Chord, error) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var chords []browser.Chord
	judged := -1
	for _, r := range text {
		name := string(r)
		switch r {
		case '\n', '\r':
			name = "Enter"
		case '\t':
			name = "Tab"
		}
		c, err := browser.ParseKey(name)
		if err != nil {
			return nil, browser.Chord{}, fail(toolapi.InvalidParams, "text: %v: only characters, line breaks and tabs are typed.", err)
		}
		chords = append(chords, c)
		switch {
		case c.IsEnter() && (judged < 0 || !chords[judged].IsEnter()):
			judged = len(chords) - 1
		case c.Activates() && (judged < 0 || !chords[judged].Activates()):
			judged = len(chords) - 1
		}
	}
	if judged < 0 {
		judged = 0
	}
	return chords, chords[judged], nil
}
