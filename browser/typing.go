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
	return t.typeText(ctx, backendNodeID, text, clear, true)
}

// typeKeys sends text to what has focus in the session of c, one key per
// character; the key's code and virtual key code come from chromedp's
// table when a keyboard key types the character, and the character alone
// is the key otherwise.
func typeKeys(c context.Context, text string) error {
	for _, r := range text {
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
		down := keyEvent("keyDown", k, mods)
		down["text"], down["unmodifiedText"] = k.Text, k.Unmodified
		for _, ev := range []map[string]any{down, keyEvent("keyUp", k, mods)} {
			if _, err := chromedp.Call(c, cmdDispatchKeyEvent, ev); err != nil {
				return fmt.Errorf("key %q: %s: %w", r, ev["type"], err)
			}
		}
	}
	return nil
}
