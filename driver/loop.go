package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/chaperone-mcp/chaperone/internal/pause"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// Reasons a run ends, in [Result.Reason].
const (
	// ReasonCompleted: complete_task(success) was acknowledged.
	ReasonCompleted = "completed"
	// ReasonTaskFailed: the model gave up with complete_task(failed).
	ReasonTaskFailed = "task_failed"
	// ReasonMaxTurns: the turn limit was reached first.
	ReasonMaxTurns = "max_turns_exceeded"
	// ReasonTimeout: a model call took longer than Config.ModelTimeout.
	ReasonTimeout = "timeout"
	// ReasonAPIUnavailable: the API kept failing through every retry.
	ReasonAPIUnavailable = "api_unavailable"
	// ReasonAPIError: the API refused the request (e.g. 400, 401).
	ReasonAPIError = "api_error"
	// ReasonBrowserError: the browser could not be reached.
	ReasonBrowserError = "browser_error"
	// ReasonCanceled: the run's context was canceled.
	ReasonCanceled = "canceled"
	// ReasonStuck: the agent kept failing or going nowhere and a person
	// stopped the run, or there was nobody to ask.
	ReasonStuck = "stuck"
)

// Defaults of [Config].
const (
	DefaultMaxTurns      = 20
	DefaultMaxTokens     = 4096
	DefaultModelTimeout  = 30 * time.Second
	DefaultHistoryBudget = 10_000
	DefaultKeepTurns     = 10
	DefaultRequestCap    = 15_000
	// ReflectAfter is how many calls in a row that fail on one page, or
	// make no progress, make the next request carry a reflection prompt;
	// twice as many ask a person.
	ReflectAfter = 3
)

// Result is how a run ended.
type Result struct {
	Success bool   `json:"success"`
	Reason  string `json:"reason"`
	// Detail says more: the model's reason, the API's error.
	Detail string `json:"detail,omitempty"`
	Turns  int    `json:"turns"`
	Tokens Usage  `json:"tokens"`
	// Cost is in US dollars at the model's list price; Priced is false
	// when there is no price on file for the model (Cost is then 0).
	Cost   float64 `json:"cost"`
	Priced bool    `json:"priced"`
	Model  string  `json:"model,omitempty"`
}

// RetryPolicy says how model calls are retried on transient errors.
type RetryPolicy struct {
	// Attempts counts the first call too.
	Attempts int
	// Initial is the first wait, multiplied by Multiplier after each retry
	// and capped at Max. A longer Retry-After from the API wins, still
	// capped at Max.
	Initial    time.Duration
	Multiplier float64
	Max        time.Duration
}

// DefaultRetry is 3 attempts, waiting 1 s then 2 s, never more than 10 s.
func DefaultRetry() RetryPolicy {
	return RetryPolicy{Attempts: 3, Initial: time.Second, Multiplier: 2, Max: 10 * time.Second}
}

// Config is one run.
type Config struct {
	// Model answers; ModelName names it in the record and prices it.
	Model     Model
	ModelName string
	// Tools is the browser.
	Tools toolapi.Tools
	// Goal is the task; Guidance is the profile's advice for the site.
	Goal     string
	Guidance string
	// MaxTurns bounds the model calls (default 20).
	MaxTurns int
	// MaxTokens bounds each response (default 4096: adaptive thinking
	// shares it, and output is billed only when used).
	MaxTokens int
	// ModelTimeout bounds each model attempt (default 30 s). A call that
	// times out ends the run with ReasonTimeout: it is not retried, since
	// three more half-minutes rarely rescue a run.
	ModelTimeout time.Duration
	// Retry is the retry policy (default DefaultRetry()).
	Retry RetryPolicy
	// Sleep waits between retries (default: a timer that honours ctx).
	Sleep func(ctx context.Context, d time.Duration) error
	// HistoryBudget is the conversation size, in estimated tokens, past
	// which early turns are summarised (default 10,000), keeping the last
	// KeepTurns turns (default 10). RequestCap bounds a whole request
	// (default 15,000): past it, more turns are summarised, down to one.
	HistoryBudget int
	KeepTurns     int
	RequestCap    int
	// Record receives the run record; nil records nothing.
	Record *Recorder
	// Origin is where and under which profile the run started, as the
	// script it leaves records it for a replay.
	Origin ScriptOrigin
	// Secrets are the values the page may be given but no record may hold,
	// by placeholder name: the model writes {{NAME}} and never sees them.
	// Should one reach the driver anyway (a page that echoes it, a model
	// told it in the goal), the record shows its placeholder instead.
	// Passwords the model types are masked whatever this holds.
	Secrets map[string]string
	// AllScreenshots sends the model the screenshot of every result. By
	// default only the initial page's, a failed call's and get_snapshot's
	// go: the compact text says what the next action needs, and a
	// screenshot costs more input than the rest of a turn.
	AllScreenshots bool
	// NoCache turns prompt caching off.
	NoCache bool
	// Ask reaches a person when the agent is stuck: after 2×ReflectAfter
	// calls in a row that failed on one page or made no progress (the same
	// call on a page already seen). Nil ends the run instead.
	Ask AskPerson
	// Plan has the run show its plan to the person before its first
	// action (run --plan): the model is told to ask with
	// request_human_approval's plan first, and no other call but
	// get_snapshot and complete_task runs until a person approved one. A replay puts the
	// script's plan to the person before its first step.
	Plan bool
	// Logger receives the run's log; nil discards it.
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

func (c *Config) defaults() error {
	if c.Model == nil {
		return errors.New("no model")
	}
	if c.Tools == nil {
		return errors.New("no tools")
	}
	if strings.TrimSpace(c.Goal) == "" {
		return errors.New("no goal")
	}
	orDefault(&c.MaxTurns, DefaultMaxTurns)
	orDefault(&c.MaxTokens, DefaultMaxTokens)
	orDefault(&c.ModelTimeout, DefaultModelTimeout)
	if c.Retry.Attempts <= 0 {
		c.Retry = DefaultRetry()
	}
	if c.Sleep == nil {
		c.Sleep = pause.For
	}
	orDefault(&c.HistoryBudget, DefaultHistoryBudget)
	orDefault(&c.KeepTurns, DefaultKeepTurns)
	orDefault(&c.RequestCap, DefaultRequestCap)
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return nil
}

// orDefault sets *v to def unless it is positive: a bound of zero or less
// means the default.
func orDefault[T int | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Messages the driver writes into the conversation.
const (
	nudgeText   = "You did not call a tool. Call exactly one tool: the next browser action, or complete_task with status \"success\" if the goal is met or \"failed\" with the reason if it cannot be met."
	skippedText = "Not executed: only the first tool call of a response is executed. Call one tool per response, using refs from the newest snapshot."
)

// Run drives one task to its end. It returns an error only when the run
// cannot start (an invalid Config, or no tool list); everything after that,
// including an API that stays down and a browser that fails, ends in a
// Result that says why.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if err := cfg.defaults(); err != nil {
		return Result{}, fmt.Errorf("run: %w", err)
	}
	specs, err := cfg.Tools.List(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("run: %w", err)
	}
	r := &run{cfg: cfg, log: cfg.Logger, specs: specs, system: SystemPrompt(cfg.Goal, cfg.Guidance), redact: newRedactor(cfg.Secrets)}
	r.price, r.priced = PriceOf(cfg.ModelName)
	res := r.settle(r.loop(ctx))
	if res.Success {
		cfg.Record.writeScript(ScriptName, r.script)
	}
	cfg.Record.finish(res, cfg.Now())
	r.log.Info("run ended", "success", res.Success, "reason", res.Reason, "detail", res.Detail,
		"turns", res.Turns, "input_tokens", res.Tokens.InputTokens, "cache_read_tokens", res.Tokens.CacheReadTokens,
		"cache_write_tokens", res.Tokens.CacheWriteTokens, "output_tokens", res.Tokens.OutputTokens, "cost_usd", res.Cost)
	return res, nil
}

// settle completes how a run ended with what only the run knows: the
// model, the tokens and the cost; and keeps secrets out of its detail.
func (r *run) settle(res Result) Result {
	res.Detail = r.redact.String(res.Detail)
	res.Model = r.cfg.ModelName
	res.Tokens = r.tokens
	res.Cost, res.Priced = r.price.Cost(r.tokens), r.priced
	return res
}

type run struct {
	cfg    Config
	log    *slog.Logger
	specs  []toolapi.ToolSpec
	system string
	hist   history
	cal    calibration
	tokens Usage
	price  Price
	priced bool
	// redact keeps secrets and typed passwords out of the record and the
	// log; seen is the newest snapshot the model was shown, which says
	// which fields are passwords.
	redact *redactor
	seen   *snapshot.Snapshot
	// script is what a successful run leaves for replay: the calls that
	// worked.
	script *Script
	// failures are the calls in a row that failed (on failPage) or made no
	// progress, as the reflection prompt and the person read them.
	failures []string
	failPage string
	progress progress
	// planned says that a person approved the run's plan (Config.Plan).
	planned bool
}

func (r *run) loop(ctx context.Context) Result {
	initial, err := r.cfg.Tools.Call(ctx, toolapi.GetSnapshot, json.RawMessage(`{}`))
	if err != nil || initial.IsError {
		detail := initial.Text
		if err != nil {
			detail = err.Error()
		}
		r.cfg.Record.begin(StartRecord{Time: r.cfg.Now(), Goal: r.redact.String(r.cfg.Goal), Model: r.cfg.ModelName, MaxTurns: r.cfg.MaxTurns}, nil)
		return Result{Reason: ReasonBrowserError, Detail: "initial snapshot: " + detail}
	}
	r.hist = history{intro: "CURRENT GOAL: " + r.cfg.Goal, initial: initial}
	if r.cfg.Plan {
		r.hist.intro += planIntro
	}
	r.seen, _ = parseSnapshot(initial.JSON())
	r.script = &Script{Format: ScriptFormat, Version: 1, Goal: r.redact.String(r.cfg.Goal), StartURL: r.redact.String(pageURL(initial.JSON())), ScriptOrigin: ScriptOrigin{Start: r.redact.String(r.cfg.Origin.Start), Profile: r.cfg.Origin.Profile}, Steps: []ScriptStep{}}
	r.cfg.Record.begin(StartRecord{
		Time: r.cfg.Now(), Goal: r.redact.String(r.cfg.Goal), Model: r.cfg.ModelName, MaxTurns: r.cfg.MaxTurns,
		SystemTokens: textTokens(r.system), URL: r.redact.String(pageURL(initial.JSON())),
	}, initial.Image)

	for n := 1; n <= r.cfg.MaxTurns; n++ {
		rec := TurnRecord{Turn: n, Time: r.cfg.Now()}
		req, estimate := r.request()
		rec.RequestTokens, rec.DroppedTurns = estimate, r.hist.dropped

		start := time.Now()
		resp, attempts, err := r.ask(ctx, req)
		rec.LatencyMS, rec.Attempts = time.Since(start).Milliseconds(), attempts
		if err != nil {
			rec.Error = err.Error()
			r.redact.turn(&rec)
			r.cfg.Record.turn(rec, nil)
			return r.modelFailure(n, err)
		}
		r.tokens.Add(resp.Usage)
		r.cal.observe(EstimateTokens(req), resp.Usage.InputTokens)
		rec.InputTokens, rec.OutputTokens = resp.Usage.InputTokens, resp.Usage.OutputTokens
		rec.CacheReadTokens, rec.CacheWriteTokens = resp.Usage.CacheReadTokens, resp.Usage.CacheWriteTokens
		r.log.Info("model answered", "turn", n, "estimated_tokens", estimate, "input_tokens", resp.Usage.InputTokens,
			"cache_read_tokens", resp.Usage.CacheReadTokens, "cache_write_tokens", resp.Usage.CacheWriteTokens,
			"output_tokens", resp.Usage.OutputTokens, "latency", time.Since(start), "attempts", attempts)

		if done, res := r.act(ctx, n, resp, &rec); done {
			res.Turns = n
			return res
		}
	}
	return Result{Reason: ReasonMaxTurns, Detail: fmt.Sprintf("no acknowledged completion within %d turns", r.cfg.MaxTurns), Turns: r.cfg.MaxTurns}
}

// act executes the first tool call of a response, answers the others as
// skipped, appends the turn to the history and records it. It reports
// whether the run is over.
func (r *run) act(ctx context.Context, n int, resp Response, rec *TurnRecord) (bool, Result) {
	assistant := Message{Role: RoleAssistant, Content: resp.Content}
	if len(assistant.Content) == 0 {
		// The API refuses an empty assistant message in the history.
		assistant.Content = []Block{Text("(no content)")}
	}
	var calls []Block
	var said []string
	for _, b := range resp.Content {
		switch b.Type {
		case ToolUseBlock:
			calls = append(calls, b)
		case TextBlock:
			if s := strings.TrimSpace(b.Text); s != "" {
				said = append(said, s)
			}
		}
	}
	rec.Said = clip(strings.Join(said, " "), 500)

	if len(calls) == 0 {
		r.log.Warn("response without a tool call; asking for complete_task", "turn", n, "stop_reason", resp.StopReason)
		r.hist.turns = append(r.hist.turns, turn{
			assistant: assistant,
			user:      Message{Role: RoleUser, Content: []Block{Text(nudgeText)}},
			action:    "(no tool call)",
		})
		rec.Result = "no tool call"
		r.redact.turn(rec)
		r.cfg.Record.turn(*rec, nil)
		return false, Result{}
	}

	call := calls[0]
	before := r.seen
	r.redact.notePassword(call.Name, call.Input, r.seen)
	rec.Tool, rec.Target, rec.Input = call.Name, target(call.Name, call.Input), call.Input
	res, err := r.call(ctx, call.Name, call.Input)
	if s, ok := snapshotAfter(r.seen, res.JSON()); ok {
		r.seen = s
	}
	if err != nil {
		// The call never reached a result: tell the model, text only.
		r.log.Error("tool call failed", "turn", n, "tool", call.Name, "err", r.redact.String(err.Error()))
		res = toolapi.ToolResult{Text: fmt.Sprintf("The tool call failed: %v", err), IsError: true}
		rec.Error = err.Error()
	}
	outcome := describe(res)
	rec.Result, rec.URL = outcome, pageURL(res.JSON())
	if o, ok := parseOutcome(res.JSON()); ok {
		rec.Message = o.Message
		switch {
		case o.Approved != nil:
			rec.Approval = outcome
		case o.Error != nil && *o.Error == string(toolapi.HumanRejected):
			rec.Approval = "rejected"
		case strings.HasPrefix(o.Message, "Approved by a human"):
			rec.Approval = "approved"
		}
	}
	r.redact.turn(rec)
	r.log.Info("tool called", "turn", n, "tool", call.Name, "target", rec.Target, "result", outcome)

	results := []Block{toolResultBlock(call.ID, res)}
	for _, extra := range calls[1:] {
		r.log.Warn("tool call not executed: only the first of a response runs", "turn", n, "tool", extra.Name, "target", r.redact.String(target(extra.Name, extra.Input)))
		rec.Skipped = append(rec.Skipped, extra.Name)
		results = append(results, ToolResultOf(extra.ID, true, Text(skippedText)))
	}
	failed := failure(outcome)
	// The approved plan of a --plan run is the script's Plan, asked
	// before a replay's first step, not a step of its own.
	if !failed && recordable(outcome) && !(r.cfg.Plan && isPlanCall(call.Name, call.Input)) {
		if step, ok := stepOf(call.Name, call.Input, before, r.redact); ok {
			r.script.Steps = append(r.script.Steps, step)
		}
	}
	stalled := r.progress.stalled(call.Name, call.Input, before, r.seen)
	note, stop := r.watch(ctx, failed, stalled, before, call.Name+"("+describeTarget(before, call.Input)+"): "+outcome)
	if note != "" {
		results = append(results, Text(note))
		rec.Note = r.redact.String(note)
	}
	action := call.Name + "(" + rec.Target + "): " + outcome
	img := res.Image
	if res.IsError {
		img = nil
	}
	t := turn{assistant: assistant, user: Message{Role: RoleUser, Content: results}, action: action, before: before}
	if r.cfg.AllScreenshots || failed || call.Name == toolapi.GetSnapshot {
		t.image = img
	}
	r.hist.turns = append(r.hist.turns, t)
	r.cfg.Record.turn(*rec, img)
	if stop != nil {
		return true, *stop
	}

	if call.Name != toolapi.CompleteTask || res.IsError {
		return false, Result{}
	}
	o, _ := parseOutcome(res.JSON())
	if o.Acknowledged == nil || !*o.Acknowledged {
		r.log.Info("completion not acknowledged; the model is told why", "turn", n, "message", r.redact.String(o.Message))
		return false, Result{}
	}
	var in struct {
		Status string `json:"status"`
		Reason string `json:"reason"`
	}
	_ = json.Unmarshal(call.Input, &in) // the server accepted it, so it parses
	if in.Status == "success" {
		return true, Result{Success: true, Reason: ReasonCompleted, Detail: firstNonEmpty(o.Message, in.Reason)}
	}
	return true, Result{Reason: ReasonTaskFailed, Detail: firstNonEmpty(in.Reason, o.Message)}
}

// toolResultBlock turns a tool's result into the tool_result the API
// accepts: its text. The screenshot, when the model is to see it, follows
// the results (see history.messages).
func toolResultBlock(id string, res toolapi.ToolResult) Block {
	content := []Block{resultText(res)}
	if res.Text == "" {
		content[0].Text = "(empty result)"
	}
	return ToolResultOf(id, res.IsError, content...)
}

// request builds the next request, summarising early turns as the budget
// requires, and returns it with its calibrated token estimate.
func (r *run) request() (Request, int) {
	build := func() Request {
		return Request{System: r.system, Messages: r.hist.messages(), Tools: r.specs, MaxTokens: r.cfg.MaxTokens, Cache: !r.cfg.NoCache}
	}
	req := build()
	if conv := r.cal.scale(estimateMessages(req.Messages)); conv > r.cfg.HistoryBudget && r.hist.kept() > r.cfg.KeepTurns {
		r.hist.dropped = len(r.hist.turns) - r.cfg.KeepTurns
		r.log.Info("history over budget; early turns summarised", "estimated_tokens", conv, "budget", r.cfg.HistoryBudget, "summarised_turns", r.hist.dropped)
		req = build()
	}
	total := r.cal.scale(EstimateTokens(req))
	for total > r.cfg.RequestCap && r.hist.kept() > 1 {
		r.hist.dropped++
		req = build()
		total = r.cal.scale(EstimateTokens(req))
		r.log.Warn("request over its cap; one more turn summarised", "estimated_tokens", total, "cap", r.cfg.RequestCap, "summarised_turns", r.hist.dropped)
	}
	return req, total
}

// ask calls the model, with a timeout per attempt and retries on transient
// errors, and returns the number of attempts made.
func (r *run) ask(ctx context.Context, req Request) (Response, int, error) {
	wait := r.cfg.Retry.Initial
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, r.cfg.ModelTimeout)
		resp, err := r.cfg.Model.Next(actx, req)
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded)
		cancel()
		switch {
		case err == nil:
			return resp, attempt, nil
		case ctx.Err() != nil:
			return Response{}, attempt, fmt.Errorf("model call: %w", ctx.Err())
		case timedOut:
			return Response{}, attempt, &timeoutError{after: r.cfg.ModelTimeout, err: err}
		}
		var te *TransientError
		if !errors.As(err, &te) {
			return Response{}, attempt, fmt.Errorf("model call: %w", err)
		}
		if attempt >= r.cfg.Retry.Attempts {
			return Response{}, attempt, fmt.Errorf("model call: gave up after %d attempts: %w", attempt, err)
		}
		d := min(max(wait, te.RetryAfter), r.cfg.Retry.Max)
		r.log.Warn("model call failed; retrying", "attempt", attempt, "wait", d, "err", err)
		if err := r.cfg.Sleep(ctx, d); err != nil {
			return Response{}, attempt, fmt.Errorf("model call: %w", err)
		}
		wait = min(time.Duration(float64(wait)*r.cfg.Retry.Multiplier), r.cfg.Retry.Max)
	}
}

type timeoutError struct {
	after time.Duration
	err   error
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("model call timed out after %v: %v", e.after, e.err)
}

func (e *timeoutError) Unwrap() error { return e.err }

// modelFailure ends the run after a model call that did not succeed.
func (r *run) modelFailure(n int, err error) Result {
	r.log.Error("model call failed; run ends", "turn", n, "err", err)
	res := Result{Turns: n - 1, Detail: err.Error()}
	var te *timeoutError
	var tr *TransientError
	switch {
	case errors.As(err, &te):
		res.Reason = ReasonTimeout
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		res.Reason = ReasonCanceled
	case errors.As(err, &tr):
		res.Reason = ReasonAPIUnavailable
	default:
		res.Reason = ReasonAPIError
	}
	return res
}

// pageURL reads page.url from a snapshot's or an action result's JSON.
func pageURL(data []byte) string {
	var v struct {
		Page     struct{ URL string } `json:"page"`
		Snapshot *struct {
			Page struct{ URL string } `json:"page"`
		} `json:"snapshot"`
	}
	if json.Unmarshal(data, &v) != nil {
		return ""
	}
	if v.Snapshot != nil {
		return v.Snapshot.Page.URL
	}
	return v.Page.URL
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
