package tools

import (
	"context"
	"fmt"

	"github.com/chaperone-mcp/chaperone/devtools"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// The developer's view (--caps devtools): the console and network of the
// session's pages, kept by a devtools.Log the browser feeds, read here with
// the session's secrets masked (docs/architecture.md, "Packages").

// consoleInput is the arguments of browser_console.
type consoleInput struct {
	Level string `json:"level,omitempty" schema:"enum=debug|info|warning|error"`
	All   bool   `json:"all,omitempty"`
}

// networkInput is the arguments of browser_network: filters, or one
// request's id with body.
type networkInput struct {
	All    bool   `json:"all,omitempty"`
	URL    string `json:"url,omitempty"`
	Method string `json:"method,omitempty"`
	Type   string `json:"type,omitempty"`
	Failed bool   `json:"failed,omitempty"`
	ID     string `json:"id,omitempty"`
	Body   bool   `json:"body,omitempty"`
}

// watchDevtools feeds the session's developer's view from its tab, when
// a capability turns it on.
func (s *Session) watchDevtools() {
	if !s.caps.on(tool{capability: toolapi.CapDevtools}) {
		return
	}
	if s.devtools == nil {
		s.devtools = devtools.New(devtools.Limits{})
	}
	s.tab.Watch(s.devtools)
}

// query is a devtools query on the current page, masked with the
// session's secrets and their parts (secrets.redactParts).
func (s *Session) query(all bool) devtools.Query {
	return devtools.Query{Page: s.tab.PageID(), All: all, Mask: s.secrets.redactParts(), Pieces: s.secrets.hide.Pieces}
}

// console runs browser_console.
func (s *Session) console(_ context.Context, _ *call, in consoleInput) Output {
	switch in.Level {
	case "", "debug", "info", "warning", "error":
	default:
		return devtoolsInvalid(fmt.Sprintf("level must be debug, info, warning or error, not %q.", s.clip(in.Level, 40)))
	}
	q := s.query(in.All)
	q.Level = in.Level
	return Output{Value: s.devtools.Console(q)}
}

// network runs browser_network.
func (s *Session) network(ctx context.Context, _ *call, in networkInput) Output {
	if in.Body || in.ID != "" {
		return s.requestDetail(ctx, in)
	}
	q := s.query(in.All)
	q.URL, q.Method, q.Type, q.Failed = in.URL, in.Method, in.Type, in.Failed
	return Output{Value: s.devtools.Network(q)}
}

// requestDetail answers browser_network with an id: the request's headers
// and, with body, its bodies, fetched from the browser now.
func (s *Session) requestDetail(ctx context.Context, in networkInput) Output {
	if in.ID == "" {
		return devtoolsInvalid("body needs the id of a request (r12) from an earlier browser_network answer.")
	}
	q := s.query(false)
	r, ok := s.devtools.Request(q.Page, in.ID)
	if !ok {
		return devtoolsInvalid(fmt.Sprintf("no request %s of this tab is kept: take an id from browser_network's newest answer.", s.clip(in.ID, 40)))
	}
	var b devtools.Bodies
	if in.Body {
		ctx, cancel := context.WithTimeout(ctx, s.config.SnapshotTimeout)
		defer cancel()
		var err error
		if b, err = s.tab.Bodies(ctx, r.Key, r.HasPostData); err != nil {
			b.Note = "No body: " + err.Error() + "."
		}
		if r.PostData != nil && b.Request == nil {
			b.Request = r.PostData
		}
	}
	return Output{Value: devtools.Describe(q, r, b)}
}

// devtoolsRefusal is the developer's view's answer to arguments it cannot
// read: no snapshot, since it reads no page.
type devtoolsRefusal struct {
	Success bool          `json:"success"`
	Error   *toolapi.Code `json:"error"`
	Message string        `json:"message"`
}

// Render is the refusal as the model reads it.
func (r devtoolsRefusal) Render() string {
	return "error: " + string(*r.Error) + "\n" + r.Message + "\n"
}

// devtoolsInvalid answers arguments the developer's view cannot read.
func devtoolsInvalid(msg string) Output {
	return Output{Value: devtoolsRefusal{Error: code(toolapi.InvalidParams), Message: msg}}
}

// devtoolsArgsInvalid answers arguments that do not decode.
func (s *Session) devtoolsArgsInvalid(_ context.Context, _ *call, err error) Output {
	return devtoolsInvalid(fmt.Sprintf("%v", err))
}
