package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// The whole mouse (issue 31): browser_click with another button, presses
// in a row, or keys held. What it does is judged as a click on the element
// is, since what the page does with it is the page's: a double click on a
// gated button asks, a right click's menu items are elements of the next
// snapshot, and a middle or Control click on a link opens its URL in a new
// tab through the same URL policy and document checks as the click. The
// person sees the gesture (checkpoint.Action.Gesture), and an approval
// covers that gesture only.

// mouseInput is how browser_click uses the mouse, as its arguments say
// it. The schema lists no enum: the description says the values in fewer
// tokens, and mouse() names the values it takes.
type mouseInput struct {
	Button    string
	Count     int
	Modifiers []string
}

// modifierNames are the keys a click may hold, by the names people write
// them in, lower case: "Ctrl" and "Cmd" as well as "Control" and "Meta".
// The names are the browser's (KeyboardEvent.key); Meta is Command on a
// Mac, where pages read it as others read Control.
var modifierNames = map[string]string{
	"alt": "Alt", "option": "Alt",
	"control": "Control", "ctrl": "Control",
	"meta": "Meta", "cmd": "Meta", "command": "Meta",
	"shift": "Shift",
}

// mouse reads the arguments as the browser sends them, and the gesture a
// person is shown ("" for one plain click).
func (in mouseInput) mouse() (browser.Mouse, string, error) {
	m := browser.Mouse{Button: strings.ToLower(strings.TrimSpace(in.Button)), Count: in.Count}
	switch m.Button {
	case "":
		m.Button = "left"
	case "left", "middle", "right":
	default:
		return m, "", fail(toolapi.InvalidParams, "button is left, middle or right, not %q.", clip(in.Button, textLimit))
	}
	if m.Count == 0 {
		m.Count = 1
	}
	if m.Count < 1 || m.Count > 3 {
		return m, "", fail(toolapi.InvalidParams, "count is 1, 2 (a double click) or 3, not %d.", in.Count)
	}
	for _, k := range in.Modifiers {
		name, ok := modifierNames[strings.ToLower(strings.TrimSpace(k))]
		if !ok {
			return m, "", fail(toolapi.InvalidParams, "modifiers are keys held during the click: Alt, Control, Meta or Shift, not %q.", clip(k, textLimit))
		}
		if !slices.Contains(m.Modifiers, name) {
			m.Modifiers = append(m.Modifiers, name)
		}
	}
	slices.Sort(m.Modifiers)
	return m, gesture(m), nil
}

// pastes reports a middle click into a field, which on Linux pastes the
// text selected anywhere in the browser (the primary selection) into it:
// typing that no gate judged as a fill, from whatever page the selection
// was made on. It is refused rather than judged, since what it types is
// not known before it is sent.
func pastes(m browser.Mouse, a checkpoint.Action) error {
	if m.Button != "middle" || !a.Field {
		return nil
	}
	return fail(toolapi.InvalidParams, "A middle click into %s %q pastes the browser's selected text into it, which nobody judged as typing: use browser_fill with the text instead.", a.Role, clip(a.Name, textLimit))
}

// gesture says a click as a person reads it: "double click", "right
// click", "Control+Shift+click"; "" for one press of the left button.
func gesture(m browser.Mouse) string {
	name := "click"
	if m.Button != "left" {
		name = m.Button + " click"
	}
	switch m.Count {
	case 2:
		name = "double " + name
	case 3:
		name = "triple " + name
	}
	if len(m.Modifiers) > 0 {
		name = strings.Join(m.Modifiers, "+") + "+" + name
	}
	if name == "click" {
		return ""
	}
	return name
}

// gestureNote is what a result says of a click's gesture.
func gestureNote(gesture string) string {
	if gesture == "" {
		return ""
	}
	return " (" + gesture + ")"
}

// pressesNote says how many presses of a click reached its element.
func pressesNote(n int) string {
	if n == 1 {
		return "Its first press reached it"
	}
	return fmt.Sprintf("Its first %d presses reached it", n)
}

// stillApproved returns the check made before each press of a click after
// the first: what the first did may have changed the element (its name,
// its role, the control it activates, its document), and the next press
// goes only to the element as it was judged and approved. again plans the
// click anew without scrolling (on a ref, at a point).
func (s *Session) stillApproved(p planned, again func(context.Context) (planned, error)) func(context.Context) error {
	return func(ctx context.Context) error {
		q, err := s.placed(ctx, again)
		if err == nil {
			q.action.Gesture = p.action.Gesture
			if !q.action.Same(p.action) {
				err = fmt.Errorf("it is now %s", q.action)
			}
		}
		if err != nil {
			// The first press went: a check's own "nothing was done"
			// would be false.
			s.log.Info("click: the element changed after a press", "err", s.secrets.redact(err.Error()))
			return fail(toolapi.ActionFailed, "The first press of the %s reached %s; after it, that is no longer what was judged (changed, moved, disabled or gone), so nothing more was pressed. Check the new snapshot.",
				p.action.Gesture, s.clip(p.action.String(), messageLimit))
		}
		return nil
	}
}

// recheckClick plans a click on p's element again without scrolling, for
// stillApproved.
func (s *Session) recheckClick(p planned) func(context.Context) (planned, error) {
	return func(ctx context.Context) (planned, error) {
		insp, err := s.check(ctx, p.t, false)
		if err != nil {
			return planned{}, err
		}
		return planned{t: p.t, insp: insp, action: s.actionOn(checkpoint.VerbClick, p.t, insp)}, nil
	}
}
