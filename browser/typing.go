package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TypeKeys is Type for pages that read keystrokes (a terminal, a search
// that runs as you type, an editor's shortcuts): each character is a key
// pressed and released (keydown, keypress, input, keyup), not text inserted
// at once. A line break or tab is inserted as text, so that filling a field
// never submits its form or moves the focus.
func (t *Context) TypeKeys(ctx context.Context, backendNodeID int64, text string, clear bool) (string, error) {
	typed, err := t.typeText(ctx, backendNodeID, text, clear, true, false)
	return typed.Value, err
}

// typeKeys sends text to what has focus in the session of c, one key per
// character; the key's code and virtual key code come from chromedp's
// table when a keyboard key types the character, and the character alone
// is the key otherwise. Each key goes down (keydown), then types its
// character (keypress, input) and comes up, as a keyboard's do: only while
// the field node keeps the focus, checked before the key and again once
// the page's keydown handlers ran, so that no character reaches an element
// the page moved the focus to.
func (t *Context) typeKeys(ctx, c context.Context, node nodeID, text string) error {
	for i, r := range text {
		if r < ' ' {
			if _, err := chromedp.Call(c, cmdInsertText, map[string]any{"text": string(r)}); err != nil {
				return fmt.Errorf("insert %q: %w", r, err)
			}
			continue
		}
		k := kb.Key{Key: string(r), Text: string(r), Unmodified: string(r)}
		if known, ok := kb.Keys[r]; ok {
			k = *known
		}
		var mods int64
		if k.Shift {
			mods = modifierBits["Shift"]
		}
		if err := t.stillFocused(ctx, node, false, fmt.Sprintf("before key %d", i+1)); err != nil {
			return err
		}
		if err := sendKey(c, keyEvent("rawKeyDown", k, mods)); err != nil {
			return fmt.Errorf("key %q: %w", r, err)
		}
		if err := t.stillFocused(ctx, node, false, fmt.Sprintf("on the keydown of key %d", i+1)); err != nil {
			return err
		}
		char := keyEvent("char", k, mods)
		char["text"], char["unmodifiedText"] = k.Text, k.Unmodified
		for _, ev := range []map[string]any{char, keyEvent("keyUp", k, mods)} {
			if err := sendKey(c, ev); err != nil {
				return fmt.Errorf("key %q: %w", r, err)
			}
		}
	}
	return nil
}

// sendKey dispatches one key event in the session of c.
func sendKey(c context.Context, ev map[string]any) error {
	if _, err := chromedp.Call(c, cmdDispatchKeyEvent, ev); err != nil {
		return fmt.Errorf("%s: %w", ev["type"], err)
	}
	return nil
}

// stillFocused returns a *ChangedError when the page has moved the keyboard
// focus from node to another element (when, strict, to none either): what
// the next key commits would go where nobody judged it. A focus that
// cannot be read (the document going away) is left to the delivery check.
func (t *Context) stillFocused(ctx context.Context, node nodeID, strict bool, when string) error {
	now, err := t.Focused(ctx)
	if err != nil || now == node.id() || (now == 0 && !strict) {
		return nil
	}
	return &ChangedError{Input: "type", Now: "the page moved the keyboard focus away from the field " + when}
}
