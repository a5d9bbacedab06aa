package checkpoint

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/chaperone-mcp/chaperone/snapshot"
)

// Verb is what an action does to the page.
type Verb string

// The verbs a gate decides on.
const (
	VerbClick    Verb = "click"
	VerbFill     Verb = "fill"
	VerbSelect   Verb = "select"
	VerbPress    Verb = "press"
	VerbNavigate Verb = "navigate"
	// VerbDrag drags the element onto another, which Value names
	// (`listitem "Done"`); VerbUpload gives a file input the files Value
	// names.
	VerbDrag   Verb = "drag"
	VerbUpload Verb = "upload"
	// VerbScript runs the agent's own JavaScript, whose source Value
	// holds whole, in the page (browser_evaluate): always put to a person
	// (Gate.AuthorizeScript).
	VerbScript Verb = "run script"
)

// Option is an option a select will really choose: what the page shows and
// what the form sends, which can differ.
type Option struct {
	Text  string `json:"text"`
	Value string `json:"value"`
}

// String says the option as a person reads it: its text, and its value when
// that differs and is known.
func (o Option) String() string {
	if o.Value == o.Text || o.Value == "" {
		return fmt.Sprintf("%q", o.Text)
	}
	return fmt.Sprintf("%q (value %q)", o.Text, o.Value)
}

// OptionList says options in one phrase: "A", "B" (value "b"); "no option"
// for none, which a select that takes several may choose.
func OptionList(options []Option) string {
	if len(options) == 0 {
		return "no option"
	}
	s := make([]string, len(options))
	for i, o := range options {
		s[i] = o.String()
	}
	return strings.Join(s, ", ")
}

// Action is one concrete state-changing action, as a person approves it: the
// verb, the element as it is when the action runs, and what will be typed or
// chosen. An approval covers an action only when it is the Same one.
type Action struct {
	Verb Verb `json:"verb"`
	// Ref is the agent's ref for the element; Node the browser's backend
	// node id, which says which element it is. Both are empty for an action
	// on a JavaScript dialog or on the page as a whole.
	Ref  string `json:"ref,omitempty"`
	Node int64  `json:"node,omitempty"`
	// Role and Name are the element's accessible role and name when the
	// action runs.
	Role string `json:"role,omitempty"`
	Name string `json:"name,omitempty"`
	// Value is the text a fill types, the key a press sends, the URL a
	// navigation opens, the element a drag drops on, or the files an upload
	// gives. When Masked it holds only what may be shown (a
	// password's dots, a secret's placeholder).
	Value  string `json:"value,omitempty"`
	Masked bool   `json:"masked,omitempty"`
	// Options are the options a select will choose, in the page's order:
	// one for a select that takes one; for one that takes several, exactly
	// the options that will be selected afterwards (none deselects all).
	Options []Option `json:"options,omitempty"`
	// Dialog is the JavaScript dialog the action answers.
	Dialog *snapshot.Dialog `json:"dialog,omitempty"`
	// Box is the element's box in viewport CSS pixels, drawn on the
	// screenshot a person sees.
	Box *snapshot.BBox `json:"box,omitempty"`
	// Autocomplete and FieldName describe a field being filled (its
	// autocomplete attribute; its name, id or label), and SubmitsPayment
	// says that the action submits a form holding a payment-card field:
	// what the default policy looks at.
	Autocomplete   string `json:"autocomplete,omitempty"`
	FieldName      string `json:"field_name,omitempty"`
	SubmitsPayment bool   `json:"submits_payment,omitempty"`
	// SubmitsAccountChange says that the action submits a form that
	// changes the account of the site it is sent to: a new password, or
	// an email, phone or user name edited (the browser reads the form's
	// fields, its submit, its action; it is no sign-in).
	SubmitsAccountChange bool `json:"submits_account_change,omitempty"`
	// Activates is the control the input will really activate when that
	// is not the element itself: a form's default submit button for Enter
	// in one of its fields, the control a file chooser opens from. The
	// gate judges it as a click on that control.
	Activates *Control `json:"activates,omitempty"`
	// Field says the element takes what is typed (a text field, an
	// editable element, a select), and Submits that the action submits a
	// form (a click on a form's submit control, Enter in a form's field):
	// what the write set's rule reads (Writes).
	Field   bool `json:"field,omitempty"`
	Submits bool `json:"submits,omitempty"`
	// SubmitsTo is the URL the form an action submits is sent to: a form
	// of a site in the write set may send what it holds to another.
	SubmitsTo string `json:"submits_to,omitempty"`
	// Origin is the origin of the document the action acts in, which an
	// about:blank or about:srcdoc document inherits from the one that
	// made it: its site when its URL has none.
	Origin string `json:"origin,omitempty"`
	// Where is the page, frame and document the action acts in: an
	// approval covers the action only there.
	Where Where `json:"where"`
	// Gesture is how a click uses the mouse when it is not one press of
	// the left button: "double click", "right click", "Control+click".
	// A person approves the very gesture: an approval of a click does not
	// cover a double click.
	Gesture string `json:"gesture,omitempty"`
}

// Control is an element an input activates, as the gate judges it.
type Control struct {
	Role string `json:"role"`
	Name string `json:"name"`
	// SubmitsPayment says that activating it submits a form holding a
	// payment-card field.
	SubmitsPayment bool `json:"submits_payment,omitempty"`
	// SubmitsAccountChange says that activating it submits a form that
	// changes the site's account (Action.SubmitsAccountChange).
	SubmitsAccountChange bool `json:"submits_account_change,omitempty"`
}

// Where names the place an action acts in. Node ids repeat across pages and
// documents, so an action is the same only in the same Where.
type Where struct {
	// Target is the browser's id of the page (tab); Frame the frame's id
	// and Document its loader (document) id, which changes with every
	// navigation of the frame.
	Target   string `json:"target,omitempty"`
	Frame    string `json:"frame,omitempty"`
	Document string `json:"document,omitempty"`
	// URL is the frame's document URL.
	URL string `json:"url,omitempty"`
}

// String says the action in one line, the way a person reads it:
//
//	click button "Place order — $129"
//	fill textbox "Amount" with "129"
//	select "Too expensive" (value "price") in combobox "Reason"
//	select "Drama", "Jazz" (value "jazz") in listbox "Genres"
//	click button "OK" of confirm dialog "Leave checkout?"
//	drag listitem "Write tests" to listitem "Ship"
//	double click button "Delete all tasks"
//
// It is not escaped: use Printable before a person reads it.
func (a Action) String() string {
	var b strings.Builder
	if a.Verb == VerbClick && a.Gesture != "" {
		b.WriteString(a.Gesture)
	} else {
		b.WriteString(string(a.Verb))
	}
	if a.Verb == VerbSelect {
		fmt.Fprintf(&b, " %s in", OptionList(a.Options))
	}
	if a.Verb == VerbScript {
		// In ASCII: a letter of another script that looks like a Latin one
		// ("аpple.com" with a Cyrillic а) reads as what it is not.
		fmt.Fprintf(&b, " %+q", a.Value)
		return b.String()
	}
	if a.Verb == VerbNavigate || (a.Verb == VerbPress && a.Role == "") {
		if a.Value != "" {
			fmt.Fprintf(&b, " %s", a.Value)
		}
		return b.String()
	}
	if a.Role != "" {
		fmt.Fprintf(&b, " %s %q", a.Role, a.Name)
	}
	if a.Dialog != nil {
		fmt.Fprintf(&b, " of %s dialog %q", a.Dialog.Type, a.Dialog.Message)
	}
	switch {
	case a.Verb == VerbFill:
		fmt.Fprintf(&b, " with %q", a.Value)
	case a.Verb == VerbPress && a.Value != "":
		fmt.Fprintf(&b, " with key %s", a.Value)
	case a.Verb == VerbDrag:
		fmt.Fprintf(&b, " to %s", a.Value)
	case a.Verb == VerbUpload:
		fmt.Fprintf(&b, " with %s", a.Value)
	}
	return b.String()
}

// Same reports whether b is the very action a is: the same verb (and
// gesture) on the same element, which still has the same role and name, with the same value,
// options (the very set, in the same order), dialog and activated control,
// in the same place: the same page, frame, document and URL. Node ids
// repeat across pages and documents, so a node alone names no element; a
// reload or any navigation of the frame is a new document, which no
// approval given before it covers.
func (a Action) Same(b Action) bool {
	if a.Verb != b.Verb || a.Node != b.Node || a.Role != b.Role || a.Name != b.Name ||
		a.Value != b.Value || a.Masked != b.Masked || !slices.Equal(a.Options, b.Options) ||
		a.Where != b.Where || a.Gesture != b.Gesture {
		return false
	}
	if (a.Dialog == nil) != (b.Dialog == nil) || (a.Dialog != nil && *a.Dialog != *b.Dialog) {
		return false
	}
	if (a.Activates == nil) != (b.Activates == nil) || (a.Activates != nil && *a.Activates != *b.Activates) {
		return false
	}
	return true
}

// Printable returns s with everything that could repaint a person's terminal
// or reorder what they read shown as a visible escape: control characters
// (ANSI escape sequences start with one), and bidirectional overrides and
// isolates; and a URL's host written in Unicode as the ASCII host the
// browser connects to. Text from pages and from the model passes through it
// before a person reads it, wherever that is.
func Printable(s string) string {
	s = asciiHosts(s) // hosts.go
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			// Kept as typed: a line break in a dialog's message is
			// legitimate; the surrounding text is ours.
			b.WriteRune(r)
		case r == unicode.ReplacementChar:
			b.WriteRune(r)
		case unicode.IsControl(r) || isBidiControl(r):
			if r < 0x100 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isBidiControl reports the runes that change the direction of the text
// around them without being visible: a page title with U+202E can make a
// person read "exe.txt" for "txt.exe".
func isBidiControl(r rune) bool {
	switch {
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	}
	return false
}

// OneLine is Printable for a single line: line breaks and tabs are shown as
// escapes too, so a page cannot start a line of its own in a prompt.
func OneLine(s string) string {
	return Printable(strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(s))
}
