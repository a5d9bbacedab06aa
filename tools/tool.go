package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/chaperone-mcp/chaperone/toolapi"
)

// tool is one tool as a session runs it: the definition a client sees, the
// type its arguments decode into, and what a call does.
type tool struct {
	def Definition
	// input is the type the arguments decode into; a test holds the
	// definition's input schema to it.
	input reflect.Type
	// run answers a call given its raw JSON arguments.
	run func(s *Session, ctx context.Context, args json.RawMessage) Output
	// capability is the one that turns the tool on (Config.Caps); "" for
	// a tool that is always on.
	capability string
	// unless is a capability that turns this entry off, for another entry
	// of the same name to stand in for it (vision.go).
	unless string
}

// optIn marks t as listed and callable only under the capability c.
func optIn(c string, t tool) tool {
	t.capability = c
	return t
}

// newTool pairs a definition with run, which gets the arguments decoded into
// an In. Arguments that do not decode get invalid's answer instead, since
// each tool tells the agent so in the shape of its own result.
func newTool[In any](def Definition, run func(*Session, context.Context, In) Output, invalid func(*Session, context.Context, error) Output) tool {
	return tool{
		def:   def,
		input: reflect.TypeFor[In](),
		run: func(s *Session, ctx context.Context, args json.RawMessage) Output {
			in, err := decode[In](args)
			if err != nil {
				return invalid(s, ctx, err)
			}
			return run(s, ctx, in)
		},
	}
}

// newAction is newTool for a tool that acts on the page: do runs under the
// result contract of act, and arguments that do not decode are refused
// under it too, as invalid_params.
func newAction[In any](def Definition, do func(*Session, context.Context, In) (string, error)) tool {
	return newTool(def,
		func(s *Session, ctx context.Context, in In) Output {
			return s.act(ctx, func(ctx context.Context) (string, error) { return do(s, ctx, in) })
		},
		func(s *Session, ctx context.Context, err error) Output {
			return s.act(ctx, func(context.Context) (string, error) { return "", fail(toolapi.InvalidParams, "%v", err) })
		})
}

// lookup returns the tool called name, if caps turn it on.
func lookup(name string, caps capSet) (tool, bool) {
	i := slices.IndexFunc(catalog, func(t tool) bool { return t.def.Name == name && caps.on(t) })
	if i < 0 {
		return tool{}, false
	}
	return catalog[i], true
}

// capSet is the set of opt-in capabilities a session has turned on.
type capSet map[string]bool

// on reports whether t is enabled: always-on, or under a capability of the
// set.
func (c capSet) on(t tool) bool {
	if t.unless != "" && (c[t.unless] || c[toolapi.CapAll]) {
		return false
	}
	return t.capability == "" || c[t.capability] || c[toolapi.CapAll]
}

// newCapSet checks capability names and returns their set. An unknown name
// is an error that lists the known ones.
func newCapSet(caps []string) (capSet, error) {
	known := toolapi.Capabilities()
	set := make(capSet, len(caps))
	for _, c := range caps {
		c = strings.ToLower(strings.TrimSpace(c))
		if !slices.Contains(known, c) {
			return nil, fmt.Errorf("unknown capability %q: want one of %s", c, strings.Join(known, ", "))
		}
		set[c] = true
	}
	return set, nil
}
