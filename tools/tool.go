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
	// input is the type the arguments decode into, from which the
	// definition's input schema and defaults are derived (schema.go).
	input reflect.Type
	// defaults are the input's defaults by JSON name, which Session.Call
	// fills in.
	defaults map[string]json.RawMessage
	// err says why the input schema could not be derived; such a tool
	// fails DefinitionsFor, so that no server starts with it.
	err error
	// run answers the call c, whose arguments are c.args.
	run func(s *Session, ctx context.Context, c *call) Output
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

// newTool pairs a definition with run, which gets the call and its
// arguments decoded into an In. Arguments that do not decode get invalid's
// answer instead, since each tool tells the agent so in the shape of its own
// result.
func newTool[In any](def Definition, run func(*Session, context.Context, *call, In) Output, invalid func(*Session, context.Context, *call, error) Output) tool {
	t := tool{
		def:   def,
		input: reflect.TypeFor[In](),
		run: func(s *Session, ctx context.Context, c *call) Output {
			in, err := decode[In](c.args)
			if err != nil {
				return invalid(s, ctx, c, err)
			}
			return run(s, ctx, c, in)
		},
	}
	if def.InputSchema != nil {
		// One source of truth: a schema written by hand would be
		// replaced unseen, and drift from the type.
		t.err = fmt.Errorf("tool %s: its input schema is derived from %s: describe the arguments with the type's tags (schema.go), not in the definition", def.Name, t.input)
		return t
	}
	t.def.InputSchema, t.defaults, t.err = inputSchema(t.input)
	if t.err != nil {
		t.err = fmt.Errorf("tool %s: %w", def.Name, t.err)
	}
	return t
}

// newAction is newTool for a tool that acts on the page: do runs under the
// result contract of act, and arguments that do not decode are refused
// under it too, as invalid_params.
func newAction[In any](def Definition, do func(*Session, context.Context, *call, In) (string, error)) tool {
	return newTool(def,
		func(s *Session, ctx context.Context, c *call, in In) Output {
			return s.act(ctx, c, func(ctx context.Context) (string, error) { return do(s, ctx, c, in) })
		},
		func(s *Session, ctx context.Context, c *call, err error) Output {
			return s.act(ctx, c, func(context.Context) (string, error) { return "", fail(toolapi.InvalidParams, "%v", err) })
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
	return t.capability == "" || c[t.capability] || (c[toolapi.CapAll] && !toolapi.Named(t.capability))
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
