package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// ActionRule gates one kind of action wherever it happens, whatever the page:
// a profile's gated_actions. Every test it sets must hold; Name labels it. In
// JSON:
//
//	{"name": "buy", "verb": "click", "name_matches": "\\bbuy\\b"}
//	{"name": "payment card field", "payment_field": true}
type ActionRule struct {
	// Name labels the rule in messages, prompts and logs; required.
	Name string `json:"name"`
	// Verb, when set, is the verb the action must have. A rule for click
	// also covers pressing Enter or Space on the element, which activates
	// it the same way.
	Verb Verb `json:"verb,omitempty"`
	// Role, when set, is the target's accessible role (case-insensitive).
	Role string `json:"role,omitempty"`
	// NameMatches, when set, is a Go regular expression the target's
	// accessible name must match, case-insensitively.
	NameMatches string `json:"name_matches,omitempty"`
	// PaymentField holds for a fill into a payment-card field: IsPaymentField
	// of its autocomplete and field name, or of its accessible name.
	PaymentField bool `json:"payment_field,omitempty"`
	// SubmitsPayment holds for a click, or an Enter, that submits a form
	// holding a payment-card field.
	SubmitsPayment bool `json:"submits_payment,omitempty"`
	// SubmitsAccountChange holds for a click, or an Enter, that submits a
	// form changing the account of the site it is sent to: it sets a
	// password, or edits an email, phone or user name, and is no sign-in
	// (Action.SubmitsAccountChange).
	SubmitsAccountChange bool `json:"submits_account_change,omitempty"`

	re *regexp.Regexp
}

// Match reports whether a is an action r gates: the action itself, or, when
// the input activates another control (Action.Activates: a form's default
// submit button for Enter in a field, the control a file chooser opens from,
// a drop zone, the OK of a dialog read as its message), a click on that
// control. The gate judges what an input will activate, not the keystroke.
func (r ActionRule) Match(a Action) bool {
	if r.match(a) {
		return true
	}
	if c := a.Activates; c != nil {
		return r.match(Action{Verb: VerbClick, Role: c.Role, Name: c.Name, SubmitsPayment: c.SubmitsPayment, SubmitsAccountChange: c.SubmitsAccountChange})
	}
	return false
}

// match is Match on the action alone.
func (r ActionRule) match(a Action) bool {
	if r.Verb != "" && !verbIs(a, r.Verb) {
		return false
	}
	if r.Role != "" && !strings.EqualFold(a.Role, r.Role) {
		return false
	}
	if r.NameMatches != "" {
		re := r.re
		if re == nil {
			var err error
			if re, err = compileFold(r.NameMatches); err != nil {
				return false
			}
		}
		if !re.MatchString(a.Name) {
			return false
		}
	}
	// The accessible name is the field's label as a person reads it: a
	// card field labelled only by its text is still one.
	if r.PaymentField && (!verbIs(a, VerbFill) || !(IsPaymentField(a.Autocomplete, a.FieldName) || IsPaymentField("", a.Name))) {
		return false
	}
	if r.SubmitsPayment && (!a.SubmitsPayment || !verbIs(a, VerbClick)) {
		return false
	}
	if r.SubmitsAccountChange && (!a.SubmitsAccountChange || !verbIs(a, VerbClick)) {
		return false
	}
	return r.Verb != "" || r.Role != "" || r.NameMatches != "" || r.PaymentField || r.SubmitsPayment || r.SubmitsAccountChange
}

// verbIs reports whether a does what verb v does: the verb itself, or for a
// click, an input that activates the element as a click would: Enter or
// Space pressed on it whatever modifiers are held (Shift+Enter, Control+Space
// and NumpadEnter activate a button too), and a drag, whose press on the
// dragged element is a mouse press like a click's.
//
// A key pressed in a field does what a fill or a select does: it types
// into the field, or picks another option of a select (an arrow, a
// letter, End), unless it only takes the focus away (FocusKey).
func verbIs(a Action, v Verb) bool {
	if a.Verb == v {
		return true
	}
	if a.Verb == VerbPress && a.Field && (v == VerbFill || v == VerbSelect) {
		return !FocusKey(a.Value)
	}
	if v != VerbClick || a.Role == "" {
		return false
	}
	switch a.Verb {
	case VerbPress:
		return ActivationKey(a.Value)
	case VerbDrag:
		return true
	}
	return false
}

// FocusKey reports whether the key a press sends (as Action.Value says
// it) only takes the focus from a field, changing nothing in it: Tab,
// Shift+Tab, Escape.
func FocusKey(key string) bool {
	switch strings.ToLower(key) {
	case "tab", "shift+tab", "escape", "esc":
		return true
	}
	return false
}

// ActivationKey reports whether the key a press sends (as Action.Value says
// it: "Enter", "Shift+Space", "Control+Enter", " ") is Enter or Space, with
// or without modifiers: the keys that activate a focused control.
func ActivationKey(key string) bool {
	k := key
	if i := strings.LastIndex(key, "+"); i >= 0 && i < len(key)-1 {
		k = key[i+1:]
	}
	switch strings.ToLower(k) {
	case "enter", "numpadenter", "return", " ", "space", "spacebar", "\r", "\n":
		return true
	}
	return false
}

// Label is the rule's name, or what it tests when it has none.
func (r ActionRule) Label() string {
	if r.Name != "" {
		return r.Name
	}
	return r.Describe()
}

// Describe says in plain words which actions r gates.
func (r ActionRule) Describe() string {
	var parts []string
	if r.Verb != "" {
		parts = append(parts, "a "+string(r.Verb))
	} else {
		parts = append(parts, "an action")
	}
	if r.Role != "" {
		parts = append(parts, "on a "+r.Role)
	}
	if r.NameMatches != "" {
		parts = append(parts, fmt.Sprintf("whose name matches %q", r.NameMatches))
	}
	if r.PaymentField {
		parts = append(parts, "into a payment-card field")
	}
	if r.SubmitsPayment {
		parts = append(parts, "that submits a payment form")
	}
	if r.SubmitsAccountChange {
		parts = append(parts, "that submits a form changing an account's password, email or settings")
	}
	return strings.Join(parts, " ")
}

// paymentFieldName is what marks a field as a payment card's by its name,
// id or label. The browser applies the same pattern to find the forms whose
// submission Action.SubmitsPayment reports; keep them in step.
var paymentFieldName = regexp.MustCompile(`(?i)card.?num|cc.?num|cvc|cvv|csc|security.?code|expir`)

// IsPaymentField reports whether a field holds part of a payment card: its
// autocomplete attribute has a token starting with "cc-" (cc-number,
// cc-exp, cc-csc, …), or its name, id or label (fieldName) reads like card
// number, cc-num, CVC, CVV, CSC, security code or expiry. The default
// policy gates fills into such fields; the browser uses the same test to
// tell when a form holds one.
func IsPaymentField(autocomplete, fieldName string) bool {
	for _, tok := range strings.Fields(strings.ToLower(autocomplete)) {
		if strings.HasPrefix(tok, "cc-") {
			return true
		}
	}
	return paymentFieldName.MatchString(fieldName)
}

// compileFold compiles a profile's regular expression, matched
// case-insensitively.
func compileFold(p string) (*regexp.Regexp, error) {
	return regexp.Compile("(?i)" + p)
}

// actionRuleKeys are the fields an action rule may have.
var actionRuleKeys = []string{"name", "verb", "role", "name_matches", "payment_field", "submits_payment", "submits_account_change"}

// verbs are the verbs an action rule may name.
var verbs = []Verb{VerbClick, VerbFill, VerbSelect, VerbPress, VerbNavigate, VerbDrag, VerbUpload}

// parseActionRule decodes one gated_actions rule found at path.
func parseActionRule(data []byte, path string) (ActionRule, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || raw == nil {
		return ActionRule{}, fieldErr(path, "must be an object with a name and at least one of verb, role, name_matches, payment_field, submits_payment, submits_account_change")
	}
	for key := range raw {
		if !slices.Contains(actionRuleKeys, key) {
			return ActionRule{}, fieldErr(join(path, key), "unknown field (an action rule has %s)", strings.Join(actionRuleKeys, ", "))
		}
	}
	var r ActionRule
	var verb string
	field := func(key string, dst any, problem string) error {
		v, ok := raw[key]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return fieldErr(join(path, key), "%s", problem)
		}
		if s, ok := dst.(*string); ok && strings.TrimSpace(*s) == "" {
			return fieldErr(join(path, key), "must not be empty")
		}
		return nil
	}
	if err := errors.Join(
		field("name", &r.Name, "must be a string"),
		field("verb", &verb, "must be a string"),
		field("role", &r.Role, "must be a string"),
		field("name_matches", &r.NameMatches, "must be a string"),
		field("payment_field", &r.PaymentField, "must be true or false"),
		field("submits_payment", &r.SubmitsPayment, "must be true or false"),
		field("submits_account_change", &r.SubmitsAccountChange, "must be true or false"),
	); err != nil {
		return ActionRule{}, firstErr(err)
	}
	if _, ok := raw["name"]; !ok {
		return ActionRule{}, fieldErr(join(path, "name"), "is required")
	}
	if verb != "" {
		r.Verb = Verb(verb)
		if !slices.Contains(verbs, r.Verb) {
			return ActionRule{}, fieldErr(join(path, "verb"), "must be one of click, fill, select, press, navigate, drag, upload, got %q", verb)
		}
	}
	if r.NameMatches != "" {
		re, err := compileFold(r.NameMatches)
		if err != nil {
			return ActionRule{}, fieldErr(join(path, "name_matches"), "not a valid regular expression: %v", err)
		}
		r.re = re
	}
	if r.Verb == "" && r.Role == "" && r.NameMatches == "" && !r.PaymentField && !r.SubmitsPayment && !r.SubmitsAccountChange {
		return ActionRule{}, fieldErr(path, "gates nothing: set at least one of verb, role, name_matches, payment_field, submits_payment, submits_account_change")
	}
	return r, nil
}
