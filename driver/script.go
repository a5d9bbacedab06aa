package driver

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// ScriptName is the file a successful run writes beside its session log:
// the steps that worked, for `chaperone replay`. A replay that had to
// recover steps writes the next version as script.v<N>.json beside its own
// session log.
const ScriptName = "script.json"

// ScriptFormat is the version of the script format (not of one script).
// Format 2 added Start and Profile; a format 1 script still reads, and
// replays where it is told to.
const ScriptFormat = 2

//go:embed script.schema.json
var scriptSchemaJSON []byte

// ScriptSchema returns the JSON Schema (2020-12) of a script.
func ScriptSchema() []byte { return append([]byte(nil), scriptSchemaJSON...) }

// Script is a recorded flow: the tool calls that worked, in order, each
// with what it acted on described so that it can be found again on a page
// whose refs, ids and classes have changed.
type Script struct {
	// Format is ScriptFormat.
	Format int `json:"format"`
	// Version is 1 for a recorded script, and one more for each replay that
	// had to recover steps.
	Version int    `json:"version"`
	Goal    string `json:"goal"`
	// StartURL is the page the recorded run started on, as the browser
	// saw it. A replay maps its origin to the one it starts on, so that
	// the steps' recorded pages still bind.
	StartURL string `json:"start_url,omitempty"`
	ScriptOrigin
	// Plan is the plan a person approved the recorded run with (run
	// --plan), asked again before a replay's first step.
	Plan  *ScriptPlan  `json:"plan,omitempty"`
	Steps []ScriptStep `json:"steps"`
}

// ScriptOrigin is where and under which rules a run started, in a form that
// starts the same way on another day: what `chaperone replay` uses unless
// told otherwise.
type ScriptOrigin struct {
	// Start is the start URL as given, or demo:/path for a page of the
	// embedded demo site, which a replay serves afresh.
	Start string `json:"start,omitempty"`
	// Profile is a built-in profile's name or a profile file's absolute
	// path; empty for the default policy. Never "none": a script cannot
	// turn the checkpoints off.
	Profile string `json:"profile,omitempty"`
}

// ScriptStep is one tool call of a script.
type ScriptStep struct {
	Tool string `json:"tool"`
	// Args are the call's arguments but the ref. A typed value is as the
	// agent wrote it, a secret as its {{NAME}} placeholder; a password
	// typed in the clear is never written (ValueWithheld is set instead).
	Args json.RawMessage `json:"args,omitempty"`
	// ValueWithheld says that the value was a password, left out: a replay
	// asks the model, which asks for it.
	ValueWithheld bool `json:"value_withheld,omitempty"`
	// Target is the element the call acted on, if it had a ref.
	Target *StepTarget `json:"target,omitempty"`
	// Before is the page the step was taken on.
	Before PageState `json:"before"`
}

// StepTarget describes an element the ways a replay may find it again, in
// the order it tries them: role and accessible name, the label the page
// text gives it, the text it shows, its DOM id, its CSS path; and, whichever
// way, in the frame it was in. A ref is never recorded: refs die with their
// snapshot.
type StepTarget struct {
	Role string `json:"role"`
	Name string `json:"name,omitempty"`
	// Label is the plain text the page shows right before the element
	// ("Username:"), which names a field with no name of its own.
	Label string `json:"label,omitempty"`
	// Text is what the element shows inside it in the page text.
	Text string `json:"text,omitempty"`
	// Kind is an input's kind (password, date, …), as the snapshot says.
	Kind string `json:"kind,omitempty"`
	// ID is the element's DOM id and CSS a short CSS path to it, as the
	// snapshot gives them.
	ID  string `json:"id,omitempty"`
	CSS string `json:"css,omitempty"`
	// Frame is the URL of the element's document (without query) when it
	// is not the main frame's.
	Frame string `json:"frame,omitempty"`
}

// PageState is what a page looked like: its URL as a pattern (scheme and
// host, then the path; no query, which often holds one-time tokens) and its
// title.
type PageState struct {
	URL   string `json:"url"`
	Title string `json:"title"`
}

// String describes the target for logs and prompts.
func (t *StepTarget) String() string {
	if t == nil {
		return "(no element)"
	}
	return fmt.Sprintf("%s %q", t.Role, firstNonEmpty(t.Name, t.Label, t.Text))
}

// ValidateScript checks a script's JSON against ScriptSchema.
func ValidateScript(data []byte) error {
	var s jsonschema.Schema
	if err := json.Unmarshal(scriptSchemaJSON, &s); err != nil {
		return fmt.Errorf("script schema: %w", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return fmt.Errorf("script schema: %w", err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("script JSON: %w", err)
	}
	if err := rs.Validate(v); err != nil {
		return fmt.Errorf("script does not match the schema: %w", err)
	}
	return nil
}

// ReadScript reads and validates a script file.
func ReadScript(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read script: %w", err)
	}
	if err := ValidateScript(data); err != nil {
		return nil, fmt.Errorf("read script %s: %w", path, err)
	}
	var s Script
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("read script %s: %w", path, err)
	}
	return &s, nil
}

// urlPattern is a URL without its query and fragment.
func urlPattern(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return u.String()
}

// pageState is what before says of its page.
func pageState(before *snapshot.Snapshot) PageState {
	if before == nil {
		return PageState{}
	}
	return PageState{URL: urlPattern(before.Page.URL), Title: before.Page.Title}
}

// stepOf turns a tool call that worked into a script step: the target read
// from before, the snapshot the call's ref came from, and the arguments
// without the ref, redacted. It reports false for a call not worth
// replaying (get_snapshot), or whose ref before does not show.
func stepOf(name string, input json.RawMessage, before *snapshot.Snapshot, red *redactor) (ScriptStep, bool) {
	if name == toolapi.GetSnapshot {
		return ScriptStep{}, false
	}
	var args map[string]any
	if len(input) > 0 && json.Unmarshal(input, &args) != nil {
		return ScriptStep{}, false
	}
	step := ScriptStep{Tool: name, Before: pageState(before)}
	if ref, _ := args["ref"].(string); ref != "" {
		e, ok := before.Element(ref)
		if !ok {
			return ScriptStep{}, false
		}
		step.Target = targetOf(before, e)
		delete(args, "ref")
		if v, ok := args["value"].(string); ok && e.Kind == passwordKind && !isPlaceholder(v) {
			delete(args, "value")
			step.ValueWithheld = true
		}
	}
	if len(args) > 0 {
		raw, err := json.Marshal(args)
		if err != nil {
			return ScriptStep{}, false
		}
		step.Args = red.JSON(raw)
	}
	return step, true
}

// isPlaceholder reports whether v is a secret's {{NAME}} and nothing else.
func isPlaceholder(v string) bool {
	return strings.HasPrefix(v, "{{") && strings.HasSuffix(v, "}}") && !strings.Contains(v[2:len(v)-2], "}")
}

// targetOf describes e, an element of s.
func targetOf(s *snapshot.Snapshot, e snapshot.Element) *StepTarget {
	t := &StepTarget{Role: e.Role, Kind: e.Kind, Label: labelOf(s, e.Ref), Text: inlineText(s, e.Ref), ID: e.DOMID, CSS: e.CSS}
	if e.Frame != "" {
		t.Frame = urlPattern(e.Frame)
	}
	if e.NameSource == "" {
		t.Name = e.Name
	}
	return t
}

// labelOf is the plain text right before ref's "[@eN" in the page text, on
// the same line and after any earlier element: "Username: [@e5]" gives
// "Username".
func labelOf(s *snapshot.Snapshot, ref string) string {
	i := refIndex(s.Text, ref)
	if i < 0 {
		return ""
	}
	before := s.Text[:i]
	before = before[strings.LastIndexAny(before, "\n]")+1:]
	return strings.TrimRight(strings.TrimSpace(before), ": *")
}

// inlineText is the text the page text shows inside ref's brackets:
// "[@e5 Log in]" gives "Log in".
func inlineText(s *snapshot.Snapshot, ref string) string {
	i := refIndex(s.Text, ref)
	if i < 0 {
		return ""
	}
	rest := s.Text[i+1+len(ref):]
	if !strings.HasPrefix(rest, " ") {
		return ""
	}
	end := strings.IndexByte(rest, ']')
	if end < 0 {
		return ""
	}
	return strings.TrimSpace(rest[:end])
}

// refIndex is where "[ref" starts in text, followed by a space or "]".
func refIndex(text, ref string) int {
	for from := 0; ; {
		i := strings.Index(text[from:], "["+ref)
		if i < 0 {
			return -1
		}
		i += from
		if j := i + 1 + len(ref); j < len(text) && (text[j] == ' ' || text[j] == ']') {
			return i
		}
		from = i + 1
	}
}

// origin is the scheme, host and port of a URL or URL pattern, or "" when
// it has none (about:blank, a data: URL).
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

// samePage reports whether a page at now is the page a step was recorded on
// (recorded, a URL pattern): the same origin, and the same path, where a
// segment holding a digit (an order number, a date, an id) may hold
// another. Otherwise it says where each is.
func samePage(recorded, now string) (bool, string) {
	was, is := urlPattern(recorded), urlPattern(now)
	why := fmt.Sprintf("the page is %s, but the step was recorded on %s", is, was)
	if origin(was) == "" || origin(was) != origin(is) {
		return false, why
	}
	wu, err1 := url.Parse(was)
	nu, err2 := url.Parse(is)
	if err1 != nil || err2 != nil {
		return false, why
	}
	ws, ns := strings.Split(strings.Trim(wu.Path, "/"), "/"), strings.Split(strings.Trim(nu.Path, "/"), "/")
	if len(ws) != len(ns) {
		return false, why
	}
	for i := range ws {
		if ws[i] != ns[i] && !(hasDigit(ws[i]) && hasDigit(ns[i])) {
			return false, why
		}
	}
	return true, ""
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// typesSecret reports whether a call's arguments type a secret: a {{NAME}}
// placeholder in any of them, or a value for a password field of before.
func typesSecret(input json.RawMessage, before *snapshot.Snapshot) bool {
	var args map[string]any
	if json.Unmarshal(input, &args) != nil {
		return len(input) > 0 // unreadable: treat as the worst case
	}
	for _, v := range args {
		if s, ok := v.(string); ok && strings.Contains(s, "{{") {
			return true
		}
	}
	ref, _ := args["ref"].(string)
	_, hasValue := args["value"]
	if before == nil {
		return hasValue
	}
	if e, ok := before.Element(ref); ok && hasValue && e.Kind == passwordKind {
		return true
	}
	return false
}

// recordedOrigin is the origin a step acted on: its element's frame's, or
// else its page's; "" when the script does not say.
func (st ScriptStep) recordedOrigin() string {
	if st.Target != nil && st.Target.Frame != "" {
		return origin(st.Target.Frame)
	}
	return origin(st.Before.URL)
}

// secretStep reports whether a step types a secret or a password.
func (st ScriptStep) secretStep() bool {
	return st.ValueWithheld || strings.Contains(string(st.Args), "{{")
}

// find returns the refs of the elements of s that t describes, and which
// way found them: the first way that finds any decides, so two buttons
// with the same role and name are ambiguous even if their labels differ.
// An element in another frame than the recorded one never matches, nor
// does one in a frame when the recorded one was in the page itself: a page
// can hold a same-named field in a frame of another site.
func (t *StepTarget) find(s *snapshot.Snapshot) ([]string, string) {
	same := func(a, b string) bool { return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b)) }
	ways := []struct {
		name string
		use  bool
		ok   func(e snapshot.Element) bool
	}{
		{"role and name", t.Name != "", func(e snapshot.Element) bool {
			return e.Role == t.Role && e.NameSource == "" && same(e.Name, t.Name)
		}},
		{"label", t.Label != "", func(e snapshot.Element) bool { return e.Role == t.Role && same(labelOf(s, e.Ref), t.Label) }},
		{"text", t.Text != "", func(e snapshot.Element) bool { return same(inlineText(s, e.Ref), t.Text) }},
		{"id", t.ID != "", func(e snapshot.Element) bool { return e.Role == t.Role && e.DOMID == t.ID }},
		{"css path", t.CSS != "", func(e snapshot.Element) bool { return e.Role == t.Role && e.CSS == t.CSS }},
	}
	for _, w := range ways {
		if !w.use {
			continue
		}
		var refs []string
		for _, e := range s.Elements {
			if urlPattern(e.Frame) != t.Frame {
				continue
			}
			if w.ok(e) {
				refs = append(refs, e.Ref)
			}
		}
		if len(refs) > 0 {
			return refs, w.name
		}
	}
	return nil, ""
}
