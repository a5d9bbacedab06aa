package server

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/tools"
)

// The OAuth scopes of the tools (an access token's scope claim). A call
// needs the scope of its tool's kind, and chaperone:caps as well when the
// tool, or the form of it that the call uses, is an opt-in capability.
const (
	// ScopeRead reads the page: snapshots, extraction, screenshots.
	ScopeRead = "chaperone:read"
	// ScopeAct acts: every tool that changes the page, the tabs or the
	// task, or asks a person.
	ScopeAct = "chaperone:act"
	// ScopeCaps is needed beside the others for the opt-in capabilities'
	// tools (--caps) and for their arguments (browser_click at x,y).
	ScopeCaps = "chaperone:caps"
)

// toolScopes says which of ScopeRead and ScopeAct each tool needs; the one
// place that decides it. A tool not listed needs every scope (a test keeps
// every tool listed, so a new tool is never callable with less than its
// author meant). A tool listed as read must be read-only in the tool table.
var toolScopes = map[string]string{
	toolapi.GetSnapshot: ScopeRead,
	toolapi.Extract:     ScopeRead,
	toolapi.WaitFor:     ScopeRead,
	toolapi.Screenshot:  ScopeRead,
	toolapi.PDF:         ScopeRead,
	toolapi.Console:     ScopeRead,
	toolapi.Network:     ScopeRead, // a body on request too: read-only

	toolapi.Click:           ScopeAct,
	toolapi.Fill:            ScopeAct,
	toolapi.Select:          ScopeAct,
	toolapi.Scroll:          ScopeAct, // loads more of an endless page; paced as an action
	toolapi.Navigate:        ScopeAct,
	toolapi.PressKey:        ScopeAct,
	toolapi.RequestApproval: ScopeAct, // asks a person, may hand the browser over
	toolapi.CompleteTask:    ScopeAct, // ends the task with a verdict
	toolapi.Tabs:            ScopeAct,
	toolapi.Hover:           ScopeAct,
	toolapi.Upload:          ScopeAct,
	toolapi.Drag:            ScopeAct,
	toolapi.Evaluate:        ScopeAct, // a script can do anything a click can
}

// scopePolicy is what each registered tool's calls need.
type scopePolicy struct {
	need map[string][]string // tool → scopes its every call needs
	// capArgs lists, per tool, the arguments a capability added to its
	// default form (browser_click's x, y under vision): a call that uses one
	// needs ScopeCaps.
	capArgs map[string][]string
	// supported lists the scopes some tool needs, for the resource's
	// metadata.
	supported []string
}

// newScopePolicy builds the policy of the tools defs, registered under
// the capabilities that made them; the default set tells which tools and
// arguments are opt-in.
func newScopePolicy(defs []tools.Definition) (*scopePolicy, error) {
	base, err := tools.DefinitionsFor(nil)
	if err != nil {
		return nil, err
	}
	baseProps := make(map[string][]string, len(base))
	for _, d := range base {
		baseProps[d.Name] = schemaProperties(d.InputSchema)
	}
	p := &scopePolicy{need: make(map[string][]string), capArgs: make(map[string][]string)}
	caps := false
	for _, d := range defs {
		kind, ok := toolScopes[d.Name]
		need := []string{kind}
		if !ok {
			need = []string{ScopeRead, ScopeAct, ScopeCaps}
		}
		props, inDefault := baseProps[d.Name]
		if !inDefault && !slices.Contains(need, ScopeCaps) {
			need = append(need, ScopeCaps)
		}
		if inDefault {
			for _, prop := range schemaProperties(d.InputSchema) {
				if !containsFold(props, prop) {
					p.capArgs[d.Name] = append(p.capArgs[d.Name], prop)
				}
			}
		}
		if slices.Contains(need, ScopeCaps) || len(p.capArgs[d.Name]) > 0 {
			caps = true
		}
		p.need[d.Name] = need
	}
	p.supported = []string{ScopeRead, ScopeAct}
	if caps {
		p.supported = append(p.supported, ScopeCaps)
	}
	return p, nil
}

// schemaProperties returns the names of an object schema's properties.
func schemaProperties(schema json.RawMessage) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// containsFold reports whether list holds s, ignoring case as
// encoding/json matches an object's keys to a struct's fields.
func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// required returns the scopes a call of the tool name with the arguments
// args needs, or nil for a tool that is not registered (the transport
// answers that it does not exist). Arguments are read as the tools decode
// them: keys match without regard to case.
func (p *scopePolicy) required(name string, args json.RawMessage) []string {
	need, ok := p.need[name]
	if !ok {
		return nil
	}
	if extra := p.capArgs[name]; len(extra) > 0 && !slices.Contains(need, ScopeCaps) {
		var obj map[string]json.RawMessage
		if json.Unmarshal(args, &obj) == nil {
			for k := range obj {
				if containsFold(extra, k) {
					return append(slices.Clone(need), ScopeCaps)
				}
			}
		}
	}
	return need
}

// grant is the scopes a request's access token carries; a request with no
// grant in its context (stdio, a static bearer token) may call every tool.
type grant struct{ scopes []string }

type grantKey struct{}

func withGrant(ctx context.Context, scopes []string) context.Context {
	return context.WithValue(ctx, grantKey{}, &grant{scopes: scopes})
}

// missingScopes returns the scopes of need that ctx's grant lacks; none
// when ctx has no grant.
func missingScopes(ctx context.Context, need []string) []string {
	g, ok := ctx.Value(grantKey{}).(*grant)
	if !ok {
		return nil
	}
	var missing []string
	for _, s := range need {
		if !slices.Contains(g.scopes, s) {
			missing = append(missing, s)
		}
	}
	return missing
}

// scopeMiddleware refuses a tool call that the request's access token does
// not allow. The HTTP guard refuses such calls first, with 403 and the
// scope to ask for; this check is on the name and arguments the server
// dispatches on, so that no reading of a request body can differ from the
// one that runs.
func (s *Server) scopeMiddleware(next mcpserver.ToolHandlerFunc) mcpserver.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := json.Marshal(req.GetRawArguments())
		if err != nil {
			return mcp.NewToolResultError(fmt.Sprintf("read the arguments of %s: %v", req.Params.Name, err)), nil
		}
		need := s.scopes.required(req.Params.Name, args)
		if state := req.Params.RequestState; strings.HasPrefix(state, statePrefix) {
			// A retry answers the call parked under its state, which runs
			// with that call's arguments: the grant must allow them too.
			if parked, ok := s.elicit.parkedArgs(state, sessionID(ctx), req.Params.Name); ok {
				for _, sc := range s.scopes.required(req.Params.Name, parked) {
					if !slices.Contains(need, sc) {
						need = append(slices.Clone(need), sc)
					}
				}
			}
		}
		if missing := missingScopes(ctx, need); len(missing) > 0 {
			s.log.Warn("refused: insufficient scope", "tool", req.Params.Name, "client", ClientFromContext(ctx), "missing", strings.Join(missing, " "))
			return mcp.NewToolResultError(fmt.Sprintf("insufficient_scope: %s needs the scopes %s", req.Params.Name, strings.Join(need, " "))), nil
		}
		return next(ctx, req)
	}
}
