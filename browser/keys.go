package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// ErrUnknownKey reports a key name that ParseKey does not know.
var ErrUnknownKey = errors.New("unknown key")

// Chord is a key to press with the modifiers held down while it is, as
// ParseKey reads it from "Control+A".
type Chord struct {
	// Name is the chord as people write it, normalised: "Control+a",
	// "Enter", "Shift+Tab".
	Name string
	// mods are the modifiers in the order they go down.
	mods []kb.Key
	key  kb.Key
}

// The modifier bits of Input.dispatchKeyEvent, by the key's name.
var modifierBits = map[string]int64{"Alt": 1, "Control": 2, "Meta": 4, "Shift": 8}

// modifierCodes are the virtual key codes pages see for modifiers (the
// generic ones; kb has the left-hand keys' codes).
var modifierCodes = map[string]int64{"Alt": 18, "Control": 17, "Meta": 91, "Shift": 16}

// keyAliases are other names people use for keys.
var keyAliases = map[string]string{
	"Space": " ", "Spacebar": " ", "Esc": "Escape", "Return": "Enter", "Del": "Delete",
	"Ctrl": "Control", "Cmd": "Meta", "Command": "Meta", "Option": "Alt",
	"Up": "ArrowUp", "Down": "ArrowDown", "Left": "ArrowLeft", "Right": "ArrowRight",
}

// namedKeys maps a DOM key name (Enter, ArrowDown, F5, …) to its key, from
// chromedp's table. Several runes can carry one name (the numeric pad's
// Enter); the lowest rune, the main keyboard's key, wins.
var namedKeys = func() map[string]kb.Key {
	runes := make(map[string]rune)
	for r, k := range kb.Keys {
		if utf8.RuneCountInString(k.Key) < 2 {
			continue
		}
		if old, ok := runes[k.Key]; !ok || r < old {
			runes[k.Key] = r
		}
	}
	keys := make(map[string]kb.Key, len(runes))
	for name, r := range runes {
		keys[name] = *kb.Keys[r]
	}
	return keys
}()

// ParseKey reads a key as people and Playwright write it: a DOM key name
// (Enter, Escape, Tab, ArrowDown, Backspace, PageDown, F5), a single
// character, or a chord of modifiers and a key joined by "+" (Control+A,
// Shift+Tab, Meta+Enter). Names are case-insensitive; an unknown one is
// ErrUnknownKey.
func ParseKey(name string) (Chord, error) {
	var parts []string
	switch {
	case name == "+":
		parts = []string{"+"}
	case strings.HasSuffix(name, "++"):
		// "+" as the last key of a chord.
		parts = append(strings.Split(strings.TrimSuffix(name, "++"), "+"), "+")
	default:
		parts = strings.Split(name, "+")
	}
	var c Chord
	var names []string
	for i, p := range parts {
		k, canon, err := lookupKey(p)
		if err != nil {
			return Chord{}, fmt.Errorf("%q: %w", name, err)
		}
		names = append(names, canon)
		if i == len(parts)-1 {
			c.key = k
			break
		}
		if _, ok := modifierBits[k.Key]; !ok {
			return Chord{}, fmt.Errorf("%q: %q is not a modifier (Alt, Control, Meta, Shift): %w", name, p, ErrUnknownKey)
		}
		c.mods = append(c.mods, k)
	}
	c.Name = strings.Join(names, "+")
	return c, nil
}

// lookupKey finds one key by name and returns it with its canonical name.
func lookupKey(name string) (kb.Key, string, error) {
	if utf8.RuneCountInString(name) == 1 {
		r, _ := utf8.DecodeRuneInString(name)
		if k, ok := kb.Keys[r]; ok {
			// "\r" is Enter and " " is Space: one name for one key, so
			// that what a person and the gate read is what is pressed.
			switch {
			case k.Key == " ":
				return *k, "Space", nil
			case utf8.RuneCountInString(k.Key) > 1:
				return *k, k.Key, nil
			}
			return *k, name, nil
		}
		if r < ' ' || r == utf8.RuneError {
			return kb.Key{}, "", fmt.Errorf("%q: %w", name, ErrUnknownKey)
		}
		// A character no keyboard key types here: it arrives as text.
		return kb.Key{Key: name, Text: name, Unmodified: name, Print: true}, name, nil
	}
	for alias, to := range keyAliases {
		if strings.EqualFold(alias, name) {
			name = to
			break
		}
	}
	if name == " " {
		return *kb.Keys[' '], "Space", nil
	}
	for n, k := range namedKeys {
		if strings.EqualFold(n, name) {
			return k, n, nil
		}
	}
	if strings.EqualFold(name, "NumpadEnter") {
		// The numeric pad's Enter, as Playwright names it: the key Enter
		// with the pad's code, which pages can tell apart.
		k := *kb.Keys['\r']
		k.Code = "NumpadEnter"
		return k, "NumpadEnter", nil
	}
	return kb.Key{}, "", fmt.Errorf("%q: %w", name, ErrUnknownKey)
}

// Typed returns the character the chord types into a text field, or "" for
// a chord that types none (Enter, Tab, arrows, shortcuts with Control, Alt
// or Meta).
func (c Chord) Typed() string {
	if c.key.Text == "" || c.key.Text == "\r" || c.shortcut() {
		return ""
	}
	return c.key.Text
}

// Activates reports whether the chord's key is Enter or Space, whatever
// modifiers are held: the keys that activate a focused control, and Enter
// submits the form of a focused field.
func (c Chord) Activates() bool {
	return c.key.Key == "Enter" || c.key.Key == " "
}

// IsEnter reports whether the chord's key is Enter, with or without
// modifiers.
func (c Chord) IsEnter() bool { return c.key.Key == "Enter" }

// editingKeys are the keys that, with Control or Meta, edit text the same
// way on every page: select all, copy, cut, paste, undo, and redo (Y, or Z
// with Shift).
var editingKeys = map[string]bool{"a": true, "c": true, "x": true, "v": true, "z": true, "y": true}

// Shortcut reports whether the chord holds Control, Meta or Alt and is not
// one of the text-editing chords (select all, copy, cut, paste, undo,
// redo): what a page may bind to an action of its own, as a mail page
// sends on Control+Enter.
func (c Chord) Shortcut() bool {
	if !c.shortcut() {
		return false
	}
	alt := false
	for _, m := range c.mods {
		alt = alt || m.Key == "Alt"
	}
	return alt || !editingKeys[strings.ToLower(c.key.Key)]
}

// navigationKeys are the keys that move focus, scroll or close, and the
// modifiers alone: what pages do not bind to actions of their own.
var navigationKeys = map[string]bool{
	"Tab": true, "Escape": true, "ArrowUp": true, "ArrowDown": true, "ArrowLeft": true, "ArrowRight": true,
	"PageUp": true, "PageDown": true, "Home": true, "End": true,
	"Shift": true, "Control": true, "Alt": true, "Meta": true,
}

// Navigates reports whether the chord only moves focus, scrolls or closes
// (Tab, arrows, Page Up and Down, Home, End, Escape, a modifier alone) with
// no modifier other than Shift.
func (c Chord) Navigates() bool {
	return !c.shortcut() && navigationKeys[c.key.Key]
}

// shortcut reports whether a modifier other than Shift is held, which makes
// the key a shortcut rather than text.
func (c Chord) shortcut() bool {
	for _, m := range c.mods {
		if m.Key != "Shift" {
			return true
		}
	}
	return false
}

// Press presses the chord as a keyboard does: modifiers down, the key down
// and up, modifiers up, with the key codes, code and text Chromium needs to
// act on them (Enter submits a form, Tab moves focus, Control+A selects),
// to whatever has focus. It confirms that the keydown reached the focused
// element of the document that holds the focus, following it into
// out-of-process frames: a key that went elsewhere is pressed once more
// after the page has rendered, and a second miss is a DeliveryError.
func (t *Context) Press(ctx context.Context, c Chord) error {
	for try := 1; ; try++ {
		recs, err := t.armKeys(ctx, c.key.Key)
		if err != nil {
			return fmt.Errorf("press %s: %w", c.Name, err)
		}
		if err := t.pressOnce(ctx, c); err != nil {
			for _, r := range recs {
				r.release(ctx)
			}
			return err
		}
		d, err := t.readKeys(ctx, recs)
		if err != nil || d.Delivered {
			return err
		}
		// A document that went away took the focus with it: a second
		// press would go to whatever replaced it.
		if try == 2 || d.Gone {
			return &DeliveryError{Input: "key " + c.Name, Received: d.Received, Gone: d.Gone}
		}
		t.log.Debug("the key did not reach the focused element; pressing it again", "key", c.Name, "received", d.Received)
		_ = t.callPage(ctx, waitFramesJS, nil, routeFrames, routeMaxWait.Milliseconds())
	}
}

// pressOnce sends the chord's key events once, to the page's focused frame.
func (t *Context) pressOnce(ctx context.Context, c Chord) error {
	cx, cancel := t.cdp(ctx)
	defer cancel()
	send := func(ev map[string]any) error {
		if _, err := chromedp.Call(cx, cmdDispatchKeyEvent, ev); err != nil {
			return fmt.Errorf("press %s: %s %v: %w", c.Name, ev["type"], ev["key"], err)
		}
		return nil
	}
	var mods int64
	for _, m := range c.mods {
		mods |= modifierBits[m.Key]
		if err := send(keyEvent("rawKeyDown", m, mods)); err != nil {
			return err
		}
	}
	// Text goes with the key unless a modifier other than Shift turns the
	// key into a shortcut. It is a char event of its own after the
	// keydown, as a keyboard's is: the keypress and the key's release are
	// what type, press a button (Enter, Space) or submit a form, and they
	// go to whatever has the focus then.
	typed := c.key.Text != "" && !c.shortcut()
	var before int64
	var submits string
	if typed {
		before, _ = t.Focused(ctx)
		if c.IsEnter() && before != 0 {
			var err error
			if submits, err = t.enterSubmits(ctx, before); err != nil {
				return fmt.Errorf("press %s: %w", c.Name, err)
			}
		}
	}
	if err := send(keyEvent("rawKeyDown", c.key, mods)); err != nil {
		return err
	}
	if typed {
		// A keydown handler that moved the focus to another element
		// would have it type into, or activate, what nobody judged.
		if now, err := t.Focused(ctx); err == nil && now != before && now != 0 {
			return &ChangedError{Input: "key", Now: fmt.Sprintf("the page moved the keyboard focus to another element on the keydown of %s, so %s was not typed or released there", c.Name, c.Name)}
		}
		// So would one that changed what Enter submits: another
		// default button (a gated one moved into the form), or another
		// place the form is sent to.
		if c.IsEnter() && before != 0 {
			if now, err := t.enterSubmits(ctx, before); err != nil || now != submits {
				return &ChangedError{Input: "key", Now: fmt.Sprintf("the page changed what %s submits on its keydown, so %s was not released", c.Name, c.Name)}
			}
		}
		char := keyEvent("char", c.key, mods)
		char["text"], char["unmodifiedText"] = c.key.Text, c.key.Unmodified
		if err := send(char); err != nil {
			return err
		}
	}
	if err := send(keyEvent("keyUp", c.key, mods)); err != nil {
		return err
	}
	for i := len(c.mods) - 1; i >= 0; i-- {
		mods &^= modifierBits[c.mods[i].Key]
		if err := send(keyEvent("keyUp", c.mods[i], mods)); err != nil {
			return err
		}
	}
	return nil
}

// enterSubmits describes what Enter in the field node submits now, for
// comparing: the default button (or the form) by node, role and name, and
// where the form is sent, by the button and by the form; "" when Enter
// submits nothing.
func (t *Context) enterSubmits(ctx context.Context, node int64) (string, error) {
	a, err := t.EnterActivates(ctx, node)
	if err != nil || a == nil {
		return "", err
	}
	field, err := t.inspect(ctx, nodeOf(node), false, false)
	if err != nil {
		return "", fmt.Errorf("what Enter submits: %w", err)
	}
	button, err := t.inspect(ctx, nodeOf(a.Node), false, false)
	if err != nil {
		return "", fmt.Errorf("what Enter submits: %w", err)
	}
	return fmt.Sprintf("%d %s %q to %q / %q", a.Node, a.Role, a.Name, button.FormAction, field.FormAction), nil
}

// keyEvent is the Input.dispatchKeyEvent parameters of k, sent as raw JSON:
// the typed ones drop a zero key code.
func keyEvent(typ string, k kb.Key, mods int64) map[string]any {
	code := k.Windows
	if c, ok := modifierCodes[k.Key]; ok {
		code = c
	}
	return map[string]any{
		"type": typ, "key": k.Key, "code": k.Code, "modifiers": mods,
		"windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code,
	}
}

// Focus moves the keyboard focus to a node, as a click on it would, without
// clicking.
func (t *Context) Focus(ctx context.Context, backendNodeID int64) error {
	r, err := t.route(ctx, nodeOf(backendNodeID))
	if err != nil {
		return err
	}
	defer r.cancel()
	if _, err := chromedp.Call(r.ctx, cmdFocus, map[string]any{"backendNodeId": r.local}); err != nil {
		return fmt.Errorf("focus node %d: %w", backendNodeID, err)
	}
	return nil
}
