// Package checkpoint keeps a human in charge of the steps that matter. It
// holds profiles (one site or task as data: start URL, allowed origins,
// checkpoint conditions, actions gated on any page, success and failure
// indicators; the built-in "default" profile is the policy that applies when
// no other is chosen), the conditions evaluated over snapshots, the gate that
// stops a state-changing action on a checkpoint page, or one a rule gates,
// until a human approves that very action, and completion verification.
// How a human is reached is not its business: it asks through the Approver
// interface (package approver holds the web console, the terminal and the
// webhook), and records decisions through a Recorder (package audit).
//
// Nothing here is ever approved automatically: only an Approver, which talks
// to a human over a channel the model cannot reach, can approve.
package checkpoint

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"slices"
	"strings"
)

//go:embed profiles/*.json profile.schema.json
var embedded embed.FS

// DemoScheme is the start_url scheme, and the allowed_origins entry, that
// stand for the embedded demo site: "demo:/account" is the account page of the
// site the process serves on a loopback port. WithDemoSite replaces them.
const DemoScheme = "demo:"

// Profile describes one site or task: where it starts, where the agent may
// go, and which pages are checkpoints or say it succeeded or failed.
// Profiles are JSON files described by the schema ProfileSchema returns.
type Profile struct {
	// Name identifies the profile.
	Name string `json:"name"`
	// StartURL is where a session starts: an absolute http(s) URL, or
	// demo:/path for the embedded demo site (see WithDemoSite). It is empty
	// in a profile that is a policy only, like the built-in default: the
	// session then starts wherever the command is told to.
	StartURL string `json:"start_url,omitempty"`
	// AllowedOrigins are the origins the agent may visit.
	AllowedOrigins []string `json:"allowed_origins,omitempty"`
	// Guidance is text for the driver's system prompt.
	Guidance string `json:"guidance,omitempty"`
	// Checkpoints are the pages on which every state-changing action needs a
	// human's approval; each rule's Name labels it.
	Checkpoints []Condition `json:"checkpoints,omitempty"`
	// SuccessIndicators: a claimed success is acknowledged only when one of
	// them holds.
	SuccessIndicators []Condition `json:"success_indicators,omitempty"`
	// FailureIndicators are signs that the task failed; the ones that hold
	// are reported and logged.
	FailureIndicators []Condition `json:"failure_indicators,omitempty"`
	// GatedActions are the actions that need a human's approval on any
	// page: clicks that buy or delete, fills into payment-card fields.
	GatedActions []ActionRule `json:"gated_actions,omitempty"`
	// MaxTurns bounds the driver's conversation; 0 means its default.
	MaxTurns int `json:"max_turns,omitempty"`
	// Consent says what a session does with a cookie banner (consent.go).
	Consent Consent `json:"consent,omitempty"`
}

// BuiltinProfiles lists the names LoadProfile accepts besides file paths.
func BuiltinProfiles() []string {
	entries, err := fs.ReadDir(embedded, "profiles")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".json"))
	}
	return names
}

// ProfileSchema returns the JSON Schema (draft 2020-12) of a profile file.
func ProfileSchema() []byte {
	b, err := embedded.ReadFile("profile.schema.json")
	if err != nil {
		return nil
	}
	return b
}

// LoadProfile returns the built-in profile called nameOrPath ("default",
// "demo", "netflix"), or else reads the profile file at that path. A bad file's error
// names the file, the rule and the field, e.g.
// "profile x.json: checkpoints[1].element: role is required".
func LoadProfile(nameOrPath string) (*Profile, error) {
	if slices.Contains(BuiltinProfiles(), nameOrPath) {
		data, err := embedded.ReadFile("profiles/" + nameOrPath + ".json")
		if err != nil {
			return nil, fmt.Errorf("built-in profile %s: %w", nameOrPath, err)
		}
		p, err := ParseProfile(data)
		if err != nil {
			return nil, fmt.Errorf("built-in profile %s: %w", nameOrPath, err)
		}
		return p, nil
	}
	data, err := os.ReadFile(nameOrPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(nameOrPath, `/\.`) {
			return nil, fmt.Errorf("profile %q: no built-in profile of that name (built-in: %s) and no such file",
				nameOrPath, strings.Join(BuiltinProfiles(), ", "))
		}
		return nil, fmt.Errorf("profile: %w", err)
	}
	p, err := ParseProfile(data)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", nameOrPath, err)
	}
	return p, nil
}

// profileKeys are the fields a profile may have.
var profileKeys = []string{"name", "start_url", "allowed_origins", "guidance", "checkpoints", "success_indicators", "failure_indicators", "gated_actions", "max_turns", "consent", "$schema"}

// ParseProfile decodes and checks a profile. Its errors are *FieldError
// values naming the field, e.g. "checkpoints[1].element: role is required".
func ParseProfile(data []byte) (*Profile, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
			return nil, fmt.Errorf("not valid JSON (line %d): %w", line, err)
		}
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if raw == nil {
		return nil, errors.New("not a JSON object")
	}
	for key := range raw {
		if !slices.Contains(profileKeys, key) {
			return nil, fieldErr(key, "unknown field")
		}
	}
	var p Profile
	str := func(key string, dst *string, required bool) error {
		v, ok := raw[key]
		if !ok {
			if required {
				return fieldErr(key, "is required")
			}
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return fieldErr(key, "must be a string")
		}
		if required && strings.TrimSpace(*dst) == "" {
			return fieldErr(key, "must not be empty")
		}
		return nil
	}
	rules := func(key string, dst *[]Condition) error {
		v, ok := raw[key]
		if !ok {
			return nil
		}
		var items []json.RawMessage
		if err := json.Unmarshal(v, &items); err != nil {
			return fieldErr(key, "must be a list of conditions")
		}
		for i, item := range items {
			c, err := parseCondition(item, fmt.Sprintf("%s[%d]", key, i))
			if err != nil {
				return err
			}
			*dst = append(*dst, c)
		}
		return nil
	}
	if err := errors.Join(
		str("name", &p.Name, true),
		str("start_url", &p.StartURL, false),
		str("guidance", &p.Guidance, false),
	); err != nil {
		return nil, firstErr(err)
	}
	if _, ok := raw["start_url"]; ok && strings.TrimSpace(p.StartURL) == "" {
		return nil, fieldErr("start_url", "must not be empty")
	}
	if v, ok := raw["allowed_origins"]; ok {
		if err := json.Unmarshal(v, &p.AllowedOrigins); err != nil {
			return nil, fieldErr("allowed_origins", "must be a list of strings")
		}
	}
	if v, ok := raw["max_turns"]; ok {
		if err := json.Unmarshal(v, &p.MaxTurns); err != nil || p.MaxTurns < 1 {
			return nil, fieldErr("max_turns", "must be a whole number of at least 1")
		}
	}
	if err := errors.Join(
		rules("checkpoints", &p.Checkpoints),
		rules("success_indicators", &p.SuccessIndicators),
		rules("failure_indicators", &p.FailureIndicators),
	); err != nil {
		return nil, firstErr(err)
	}
	if v, ok := raw["gated_actions"]; ok {
		var items []json.RawMessage
		if err := json.Unmarshal(v, &items); err != nil {
			return nil, fieldErr("gated_actions", "must be a list of action rules")
		}
		for i, item := range items {
			r, err := parseActionRule(item, fmt.Sprintf("gated_actions[%d]", i))
			if err != nil {
				return nil, err
			}
			p.GatedActions = append(p.GatedActions, r)
		}
	}
	var consent string
	if err := str("consent", &consent, false); err != nil {
		return nil, err
	}
	if consent != "" {
		c, err := parseConsent(consent)
		if err != nil {
			return nil, err
		}
		p.Consent = c
	}
	if err := p.validateURLs(); err != nil {
		return nil, err
	}
	return &p, nil
}

// firstErr unwraps an errors.Join to its first error, so that a message
// names one problem at a time.
func firstErr(err error) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		if errs := j.Unwrap(); len(errs) > 0 {
			return errs[0]
		}
	}
	return err
}

func (p *Profile) validateURLs() error {
	switch rest, demo := strings.CutPrefix(p.StartURL, DemoScheme); {
	case p.StartURL == "":
		// A policy only: it starts nowhere in particular.
	case demo:
		if rest != "" && !strings.HasPrefix(rest, "/") {
			return fieldErr("start_url", "a demo site URL is %s/path, got %q", DemoScheme, p.StartURL)
		}
	default:
		u, err := url.Parse(p.StartURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fieldErr("start_url", "must be an absolute http(s) URL or %s/path, got %q", DemoScheme, p.StartURL)
		}
	}
	for i, o := range p.AllowedOrigins {
		if o == DemoScheme {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return fieldErr(fmt.Sprintf("allowed_origins[%d]", i), "must be an origin like https://example.com, got %q", o)
		}
	}
	return nil
}

// UsesDemoSite reports whether the profile's start URL is on the embedded
// demo site, which the process must then serve itself.
func (p *Profile) UsesDemoSite() bool { return strings.HasPrefix(p.StartURL, DemoScheme) }

// WithDemoSite returns a copy of p in which the demo: start URL and allowed
// origin point at the demo site served at baseURL (e.g.
// "http://127.0.0.1:41234"). A profile that does not use the demo site is
// returned unchanged.
func (p *Profile) WithDemoSite(baseURL string) (*Profile, error) {
	if !p.UsesDemoSite() {
		return p, nil
	}
	base, err := url.Parse(baseURL)
	if err != nil || base.Scheme == "" || base.Host == "" {
		return nil, fmt.Errorf("demo site URL %q: not an absolute URL", baseURL)
	}
	q := *p
	path := strings.TrimPrefix(p.StartURL, DemoScheme)
	if path == "" {
		path = "/"
	}
	q.StartURL = base.Scheme + "://" + base.Host + path
	q.AllowedOrigins = nil
	for _, o := range p.AllowedOrigins {
		if o == DemoScheme {
			o = base.Scheme + "://" + base.Host
		}
		q.AllowedOrigins = append(q.AllowedOrigins, o)
	}
	return &q, nil
}
