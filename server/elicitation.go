package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"github.com/google/uuid"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// elicitKey is the key of the approval question in an input_required result
// and of its answer in the retry's inputResponses.
const elicitKey = "chaperone_approval"

// statePrefix starts the requestState of a call waiting for an approval.
const statePrefix = "chaperone-approval/"

// ElicitationApprover asks the human through the MCP client itself, with an
// elicitation in form mode (approve: boolean, feedback: string), for clients
// that declare the capability. It is a checkpoint.Approver.
//
// The client program answers, not the server's own channel: it trusts the
// client host, where a program or a model with a shell could answer for the
// person. The command therefore uses it only when the operator names it,
// never by default (see the README's threat model).
//
// mcp-go's multi round-trip pattern (NewInputRequestBuilder) asks by
// returning an input_required result from the tool handler; the client
// answers and calls the tool again (clients of 2026-07-28), or mcp-go sends
// them elicitation/create and calls the handler again (earlier clients). The
// gate, though, asks from deep inside a tool call and waits. Middleware joins
// the two: it runs the tool call in a goroutine, and when Approve asks, it
// parks the call and returns the question as the handler's result; the
// retry, recognised by its requestState, delivers the answer to the parked
// call and returns the call's own result. Approve therefore works only inside
// a handler wrapped by Middleware; elsewhere, or when the client did not
// declare elicitation, it returns checkpoint.ErrNoApprover at once, so that
// checkpoint.First falls back to the next channel and nothing hangs.
type ElicitationApprover struct {
	log *slog.Logger

	mu     sync.Mutex
	parked map[string]*parkedCall // by requestState
	live   map[*parkedCall]struct{}
}

// NewElicitationApprover returns an approver; log may be nil.
func NewElicitationApprover(log *slog.Logger) *ElicitationApprover {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &ElicitationApprover{log: log, parked: map[string]*parkedCall{}, live: map[*parkedCall]struct{}{}}
}

// parkedCall is one tool call running under Middleware.
type parkedCall struct {
	session string
	// tool and args are the call's: only a retry of the same tool answers
	// it, and the retry's grant must allow these arguments (scopeMiddleware).
	tool   string
	args   json.RawMessage
	ctx    context.Context // the call's own context, detached from any one request
	cancel context.CancelCauseFunc
	// questions carries Approve's question to the handler waiting on the
	// call; done its final result.
	questions chan question
	done      chan callResult
	// answer is where the next retry delivers the client's answer; set
	// while the question is out.
	answer chan *mcp.ElicitationResult
}

type question struct {
	params mcp.ElicitationParams
	answer chan *mcp.ElicitationResult
}

type callResult struct {
	res *mcp.CallToolResult
	err error
}

type parkedKey struct{}

// Middleware wraps a tool handler so that Approve can ask from inside it. Use
// it on every tool that can reach the gate: mcpserver.WithToolHandlerMiddleware(a.Middleware).
func (a *ElicitationApprover) Middleware(next mcpserver.ToolHandlerFunc) mcpserver.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		session := sessionID(ctx)
		if state := req.Params.RequestState; strings.HasPrefix(state, statePrefix) {
			pc := a.take(state, session, req.Params.Name)
			if pc == nil {
				return mcp.NewToolResultError("This approval is no longer pending: it was answered, withdrawn, or never asked. " +
					"Nothing was approved; call the tool again."), nil
			}
			pc.answer <- mcpserver.ElicitationResponse(req.Params.InputResponses, elicitKey)
			return a.await(ctx, pc)
		}
		// A fresh call from this client means it gave up on any call it left
		// waiting for an answer (clients of 2026-07-28 answer by retrying).
		a.withdraw(func(pc *parkedCall) bool { return pc.session == session }, "the client made another call instead of answering")

		callCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
		args, _ := json.Marshal(req.GetRawArguments())
		pc := &parkedCall{session: session, tool: req.Params.Name, args: args, ctx: callCtx, cancel: cancel,
			questions: make(chan question), done: make(chan callResult, 1)}
		if !mcp.IsModernProtocol(mcpserver.RequestProtocolVersion(ctx)) {
			// mcp-go answers an earlier client's questions within this very
			// request (and calls this handler again), so the call lives no
			// longer than the request.
			context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
		}
		a.mu.Lock()
		a.live[pc] = struct{}{}
		a.mu.Unlock()
		go func() {
			defer func() {
				if p := recover(); p != nil {
					pc.done <- callResult{err: fmt.Errorf("tool %s: internal error: %v", req.Params.Name, p)}
				}
				a.mu.Lock()
				delete(a.live, pc)
				a.mu.Unlock()
				cancel(errors.New("the call ended"))
			}()
			res, err := next(context.WithValue(callCtx, parkedKey{}, pc), req)
			pc.done <- callResult{res, err}
		}()
		return a.await(ctx, pc)
	}
}

// await waits for the call to end or to ask a question. A question becomes
// this request's input_required result; the call stays parked until the
// retry brings the answer. If the request ends first, the call is withdrawn.
func (a *ElicitationApprover) await(ctx context.Context, pc *parkedCall) (*mcp.CallToolResult, error) {
	select {
	case out := <-pc.done:
		return out.res, out.err
	case q := <-pc.questions:
		state := statePrefix + uuid.NewString()
		a.mu.Lock()
		pc.answer = q.answer
		a.parked[state] = pc
		a.mu.Unlock()
		return mcpserver.NewInputRequestBuilder(state).Elicit(elicitKey, q.params).ToolResult(), nil
	case <-ctx.Done():
		pc.cancel(fmt.Errorf("the request was cancelled: %w", context.Cause(ctx)))
		return nil, fmt.Errorf("tool call withdrawn: %w", context.Cause(ctx))
	}
}

// take removes and returns the call parked under state, if it belongs to
// session and is a call of tool: a retry of another tool (a read-only one)
// never answers for it.
func (a *ElicitationApprover) take(state, session, tool string) *parkedCall {
	a.mu.Lock()
	defer a.mu.Unlock()
	pc, ok := a.parked[state]
	if !ok || pc.session != session || pc.tool != tool {
		return nil
	}
	delete(a.parked, state)
	return pc
}

// parkedArgs returns the arguments of the call of tool parked under state
// for session, which a retry carrying state would answer.
func (a *ElicitationApprover) parkedArgs(state, session, tool string) (json.RawMessage, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	pc, ok := a.parked[state]
	if !ok || pc.session != session || pc.tool != tool {
		return nil, false
	}
	return pc.args, true
}

// withdraw cancels the parked calls that match, withdrawing their approvals.
func (a *ElicitationApprover) withdraw(match func(*parkedCall) bool, why string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for state, pc := range a.parked {
		if match(pc) {
			delete(a.parked, state)
			pc.cancel(errors.New(why))
			a.log.Info("approval withdrawn", "mcp_session", ShortID(pc.session), "why", why)
		}
	}
}

// Forget withdraws the approvals a client left waiting; call it when the MCP
// session ends (mcp-go's OnUnregisterSession hook).
func (a *ElicitationApprover) Forget(session string) {
	a.withdraw(func(pc *parkedCall) bool { return pc.session == session }, "the client disconnected")
}

// Close withdraws every waiting approval and cancels every call running
// under Middleware.
func (a *ElicitationApprover) Close() error {
	a.withdraw(func(*parkedCall) bool { return true }, "the server is shutting down")
	a.mu.Lock()
	defer a.mu.Unlock()
	for pc := range a.live {
		pc.cancel(errors.New("the server is shutting down"))
	}
	return nil
}

// Approve asks the client's user. It returns checkpoint.ErrNoApprover when
// the client did not declare form elicitation or the call is not wrapped by
// Middleware; a cancelled ctx withdraws the question.
func (a *ElicitationApprover) Approve(ctx context.Context, r checkpoint.Request) (checkpoint.Decision, error) {
	if err := elicitationAvailable(ctx); err != nil {
		return checkpoint.Decision{}, err
	}
	pc, ok := ctx.Value(parkedKey{}).(*parkedCall)
	if !ok {
		return checkpoint.Decision{}, fmt.Errorf("elicitation: %w: the tool handler is not wrapped by ElicitationApprover.Middleware", checkpoint.ErrNoApprover)
	}
	q := question{params: approvalForm(r), answer: make(chan *mcp.ElicitationResult, 1)}
	select {
	case pc.questions <- q:
	case <-ctx.Done():
		return checkpoint.Decision{}, fmt.Errorf("elicitation: %w", context.Cause(ctx))
	}
	a.log.Info("approval asked through elicitation", "id", r.ID, "mcp_session", ShortID(pc.session), "action", checkpoint.OneLine(r.Action))
	var res *mcp.ElicitationResult
	select {
	case res = <-q.answer:
	case <-ctx.Done():
		return checkpoint.Decision{}, fmt.Errorf("elicitation: %w", context.Cause(ctx))
	}
	d, err := decision(res)
	if err == nil && d.Approved && r.Plan != nil {
		content, _ := res.Content.(map[string]any)
		d.Plan = planAnswer(r, content)
	}
	return d, err
}

// elicitationAvailable checks that the client declared form elicitation: on
// a 2026-07-28 request in its _meta, else in its initialize.
func elicitationAvailable(ctx context.Context) error {
	var caps *mcp.ClientCapabilities
	if info := mcpserver.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		caps = info.ClientCapabilities
	} else if cs, ok := mcpserver.ClientSessionFromContext(ctx).(mcpserver.SessionWithClientInfo); ok {
		c := cs.GetClientCapabilities()
		caps = &c
	}
	switch {
	case caps == nil:
		return fmt.Errorf("elicitation: %w: no MCP client session", checkpoint.ErrNoApprover)
	case caps.Elicitation == nil:
		return fmt.Errorf("elicitation: %w: the MCP client did not declare elicitation", checkpoint.ErrNoApprover)
	case caps.Elicitation.Form == nil && caps.Elicitation.URL != nil:
		return fmt.Errorf("elicitation: %w: the MCP client supports only URL-mode elicitation", checkpoint.ErrNoApprover)
	}
	return nil
}

// approvalForm is the question: the prompt and what is being approved, one
// fact a line, all escaped (Request.Prompt, Request.Lines), and a form with
// approve (boolean) and feedback (string). A client cannot show an image in
// an elicitation, so the screenshot stays out.
func approvalForm(r checkpoint.Request) mcp.ElicitationParams {
	var b strings.Builder
	switch r.Kind {
	case checkpoint.KindAgent:
		b.WriteString("[Requested by the agent, in its own words]\n")
	case checkpoint.KindPlan:
		b.WriteString("[The agent's plan, in its own words; its sites as the browser connects to them]\n")
	}
	b.WriteString(r.Prompt())
	for _, l := range r.Lines() {
		b.WriteString("\n")
		b.WriteString(l)
	}
	props := map[string]any{
		"approve": map[string]any{
			"type":        "boolean",
			"title":       "Approve",
			"description": "Let the action run.",
			"default":     false,
		},
		"feedback": map[string]any{
			"type":        "string",
			"title":       "Message to the agent",
			"description": "Optional; the agent reads it, e.g. why you rejected the action.",
		},
	}
	if r.Plan != nil {
		// Each site the plan writes on is a box the person may clear:
		// the agent then only reads there.
		for i, ps := range r.Plan.Sites {
			if ps.Write {
				props[planSiteField(i)] = map[string]any{
					"type":        "boolean",
					"title":       "Write on " + checkpoint.OneLine(ps.Site) + " without asking",
					"description": "Clear it to let the agent only read there.",
					"default":     true,
				}
			}
		}
	}
	return mcp.ElicitationParams{
		Mode:    mcp.ElicitationModeForm,
		Message: b.String(),
		RequestedSchema: map[string]any{
			"type":       "object",
			"properties": props,
			"required":   []string{"approve"},
		},
	}
}

// planSiteField names the form's box for the plan's site i.
func planSiteField(i int) string { return "write_site_" + strconv.Itoa(i) }

// planAnswer is the plan of r as the person left it in the form: a write
// site whose box they cleared (or answered with anything but true) is read
// only, one whose box is missing stays as proposed. The gate narrows the plan by it; nothing here can widen it.
func planAnswer(r checkpoint.Request, content map[string]any) *checkpoint.Plan {
	if r.Plan == nil {
		return nil
	}
	out := &checkpoint.Plan{Steps: r.Plan.Steps}
	for i, ps := range r.Plan.Sites {
		// Only a boolean true is leave to write: a box answered in any
		// other way (the string "false", a 0, a null) was not left ticked.
		if v, answered := content[planSiteField(i)]; answered && v != true {
			ps.Write = false
		}
		out.Sites = append(out.Sites, ps)
	}
	return out
}

// decision reads the client's answer. Only accept with approve: true
// approves; decline and cancel reject.
func decision(res *mcp.ElicitationResult) (checkpoint.Decision, error) {
	if res == nil {
		return checkpoint.Decision{}, errors.New("elicitation: the client answered without a response to the approval question")
	}
	content, _ := res.Content.(map[string]any)
	feedback, _ := content["feedback"].(string)
	d := checkpoint.Decision{Feedback: strings.TrimSpace(feedback), Channel: checkpoint.ChannelElicitation}
	switch res.Action {
	case mcp.ElicitationResponseActionAccept:
		approved, ok := content["approve"].(bool)
		if !ok {
			return checkpoint.Decision{}, errors.New("elicitation: the answer has no boolean approve field")
		}
		d.Approved = approved
	case mcp.ElicitationResponseActionDecline:
	case mcp.ElicitationResponseActionCancel:
		if d.Feedback == "" {
			d.Feedback = "(dismissed without a decision)"
		}
	default:
		return checkpoint.Decision{}, fmt.Errorf("elicitation: unknown answer action %q", res.Action)
	}
	return d, nil
}

// sessionID names the client's MCP session, "" without one.
func sessionID(ctx context.Context) string {
	if cs := mcpserver.ClientSessionFromContext(ctx); cs != nil {
		return cs.SessionID()
	}
	return ""
}
