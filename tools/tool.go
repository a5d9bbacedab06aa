package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
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
	// capability is the opt-in capability (Config.Caps) that turns the
	// tool on; "" for a default tool.
	capability string
}

// optIn marks t as an opt-in tool, on only under capability.
func optIn(capability string, t tool) tool {
	t.capability = capability
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
			return s.act(ctx, func(context.Context) (string, error) { return "", fail(InvalidParams, "%v", err) })
		})
}

// lookup returns the tool called name.
func lookup(name string) (tool, bool) {
	i := slices.IndexFunc(catalog, func(t tool) bool { return t.def.Name == name })
	if i < 0 {
		return tool{}, false
	}
	return catalog[i], true
}
