package checkpoint

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/chaperone-mcp/chaperone/snapshot"
)

// Condition is a declarative, composable test over a snapshot. Exactly one of
// its tests is set; all text comparisons are case-insensitive. In JSON a
// condition is an object with one of the keys title_contains, url_contains,
// url_matches, element, text_contains, dialog, any, all or not, and, on the
// top-level rules of a profile, an optional name:
//
//	{"name": "final step", "any": [
//	    {"title_contains": "finish cancellation"},
//	    {"element": {"role": "button", "name_contains": "finish cancel"}}]}
type Condition struct {
	// Name labels a top-level rule in messages and logs; conditions nested in
	// any, all or not ignore it.
	Name string
	// TitleContains holds when the page title contains it.
	TitleContains string
	// URLContains holds when the page URL contains it.
	URLContains string
	// URLMatches holds when the page URL matches it (Go regexp syntax,
	// case-insensitive).
	URLMatches string
	// Element holds when some element has the role and a name containing the
	// text.
	Element *ElementCondition
	// TextContains holds when the visible page text, any element's name, or
	// the message of an open JavaScript dialog contains it.
	TextContains string
	// Dialog holds while a JavaScript dialog of its type, whose message
	// contains its text, is open.
	Dialog *DialogCondition
	// Any holds when at least one of its conditions holds.
	Any []Condition
	// All holds when every one of its conditions holds.
	All []Condition
	// Not holds when its condition does not.
	Not *Condition

	re *regexp.Regexp
}

// ElementCondition matches an element by role and name.
type ElementCondition struct {
	// Role is the element's accessibility role, e.g. "button" or "heading";
	// required.
	Role string `json:"role"`
	// NameContains is text the element's name must contain; empty matches
	// any name.
	NameContains string `json:"name_contains,omitempty"`
}

// DialogCondition matches the JavaScript dialog open on the page. At least
// one of its fields is set.
type DialogCondition struct {
	// Type is the dialog's kind: alert, confirm, prompt or beforeunload;
	// empty matches any.
	Type string `json:"type,omitempty"`
	// MessageContains is text the dialog's message must contain; empty
	// matches any message.
	MessageContains string `json:"message_contains,omitempty"`
}

// Match reports whether d, the dialog open on a page (nil: none), is one c
// describes.
func (c DialogCondition) Match(d *snapshot.Dialog) bool {
	if d == nil {
		return false
	}
	return (c.Type == "" || strings.EqualFold(d.Type, c.Type)) && containsFold(d.Message, c.MessageContains)
}

// conditionKeys are the JSON keys of the tests a condition may hold, in the
// order messages list them.
var conditionKeys = []string{"title_contains", "url_contains", "url_matches", "element", "text_contains", "dialog", "any", "all", "not"}

// Match reports whether c holds on s. A nil snapshot matches nothing but a
// not over something. It counts whatever the page holds, seen or not: the
// test for a checkpoint or a failure, which must hold wherever the page
// says it.
func (c Condition) Match(s *snapshot.Snapshot) bool { return c.eval(s, nil, false) }

// judge is how a success indicator is matched for a verdict: only on what a
// person sees, in a document whose origin may finish the task, and never
// on an echo of the agent's own input.
type judge struct {
	// allowed reports whether the document at a URL may show evidence.
	allowed func(document string) bool
	// echoes are what the agent put into the page, normalised (see
	// normalise): text it typed, and the decoded parts of page URLs.
	echoes []string
	// typed is what the agent typed, as typed, URLs it navigated to
	// included.
	typed []string
	// painted, when set, looks at the pixels of text the rules above let
	// through (see Evidence.Painted).
	painted func(nodes []int64, needle string, skip []string) bool
}

// shows reports whether text holds needle somewhere other than inside a
// repetition of something the agent put into the page: a search page that
// repeats the query, or a preview of what was typed, proves nothing, while
// the page's own words around the same phrase still do. Both compare
// normalised; an empty needle is anywhere.
func (j *judge) shows(text, needle string) bool {
	return j.showsIn(text, nil, needle)
}

// showsIn is shows on a run whose parts say which text node drew each
// stretch of it: with a painted check set, an occurrence counts only once
// the text nodes it spans are seen to paint it.
func (j *judge) showsIn(text string, parts []snapshot.SeenPart, needle string) bool {
	t, at := normaliseIndex(text)
	n := normalise(needle)
	if n == "" {
		return true
	}
	for i := 0; i <= len(t)-len(n); i++ {
		k := strings.Index(t[i:], n)
		if k < 0 {
			return false
		}
		i += k
		if j.covered(t, i, i+len(n)) {
			continue
		}
		if j.painted == nil || j.paintedAt(parts, at[i], at[i+len(n)-1]+1, needle) {
			return true
		}
	}
	return false
}

// paintedAt asks the painted check about the text nodes that draw
// text[from:to] of a run with parts. A run without parts (not of a judged
// capture) has nothing to look at, and counts as not painted.
func (j *judge) paintedAt(parts []snapshot.SeenPart, from, to int, needle string) bool {
	var nodes []int64
	for _, p := range parts {
		if p.To > from && p.From < to && p.Node != 0 && !slices.Contains(nodes, p.Node) {
			nodes = append(nodes, p.Node)
		}
	}
	if len(nodes) == 0 {
		return false
	}
	return j.painted(nodes, needle, j.echoes)
}

// covered reports whether t[from:to] lies within an occurrence in t of one
// of the echoes.
func (j *judge) covered(t string, from, to int) bool {
	for _, e := range j.echoes {
		if len(e) < to-from {
			continue
		}
		for start := max(0, to-len(e)); start <= from && start+len(e) <= len(t); start++ {
			if t[start:start+len(e)] == e {
				return true
			}
		}
	}
	return false
}

// normalise lowers s and collapses its white space, as text is compared.
func normalise(s string) string {
	n, _ := normaliseIndex(s)
	return n
}

// normaliseIndex is normalise, and for each byte of the result the offset
// in s of the byte it comes from, so that a match can be found in s again.
func normaliseIndex(s string) (string, []int) {
	var b strings.Builder
	at := make([]int, 0, len(s))
	space := false
	for i, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			at = append(at, i)
			space = false
		}
		n := b.Len()
		b.WriteRune(unicode.ToLower(r))
		for range b.Len() - n {
			at = append(at, i)
		}
	}
	return b.String(), at
}

// eval reports whether c holds on s. With strict set (j not nil) text and
// elements count only as j allows; under a not the test turns lenient, and
// back again under a second not, so that "not X" in a success indicator
// holds only where X holds nowhere, seen or not.
func (c Condition) eval(s *snapshot.Snapshot, j *judge, strict bool) bool {
	if s == nil {
		s = &snapshot.Snapshot{}
	}
	strict = strict && j != nil
	switch {
	case c.TitleContains != "":
		if strict {
			return j.shows(s.Page.Title, c.TitleContains)
		}
		return containsFold(s.Page.Title, c.TitleContains)
	case c.URLContains != "":
		if strict && slices.ContainsFunc(j.typed, func(t string) bool { return containsFold(t, c.URLContains) }) {
			return false
		}
		return containsFold(s.Page.URL, c.URLContains)
	case c.URLMatches != "":
		re := c.re
		if re == nil {
			var err error
			if re, err = compileFold(c.URLMatches); err != nil {
				return false
			}
		}
		if strict && slices.ContainsFunc(j.typed, re.MatchString) {
			return false
		}
		return re.MatchString(s.Page.URL)
	case c.Element != nil:
		for _, e := range s.Elements {
			if !strings.EqualFold(e.Role, c.Element.Role) {
				continue
			}
			if strict {
				if e.Seen && j.allowed(e.Document) && j.showsAnyOf(e, c.Element.NameContains) {
					return true
				}
			} else if containsFold(e.Name, c.Element.NameContains) {
				return true
			}
		}
		return false
	case c.TextContains != "":
		if strict {
			return seenText(s, j, c.TextContains)
		}
		if containsFold(s.Text, c.TextContains) || (s.Dialog != nil && containsFold(s.Dialog.Message, c.TextContains)) {
			return true
		}
		// A judged capture also holds all the text the layout draws, CSS
		// generated content included: a failure a stylesheet writes is
		// still a failure.
		if s.Seen != nil && slices.ContainsFunc(s.Seen.Drawn, func(d string) bool { return containsFold(d, c.TextContains) }) {
			return true
		}
		// A field's value is text the page shows too: a failure written
		// into a read-only field that looks like a line of text is still
		// a failure (Gate.Failures leaves out what the agent typed).
		for _, e := range s.Elements {
			if containsFold(e.Name, c.TextContains) || (e.Value != nil && containsFold(*e.Value, c.TextContains)) {
				return true
			}
		}
		return false
	case c.Dialog != nil:
		return c.Dialog.Match(s.Dialog)
	case c.Any != nil:
		return slices.ContainsFunc(c.Any, func(c Condition) bool { return c.eval(s, j, strict) })
	case c.All != nil:
		for _, sub := range c.All {
			if !sub.eval(s, j, strict) {
				return false
			}
		}
		return true
	case c.Not != nil:
		return !c.Not.eval(s, j, !strict && j != nil)
	}
	return false
}

// seenText reports whether a person sees text on s, in a document j
// allows, that the agent did not put there. A name that is not drawn (an
// aria-label, an image's alt) and a dialog's message (nothing says which
// frame opened it) do not count.
func seenText(s *snapshot.Snapshot, j *judge, text string) bool {
	if s.Seen == nil {
		return false
	}
	for _, t := range s.Seen.Text {
		if j.allowed(t.Document) && j.showsIn(t.Text, t.Parts, text) {
			return true
		}
	}
	return false
}

// showsAnyOf reports whether one of element e's seen runs shows needle
// (see showsIn). An empty needle asks only for the element: with a painted
// check, its text must be painted.
func (j *judge) showsAnyOf(e snapshot.Element, needle string) bool {
	for i, r := range e.SeenText {
		var parts []snapshot.SeenPart
		if i < len(e.SeenParts) {
			parts = e.SeenParts[i]
		}
		n := needle
		if n == "" && j.painted != nil {
			n = r
		}
		if j.showsIn(r, parts, n) {
			return true
		}
	}
	// Nothing drawn to look at (an image, an icon): the rules decide.
	return needle == "" && (j.painted == nil || len(e.SeenText) == 0)
}

// Describe says in plain words what c expects, e.g.
// `title contains "cancelled" or a heading whose name contains "cancelled"`.
func (c Condition) Describe() string {
	switch {
	case c.TitleContains != "":
		return fmt.Sprintf("title contains %q", c.TitleContains)
	case c.URLContains != "":
		return fmt.Sprintf("URL contains %q", c.URLContains)
	case c.URLMatches != "":
		return fmt.Sprintf("URL matches %q", c.URLMatches)
	case c.Element != nil:
		if c.Element.NameContains == "" {
			return "a " + c.Element.Role
		}
		return fmt.Sprintf("a %s whose name contains %q", c.Element.Role, c.Element.NameContains)
	case c.TextContains != "":
		return fmt.Sprintf("the page shows %q", c.TextContains)
	case c.Dialog != nil:
		return c.Dialog.describe()
	case c.Any != nil:
		return joinDescriptions(c.Any, " or ")
	case c.All != nil:
		return joinDescriptions(c.All, " and ")
	case c.Not != nil:
		return "not " + c.Not.describeNested()
	}
	return "nothing"
}

// Label is the rule's name if it has one, else its description.
func (c Condition) Label() string {
	if c.Name != "" {
		return c.Name
	}
	return c.Describe()
}

func (c Condition) describeNested() string {
	if len(c.Any) > 1 || len(c.All) > 1 {
		return "(" + c.Describe() + ")"
	}
	return c.Describe()
}

func joinDescriptions(cs []Condition, sep string) string {
	if len(cs) == 0 {
		return "nothing"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.describeNested()
	}
	return strings.Join(parts, sep)
}

// describe says in plain words which dialog c expects.
func (c DialogCondition) describe() string {
	kind := "a JavaScript"
	switch {
	case c.Type == "alert":
		kind = "an alert"
	case c.Type != "":
		kind = "a " + c.Type
	}
	if c.MessageContains == "" {
		return kind + " dialog"
	}
	return fmt.Sprintf("%s dialog whose message contains %q", kind, c.MessageContains)
}

// dialogTypes are the kinds of JavaScript dialog a page can open.
var dialogTypes = []string{"alert", "confirm", "prompt", "beforeunload"}

// describeAny describes a list of rules of which any one will do.
func describeAny(cs []Condition) string { return joinDescriptions(cs, " or ") }

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// MarshalJSON writes c in the profile format.
func (c Condition) MarshalJSON() ([]byte, error) {
	m := map[string]any{}
	if c.Name != "" {
		m["name"] = c.Name
	}
	switch {
	case c.TitleContains != "":
		m["title_contains"] = c.TitleContains
	case c.URLContains != "":
		m["url_contains"] = c.URLContains
	case c.URLMatches != "":
		m["url_matches"] = c.URLMatches
	case c.Element != nil:
		m["element"] = c.Element
	case c.TextContains != "":
		m["text_contains"] = c.TextContains
	case c.Dialog != nil:
		m["dialog"] = c.Dialog
	case c.Any != nil:
		m["any"] = c.Any
	case c.All != nil:
		m["all"] = c.All
	case c.Not != nil:
		m["not"] = c.Not
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads c from the profile format and checks it; its errors
// name the offending field relative to the condition, e.g.
// "element: role is required".
func (c *Condition) UnmarshalJSON(data []byte) error {
	parsed, err := parseCondition(data, "")
	if err != nil {
		return err
	}
	*c = parsed
	return nil
}

// FieldError is a problem with one field of a profile.
type FieldError struct {
	// Path locates the field, e.g. "checkpoints[1].element".
	Path string
	// Problem says what is wrong with it.
	Problem string
}

func (e *FieldError) Error() string {
	if e.Path == "" {
		return e.Problem
	}
	return e.Path + ": " + e.Problem
}

func fieldErr(path, format string, args ...any) error {
	return &FieldError{Path: path, Problem: fmt.Sprintf(format, args...)}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// parseCondition decodes one condition found at path.
func parseCondition(data []byte, path string) (Condition, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || raw == nil {
		return Condition{}, fieldErr(path, "must be an object with one of %s", strings.Join(conditionKeys, ", "))
	}
	var c Condition
	var set []string
	for key := range raw {
		if key == "name" || slices.Contains(conditionKeys, key) {
			continue
		}
		return Condition{}, fieldErr(join(path, key), "unknown field (a condition has one of %s)", strings.Join(conditionKeys, ", "))
	}
	for _, key := range conditionKeys {
		if _, ok := raw[key]; ok {
			set = append(set, key)
		}
	}
	if len(set) != 1 {
		if len(set) == 0 {
			return Condition{}, fieldErr(path, "needs one of %s", strings.Join(conditionKeys, ", "))
		}
		return Condition{}, fieldErr(path, "has %s; a condition tests exactly one thing (combine with all or any)", strings.Join(set, " and "))
	}
	if v, ok := raw["name"]; ok {
		if err := json.Unmarshal(v, &c.Name); err != nil {
			return Condition{}, fieldErr(join(path, "name"), "must be a string")
		}
	}
	key := set[0]
	p := join(path, key)
	v := raw[key]
	str := func(dst *string) error {
		if err := json.Unmarshal(v, dst); err != nil {
			return fieldErr(p, "must be a string")
		}
		if strings.TrimSpace(*dst) == "" {
			return fieldErr(p, "must not be empty")
		}
		return nil
	}
	list := func(dst *[]Condition) error {
		var items []json.RawMessage
		if err := json.Unmarshal(v, &items); err != nil {
			return fieldErr(p, "must be a list of conditions")
		}
		if len(items) == 0 {
			return fieldErr(p, "must not be empty")
		}
		*dst = make([]Condition, len(items))
		for i, item := range items {
			sub, err := parseCondition(item, fmt.Sprintf("%s[%d]", p, i))
			if err != nil {
				return err
			}
			(*dst)[i] = sub
		}
		return nil
	}
	var err error
	switch key {
	case "title_contains":
		err = str(&c.TitleContains)
	case "url_contains":
		err = str(&c.URLContains)
	case "text_contains":
		err = str(&c.TextContains)
	case "url_matches":
		if err = str(&c.URLMatches); err == nil {
			if c.re, err = compileFold(c.URLMatches); err != nil {
				err = fieldErr(p, "not a valid regular expression: %v", err)
			}
		}
	case "element":
		var e ElementCondition
		if err := decodeFields(v, p, "an element", []string{"role", "name_contains"}, &e); err != nil {
			return Condition{}, err
		}
		if strings.TrimSpace(e.Role) == "" {
			return Condition{}, fieldErr(p, "role is required")
		}
		c.Element = &e
	case "dialog":
		var d DialogCondition
		if err := decodeFields(v, p, "a dialog", []string{"type", "message_contains"}, &d); err != nil {
			return Condition{}, err
		}
		if strings.TrimSpace(d.Type) == "" && strings.TrimSpace(d.MessageContains) == "" {
			return Condition{}, fieldErr(p, "needs type or message_contains")
		}
		if d.Type != "" && !slices.Contains(dialogTypes, d.Type) {
			return Condition{}, fieldErr(join(p, "type"), "must be one of %s, got %q", strings.Join(dialogTypes, ", "), d.Type)
		}
		c.Dialog = &d
	case "any":
		err = list(&c.Any)
	case "all":
		err = list(&c.All)
	case "not":
		var sub Condition
		if sub, err = parseCondition(v, p); err == nil {
			c.Not = &sub
		}
	}
	if err != nil {
		return Condition{}, err
	}
	return c, nil
}

// decodeFields decodes the JSON object v found at path into dst, whose
// fields are keys, all strings; what names the object in messages ("an
// element").
func decodeFields(v json.RawMessage, path, what string, keys []string, dst any) error {
	var fields map[string]json.RawMessage
	if json.Unmarshal(v, &fields) != nil || fields == nil {
		return fieldErr(path, "must be an object with %s", strings.Join(keys, " and "))
	}
	for k := range fields {
		if !slices.Contains(keys, k) {
			return fieldErr(join(path, k), "unknown field (%s has %s)", what, strings.Join(keys, " and "))
		}
	}
	if json.Unmarshal(v, dst) != nil {
		return fieldErr(path, "%s must be strings", strings.Join(keys, " and "))
	}
	return nil
}
