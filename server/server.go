// Package server puts the tools on the Model Context Protocol with mcp-go:
// it registers the tools, maps every MCP client connection to its own
// browser session, serves stdio, streamable HTTP and SSE, and guards the HTTP
// listener (Host and Origin checks, bearer token).
package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/tools"
)

// Session is one client's browser session; *tools.Session is one.
type Session interface {
	// Call runs a tool; see tools.Session.Call.
	Call(ctx context.Context, name string, args json.RawMessage) (tools.Output, error)
	// Close closes the session's browser context.
	Close() error
}

// Config says how a Server behaves.
type Config struct {
	// NewSession opens a browser session for a client that calls its first
	// tool, or for the client of stdio as it connects. ctx bounds the
	// opening only.
	NewSession func(ctx context.Context) (Session, error)
	// MaxSessions bounds the browser sessions open at once; a client over
	// the limit gets an error result. Zero means 10; negative, no limit.
	MaxSessions int
	// SessionIdle closes a browser session that had no call for this long;
	// the client's next call opens a fresh one. Zero never closes one for
	// idleness.
	SessionIdle time.Duration
	// Version is reported to clients in the initialize result.
	Version string
	// Text is how a result's text content reads: TextCompact (the default)
	// or TextJSON. Structured content is the JSON either way.
	Text TextFormat
	// Caps turns on opt-in tools (tools.Config.Caps): the server lists
	// the tools of tools.DefinitionsFor(Caps). Give it the sessions' Caps.
	Caps []string
	// Logger receives the server's log; nil discards it.
	Logger *slog.Logger
}

// TextFormat is how a tool result's text content reads.
type TextFormat string

// The text formats; both carry the same JSON as structured content.
const (
	// TextCompact renders a snapshot, alone or in an action result, as
	// compact lines (snapshot.Snapshot.Render), which cost a model far fewer
	// tokens than the JSON; other results stay their short JSON.
	TextCompact TextFormat = "compact"
	// TextJSON repeats the structured content's JSON, for clients that parse
	// the text.
	TextJSON TextFormat = "json"
)

// Server is the MCP server: one mcp-go server with the tools, and the
// browser sessions of its clients.
type Server struct {
	mcp      *mcpserver.MCPServer
	log      *slog.Logger
	text     TextFormat
	sessions *registry
	idle     time.Duration
	// outputs holds each tool's compiled output schema.
	outputs map[string]*jsonschema.Resolved
	// elicit asks a client's human through MCP elicitation.
	elicit *ElicitationApprover
	// owners records the client that opened each MCP session.
	owners *owners
	// scopes says which OAuth scopes each tool's calls need.
	scopes *scopePolicy
}

// New builds a Server that registers the tools of
// tools.DefinitionsFor(cfg.Caps).
func New(cfg Config) (*Server, error) {
	if cfg.NewSession == nil {
		return nil, errors.New("new server: Config.NewSession is nil")
	}
	defs, err := tools.DefinitionsFor(cfg.Caps)
	if err != nil {
		return nil, fmt.Errorf("new server: %w", err)
	}
	if cfg.MaxSessions == 0 {
		cfg.MaxSessions = 10
	}
	switch cfg.Text {
	case "":
		cfg.Text = TextCompact
	case TextCompact, TextJSON:
	default:
		return nil, fmt.Errorf("new server: text format %q is neither %q nor %q", cfg.Text, TextCompact, TextJSON)
	}
	scopes, err := newScopePolicy(defs)
	if err != nil {
		return nil, fmt.Errorf("new server: %w", err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		scopes:   scopes,
		log:      log,
		text:     cfg.Text,
		sessions: newRegistry(cfg.NewSession, cfg.MaxSessions, cfg.SessionIdle, log),
		idle:     cfg.SessionIdle,
		outputs:  make(map[string]*jsonschema.Resolved),
		elicit:   NewElicitationApprover(log),
		owners:   newOwners(),
	}
	hooks := &mcpserver.Hooks{}
	hooks.AddOnRegisterSession(func(ctx context.Context, cs mcpserver.ClientSession) {
		// An SSE session registers before its id is sent: bound here, to
		// the client of the request that opens it.
		client := identityFromContext(ctx)
		s.owners.bind(cs.SessionID(), client)
		s.sessions.connect(cs.SessionID())
		log.Debug("client connected", "client", client.name, "mcp_session", ShortID(cs.SessionID()))
	})
	hooks.AddOnUnregisterSession(func(ctx context.Context, cs mcpserver.ClientSession) {
		log.Debug("client disconnected", "client", s.owners.owner(cs.SessionID()), "mcp_session", ShortID(cs.SessionID()))
		s.sessions.close(cs.SessionID(), "the client disconnected")
		s.elicit.Forget(cs.SessionID())
		s.owners.forget(cs.SessionID())
	})
	version := cfg.Version
	if version == "" {
		version = "dev"
	}
	s.mcp = mcpserver.NewMCPServer("chaperone", version,
		mcpserver.WithTitle("Chaperone"),
		mcpserver.WithToolCapabilities(false),
		mcpserver.WithHooks(hooks),
		// Log messages tell a client that an approval waits elsewhere.
		mcpserver.WithLogging(),
		// Outermost: a call the access token does not allow runs nothing.
		mcpserver.WithToolHandlerMiddleware(s.scopeMiddleware),
		// The elicitation approver parks a call whose gate waits on a
		// human and resumes it when the client answers.
		mcpserver.WithToolHandlerMiddleware(s.elicit.Middleware),
		mcpserver.WithRecovery(),
		mcpserver.WithInstructions("A real Chromium browser. Start with get_snapshot; act on elements by their refs (@e5); "+
			"every action returns a fresh snapshot, or on the same page a delta of the last one; a ref the newest does not hold is dead. A person approves risky steps, and can take the "+
			"browser over for a login, 2FA or CAPTCHA: ask with request_human_approval, no ref; "+
			"finish with complete_task."),
	)
	for _, d := range defs {
		tool, err := mcpTool(d)
		if err != nil {
			return nil, fmt.Errorf("new server: %w", err)
		}
		var out jsonschema.Schema
		if err := json.Unmarshal(d.OutputSchema, &out); err != nil {
			return nil, fmt.Errorf("new server: output schema of %s: %w", d.Name, err)
		}
		resolved, err := out.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("new server: output schema of %s: %w", d.Name, err)
		}
		s.outputs[d.Name] = resolved
		s.mcp.AddTool(tool, s.handler(d))
	}
	return s, nil
}

// MCP returns the mcp-go server, for in-process clients and for wiring that
// needs it (elicitation).
func (s *Server) MCP() *mcpserver.MCPServer { return s.mcp }

// Elicitation is the approver that asks the calling client's human through
// MCP elicitation; it answers checkpoint.ErrNoApprover for a client that did
// not declare the capability.
func (s *Server) Elicitation() *ElicitationApprover { return s.elicit }

// Close closes every browser session and stops the idle reaper.
func (s *Server) Close() error {
	err := s.sessions.shutdown()
	s.elicit.Close()
	return err
}

// stdioSession is the MCP session id mcp-go gives the one client of stdio.
const stdioSession = "stdio"

// ServeStdio serves one client on in and out until in ends or ctx is
// cancelled. Its browser session, named "stdio", opens at once, while the
// client initializes, rather than on its first call.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	s.sessions.connect(stdioSession)
	s.sessions.prepare(stdioSession)
	stdio := mcpserver.NewStdioServer(s.mcp)
	stdio.SetErrorLogger(slog.NewLogLogger(s.log.Handler(), slog.LevelError))
	if err := stdio.Listen(ctx, in, out); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("serve stdio: %w", err)
	}
	return nil
}

// mcpTool turns a definition into an mcp-go tool with a raw input schema
// and annotations that say what the tool does.
func mcpTool(d tools.Definition) (mcp.Tool, error) {
	if !json.Valid(d.InputSchema) || !json.Valid(d.OutputSchema) {
		return mcp.Tool{}, fmt.Errorf("tool %s: invalid schema", d.Name)
	}
	t := mcp.NewToolWithRawSchema(d.Name, d.Description, d.InputSchema)
	t.Title = d.Title
	t.RawOutputSchema = d.OutputSchema
	t.Annotations = mcp.ToolAnnotation{
		ReadOnlyHint:    mcp.ToBoolPtr(d.ReadOnly),
		DestructiveHint: mcp.ToBoolPtr(d.Destructive),
		IdempotentHint:  mcp.ToBoolPtr(d.Idempotent),
		OpenWorldHint:   mcp.ToBoolPtr(d.OpenWorld),
	}
	return t, nil
}

// handler answers calls of the tool d: it runs the call on the client's
// browser session, which fills in the input schema's defaults
// (tools.Session.Call), and shapes the result.
func (s *Server) handler(d tools.Definition) mcpserver.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		cs := mcpserver.ClientSessionFromContext(ctx)
		if cs == nil || cs.SessionID() == "" {
			return mcp.NewToolResultError("This connection has no MCP session, so it cannot have a browser of its own. " +
				"Connect with a protocol revision that carries Mcp-Session-Id (2025-11-25 or earlier)."), nil
		}
		// Arguments as the client sent them, an object or not: the tool
		// says what is wrong with them, with a snapshot.
		args, err := json.Marshal(req.GetRawArguments())
		if err != nil {
			return mcp.NewToolResultError(fmt.Sprintf("read the arguments of %s: %v", d.Name, err)), nil
		}
		client := s.owners.owner(cs.SessionID())
		out, err := s.sessions.call(ctx, cs.SessionID(), client, d.Name, args)
		if err != nil {
			s.log.Warn("tool call failed", "tool", d.Name, "client", client, "mcp_session", ShortID(cs.SessionID()), "err", err)
			return mcp.NewToolResultError(err.Error()), nil
		}
		return s.result(d.Name, out)
	}
}

// result shapes a tool's output for MCP: its JSON as structured content when
// it fits the tool's output schema, the text the model reads (see
// TextFormat), and the screenshot as an image block. An output that does not
// fit the schema (a snapshot that failed) is marked as an error, since
// clients reject unstructured success results from tools that declare an
// output schema.
func (s *Server) result(name string, out tools.Output) (*mcp.CallToolResult, error) {
	data, err := json.Marshal(out.Value)
	if err != nil {
		return mcp.NewToolResultError(fmt.Sprintf("encode the result of %s: %v", name, err)), nil
	}
	text := string(data)
	if s.text == TextCompact {
		if compact, ok := toolapi.Text(out.Value); ok {
			text = compact
		}
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}}
	var structured any
	if err := json.Unmarshal(data, &structured); err == nil {
		if _, isObject := structured.(map[string]any); isObject && s.outputs[name].Validate(structured) == nil {
			res.StructuredContent = json.RawMessage(data)
		}
	}
	if res.StructuredContent == nil {
		res.IsError = true
	}
	if img := out.Image; img != nil && len(img.Data) > 0 {
		res.Content = append(res.Content, mcp.NewImageContent(base64.StdEncoding.EncodeToString(img.Data), img.MIMEType))
	}
	return res, nil
}
