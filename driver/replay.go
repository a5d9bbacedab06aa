package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// ReasonScriptEnded: a replay ran out of steps before an acknowledged
// completion.
const ReasonScriptEnded = "script_ended"

// DefaultRecoverAttempts bounds the model calls spent on one step of a
// replay.
const DefaultRecoverAttempts = 2

// How a step of a replay went, in [ReplayStep.How].
const (
	// StepReplayed: the step found its one element and worked, with no
	// model.
	StepReplayed = "replayed"
	// StepRecovered: the step did not replay, and the model (or a person's
	// hint to it) did it another way.
	StepRecovered = "recovered"
)

// ReplayConfig is one replay of a script.
type ReplayConfig struct {
	Script *Script
	// Attempts bounds the model calls per step (default 2).
	Attempts int
	// Config is as for Run: Tools is the browser (checkpoints still ask a
	// person, complete_task still verifies the end); Model recovers the
	// steps that do not replay (nil asks the person straight away); Ask
	// reaches the person when the model could not (nil ends the replay
	// there); Goal defaults to the script's. MaxTurns and the history
	// settings do not apply.
	Config
}

// ReplayStep is how one step of a script went.
type ReplayStep struct {
	Step int    `json:"step"`
	Tool string `json:"tool"`
	// Target is the element the script named.
	Target string `json:"target,omitempty"`
	// How is StepReplayed or StepRecovered.
	How string `json:"how"`
	// Why says why a recovered step did not replay: no match, several
	// matches, or the action's error.
	Why string `json:"why,omitempty"`
	// ModelCalls and Tokens are what its recovery cost.
	ModelCalls int   `json:"model_calls,omitempty"`
	Tokens     Usage `json:"tokens"`
}

// ReplayResult is how a replay ended.
type ReplayResult struct {
	Result
	Steps []ReplayStep `json:"steps"`
	// Script is the new version of the script when steps were recovered
	// and the replay succeeded, else nil. It is also written to the record
	// as script.v<N>.json.
	Script *Script `json:"-"`
}

// ScriptVersionName is the file name of a script's version n: script.json
// for 1, script.v<n>.json after.
func ScriptVersionName(n int) string {
	if n <= 1 {
		return ScriptName
	}
	return fmt.Sprintf("script.v%d.json", n)
}

// replay is the state of one replay.
type replay struct {
	*run
	script *Script
	// next is the script being written: the steps as they worked.
	next *Script
	// page is the result that carried the newest snapshot (run.seen): its
	// text is what the model reads, its image the screenshot.
	page toolapi.ToolResult
	// moved maps a target that did not replay to the one that worked
	// instead, so that a later step on the same element (the click after
	// its approval) finds it with no model call.
	moved    map[StepTarget]StepTarget
	steps    []ReplayStep
	attempts int
	// lastInput is the input of the newest call, which says the status of
	// a complete_task.
	lastInput json.RawMessage
	// where maps the places the script recorded to this replay's.
	where placeMap
}

// placeMap is where a replay stands to its script: a replay started on
// another site than the recording (the script's start URL's origin, from)
// acts on that site instead (to), as the person chose by starting it
// there; one started on another page of it (moved) cannot expect the
// recorded paths. Every other origin stays as recorded.
type placeMap struct {
	from, to string
	moved    bool
}

// origin is the origin a step recorded on (rec) stands for in this replay.
func (m placeMap) origin(rec string) string {
	if rec != "" && rec == m.from {
		return m.to
	}
	return rec
}

// back is a URL (pattern) of this replay as the script would have
// recorded it: on the start site of the recording rather than this one.
func (m placeMap) back(u string) string {
	if m.from == "" || m.from == m.to || origin(u) != m.to {
		return u
	}
	return m.from + strings.TrimPrefix(u, m.to)
}

// page says why a replay at now is not on the page a step recorded (rec,
// a URL pattern), or "": the same origin, as mapped, and, unless the replay
// started elsewhere than the recording, the same path pattern.
func (m placeMap) page(rec, now string) string {
	if m.moved {
		if want := m.origin(origin(rec)); want == "" || origin(now) != want {
			return fmt.Sprintf("the page is %s, but the step was recorded on %s (%s in this replay)", urlPattern(now), rec, firstNonEmpty(want, "no site"))
		}
		return ""
	}
	if m.from != m.to {
		rec = m.to + strings.TrimPrefix(rec, m.from)
	}
	if ok, why := samePage(rec, now); !ok {
		return why
	}
	return ""
}

// Replay performs a script's steps through the tools, with no model as
// long as every step finds its one element and works. A step that matches
// nothing, matches several elements, or fails is given to the model, with
// the step, the error and a fresh snapshot, for at most Attempts calls;
// then to the person (Ask): stop, continue (the step is tried as recorded
// once more) or a hint (the model tries once more with it). It returns an
// error only when the replay cannot start.
func Replay(ctx context.Context, cfg ReplayConfig) (ReplayResult, error) {
	if cfg.Script == nil {
		return ReplayResult{}, errors.New("replay: no script")
	}
	if cfg.Goal == "" {
		cfg.Goal = cfg.Script.Goal
	}
	if cfg.Model == nil {
		cfg.Model = noModel{}
	}
	if err := cfg.defaults(); err != nil {
		return ReplayResult{}, fmt.Errorf("replay: %w", err)
	}
	if cfg.Attempts <= 0 {
		cfg.Attempts = DefaultRecoverAttempts
	}
	r := &replay{
		run:      &run{cfg: cfg.Config, log: cfg.Logger, system: SystemPrompt(cfg.Goal, cfg.Guidance), redact: newRedactor(cfg.Secrets)},
		script:   cfg.Script,
		moved:    map[StepTarget]StepTarget{},
		attempts: cfg.Attempts,
	}
	if _, isNone := cfg.Model.(noModel); !isNone {
		specs, err := cfg.Tools.List(ctx)
		if err != nil {
			return ReplayResult{}, fmt.Errorf("replay: %w", err)
		}
		r.specs = specs
	}
	r.price, r.priced = PriceOf(cfg.ModelName)
	res := r.settle(r.all(ctx))
	out := ReplayResult{Result: res, Steps: r.steps}
	recovered := false
	for _, s := range r.steps {
		recovered = recovered || s.How == StepRecovered
	}
	if res.Success && recovered {
		out.Script = r.next
		cfg.Record.writeScript(ScriptVersionName(r.next.Version), r.next)
	}
	cfg.Record.finish(res, cfg.Now())
	r.log.Info("replay ended", "success", res.Success, "reason", res.Reason, "steps", len(r.steps),
		"input_tokens", res.Tokens.InputTokens, "output_tokens", res.Tokens.OutputTokens)
	return out, nil
}

// noModel stands in when a replay has no model: it is never called, since
// recovery goes to the person straight away.
type noModel struct{}

func (noModel) Next(context.Context, Request) (Response, error) {
	return Response{}, errors.New("no model")
}

func (r *replay) hasModel() bool {
	_, none := r.cfg.Model.(noModel)
	return !none
}

// all replays every step and says how the replay ended.
func (r *replay) all(ctx context.Context) Result {
	start := StartRecord{
		Time: r.cfg.Now(), Goal: r.redact.String(r.cfg.Goal), Model: firstNonEmpty(r.cfg.ModelName, "none"),
		Replay: fmt.Sprintf("script version %d, %d steps", r.script.Version, len(r.script.Steps)),
	}
	if err := r.look(ctx); err != nil {
		r.cfg.Record.begin(start, nil)
		return Result{Reason: ReasonBrowserError, Detail: "initial snapshot: " + err.Error()}
	}
	start.URL = r.redact.String(r.seen.Page.URL)
	r.where = placeMap{from: origin(r.script.StartURL), to: origin(r.seen.Page.URL),
		moved: r.script.StartURL != "" && pathOf(r.script.StartURL) != pathOf(r.seen.Page.URL)}
	if r.where.from == "" {
		r.where.to = ""
	}
	r.cfg.Record.begin(start, r.page.Image)
	r.next = &Script{Format: ScriptFormat, Version: r.script.Version + 1, Goal: r.script.Goal, StartURL: r.script.StartURL, ScriptOrigin: r.script.ScriptOrigin, Plan: r.script.Plan, Steps: []ScriptStep{}}
	switch {
	case r.script.Plan != nil:
		if ok, msg := r.askPlan(ctx, *r.script.Plan); !ok {
			return Result{Reason: ReasonPlanRejected, Detail: "the script's plan was not approved: " + msg}
		}
	case r.cfg.Plan:
		return Result{Reason: ReasonPlanRejected, Detail: "--plan: the script has no plan to show (record it again with run --plan)"}
	}
	for i, step := range r.script.Steps {
		done, res := r.step(ctx, i+1, step)
		if done {
			res.Turns = i + 1
			return res
		}
	}
	return Result{Reason: ReasonScriptEnded, Detail: "the script ended without an acknowledged completion", Turns: len(r.script.Steps)}
}

// look takes a fresh snapshot of the page.
func (r *replay) look(ctx context.Context) error {
	res, err := r.cfg.Tools.Call(ctx, toolapi.GetSnapshot, json.RawMessage(`{}`))
	if err != nil {
		return err
	}
	if res.IsError {
		return errors.New(res.Text)
	}
	r.noteResult(res)
	return nil
}

// noteResult keeps the newest snapshot a result carried.
func (r *replay) noteResult(res toolapi.ToolResult) {
	if s, ok := snapshotAfter(r.seen, res.JSON()); ok {
		if _, isDelta := deltaIn(res.JSON()); isDelta {
			// The model that recovers a step reads this page alone.
			data, err := json.Marshal(s)
			if err != nil {
				return
			}
			res = toolapi.ToolResult{Text: s.Render(), Structured: data, Image: res.Image}
		}
		r.seen, r.page = s, res
	}
}

// step replays one step, recovering it if it must, and reports whether the
// replay is over.
func (r *replay) step(ctx context.Context, n int, step ScriptStep) (bool, Result) {
	rec := TurnRecord{Turn: n, Time: r.cfg.Now(), Tool: step.Tool, Target: step.Target.String()}
	out := ReplayStep{Step: n, Tool: step.Tool, Target: r.redact.String(step.Target.String())}
	input, target, why := r.resolve(step)
	var res toolapi.ToolResult
	if why == "" {
		var err error
		res, err = r.call(ctx, step.Tool, input)
		why = failureOf(res, err)
		if refsDied(res) {
			// The snapshot the step was resolved on is dead: a person
			// took the browser and handed it back (after a step that
			// brought no snapshot, such as the request_human_approval
			// the hand-back answered), or the page was drawn anew.
			// Nothing was done, and the failure carries a fresh
			// snapshot: the step is resolved again on it, once, by its
			// recorded description, as any step is.
			r.log.Info("the step's refs died; resolving it again on the fresh snapshot", "step", n, "tool", step.Tool, "target", out.Target)
			if input, target, why = r.resolve(step); why == "" {
				res, err = r.call(ctx, step.Tool, input)
				why = failureOf(res, err)
			}
		}
	}
	if target != nil && step.Target != nil && *target != *step.Target {
		out.Target = r.redact.String(fmt.Sprintf("%s (recorded as %s)", target, step.Target))
		rec.Target = out.Target
	}
	if why == "" {
		out.How, rec.Replay = StepReplayed, StepReplayed
		r.next.Steps = append(r.next.Steps, withTarget(step, target))
	} else {
		out.Why, rec.Error = why, why
		r.log.Info("step did not replay; recovering", "step", n, "tool", step.Tool, "target", out.Target, "why", r.redact.String(why))
		var stop *Result
		res, stop = r.recover(ctx, n, step, why, &out)
		if stop != nil {
			out.How = "failed"
			r.steps = append(r.steps, out)
			rec.InputTokens, rec.OutputTokens = out.Tokens.InputTokens, out.Tokens.OutputTokens
			r.redact.turn(&rec)
			r.cfg.Record.turn(rec, nil)
			return true, *stop
		}
		out.How = StepRecovered
		rec.Replay = fmt.Sprintf("%s by the model in %d call(s)", StepRecovered, out.ModelCalls)
	}
	r.steps = append(r.steps, out)
	rec.Result, rec.URL = describe(res), pageURL(res.JSON())
	rec.InputTokens, rec.OutputTokens = out.Tokens.InputTokens, out.Tokens.OutputTokens
	rec.CacheReadTokens, rec.CacheWriteTokens = out.Tokens.CacheReadTokens, out.Tokens.CacheWriteTokens
	if o, ok := parseOutcome(res.JSON()); ok {
		rec.Message = o.Message
	}
	r.redact.turn(&rec)
	img := res.Image
	if res.IsError {
		img = nil
	}
	r.cfg.Record.turn(rec, img)
	return r.ended(res)
}

// ended reports whether a result that worked ends the replay: an
// acknowledged complete_task, or a person who rejected a step.
func (r *replay) ended(res toolapi.ToolResult) (bool, Result) {
	o, _ := parseOutcome(res.JSON())
	switch {
	case o.Acknowledged != nil && *o.Acknowledged:
		var in struct {
			Status string `json:"status"`
		}
		_ = json.Unmarshal(r.lastInput, &in) // the server accepted it, so it parses
		if in.Status == "success" {
			return true, Result{Success: true, Reason: ReasonCompleted, Detail: o.Message}
		}
		return true, Result{Reason: ReasonTaskFailed, Detail: o.Message}
	case o.Approved != nil && !*o.Approved, o.Error != nil && *o.Error == string(toolapi.HumanRejected):
		return true, Result{Reason: ReasonTaskFailed, Detail: "a person rejected the step: " + o.Message}
	}
	return false, Result{}
}

// resolve finds the step's element on the newest snapshot (the one a
// recovered target moved to first) and returns the call's input with its
// ref, the target that found it, or why it cannot be replayed.
func (r *replay) resolve(step ScriptStep) (json.RawMessage, *StepTarget, string) {
	if step.ValueWithheld {
		return nil, nil, "the value was a password, which no script holds"
	}
	args := map[string]any{}
	if len(step.Args) > 0 {
		if err := json.Unmarshal(step.Args, &args); err != nil {
			return nil, nil, fmt.Sprintf("the step's arguments do not parse: %v", err)
		}
	}
	// Acts only where it recorded: on another page a same-named element is
	// another element, and may belong to another site.
	if step.Before.URL != "" && r.seen != nil {
		if why := r.where.page(step.Before.URL, r.seen.Page.URL); why != "" {
			return nil, nil, why
		}
	}
	if step.secretStep() && step.recordedOrigin() == "" {
		return nil, nil, "the step types a secret, and the script does not say on which site it was recorded"
	}
	target := step.Target
	if target != nil {
		if moved, ok := r.moved[*target]; ok {
			target = &moved
		}
		refs, how := target.find(r.seen)
		switch len(refs) {
		case 0:
			return nil, nil, fmt.Sprintf("no element matches %s", target)
		case 1:
			args["ref"] = refs[0]
			r.log.Debug("step target found", "target", target.String(), "by", how, "ref", refs[0])
		default:
			return nil, nil, fmt.Sprintf("%d elements match %s by %s: %s", len(refs), target, how, strings.Join(refs, ", "))
		}
	}
	input, err := json.Marshal(args)
	if err != nil {
		return nil, nil, fmt.Sprintf("encode the step's arguments: %v", err)
	}
	return input, target, ""
}

// refsDied reports whether a call failed because its ref was no longer
// live (ref_invalid): the page it was found on is gone.
func refsDied(res toolapi.ToolResult) bool {
	o, ok := parseOutcome(res.JSON())
	return ok && o.Error != nil && *o.Error == string(toolapi.RefInvalid)
}

// withTarget is step as it worked, on target.
func withTarget(step ScriptStep, target *StepTarget) ScriptStep {
	if target != nil {
		step.Target = target
	}
	return step
}

// call calls a tool and keeps the snapshot its result carries.
func (r *replay) call(ctx context.Context, name string, input json.RawMessage) (toolapi.ToolResult, error) {
	r.lastInput = input
	res, err := r.cfg.Tools.Call(ctx, name, input)
	if err == nil {
		r.noteResult(res)
	}
	return res, err
}

// failureOf says why a call did not work, or "" when it did.
func failureOf(res toolapi.ToolResult, err error) string {
	if err != nil {
		return err.Error()
	}
	outcome := describe(res)
	if recordable(outcome) {
		return ""
	}
	o, _ := parseOutcome(res.JSON())
	if o.Approved != nil || (o.Error != nil && *o.Error == string(toolapi.HumanRejected)) {
		// A person's no is an answer, not a failure to recover from.
		return ""
	}
	msg := o.Message
	if res.IsError {
		msg = res.Text
	}
	if msg == "" {
		return outcome
	}
	return outcome + ": " + clip(msg, 300)
}

// recover gives a step that did not replay to the model, then to the
// person. It returns the result of the call that worked, or the result
// that ends the replay.
func (r *replay) recover(ctx context.Context, n int, step ScriptStep, why string, out *ReplayStep) (toolapi.ToolResult, *Result) {
	var failures []string
	failures = append(failures, fmt.Sprintf("replay of %s(%s): %s", step.Tool, step.Target, why))
	hint := ""
	for round := 0; round < 2; round++ {
		if r.hasModel() {
			calls := r.attempts
			if round > 0 {
				calls = 1
			}
			for range calls {
				res, worked, err := r.askModel(ctx, n, step, why, hint, out)
				if err != nil {
					return toolapi.ToolResult{}, &Result{Reason: ReasonAPIError, Detail: err.Error()}
				}
				if worked {
					return res, nil
				}
				why = failureOf(res, nil)
				failures = append(failures, "model's attempt: "+why)
			}
		}
		if round > 0 {
			break
		}
		if r.cfg.Ask == nil {
			return toolapi.ToolResult{}, &Result{Reason: ReasonStuck, Detail: fmt.Sprintf("step %d (%s) did not replay: %s", n, step.Tool, why)}
		}
		q := StuckQuestion{Goal: r.redact.String(r.cfg.Goal), Failures: failures}
		if r.seen != nil {
			q.URL, q.Title = r.redact.String(r.seen.Page.URL), r.redact.String(r.seen.Page.Title)
		}
		for i := range q.Failures {
			q.Failures[i] = r.redact.String(q.Failures[i])
		}
		ans, err := r.cfg.Ask(ctx, q)
		switch {
		case err != nil:
			return toolapi.ToolResult{}, &Result{Reason: ReasonStuck, Detail: "asking a person failed: " + err.Error()}
		case ans.Stop:
			return toolapi.ToolResult{}, &Result{Reason: ReasonStuck, Detail: firstNonEmpty(ans.Hint, "a person stopped the replay")}
		case strings.TrimSpace(ans.Hint) != "" && r.hasModel():
			hint = strings.TrimSpace(ans.Hint)
			continue
		}
		// Continue: the page may have changed since; try the step as
		// recorded once more.
		if err := r.look(ctx); err != nil {
			return toolapi.ToolResult{}, &Result{Reason: ReasonBrowserError, Detail: err.Error()}
		}
		input, target, w := r.resolve(step)
		if w == "" {
			res, err := r.call(ctx, step.Tool, input)
			if w = failureOf(res, err); w == "" {
				r.next.Steps = append(r.next.Steps, withTarget(step, target))
				return res, nil
			}
		}
		return toolapi.ToolResult{}, &Result{Reason: ReasonStuck, Detail: fmt.Sprintf("step %d (%s) did not replay: %s", n, step.Tool, w)}
	}
	return toolapi.ToolResult{}, &Result{Reason: ReasonStuck, Detail: fmt.Sprintf("step %d (%s) could not be recovered: %s", n, step.Tool, why)}
}

// askModel asks the model to do one step on a fresh snapshot, and performs
// the call it answers with. worked says whether that call worked; the
// step then goes to the next script, and a new target for the same
// element is remembered.
func (r *replay) askModel(ctx context.Context, n int, step ScriptStep, why, hint string, out *ReplayStep) (toolapi.ToolResult, bool, error) {
	if err := r.look(ctx); err != nil {
		return toolapi.ToolResult{}, false, err
	}
	before := r.seen
	req := Request{System: r.system, Tools: r.specs, MaxTokens: r.cfg.MaxTokens, Cache: !r.cfg.NoCache,
		Messages: []Message{{Role: RoleUser, Content: []Block{Text(recoverPrompt(n, len(r.script.Steps), step, why, hint)), resultText(r.page)}}}}
	if r.page.Image != nil {
		req.Messages[0].Content = append(req.Messages[0].Content, ImageOf(r.page.Image))
	}
	resp, _, err := r.ask(ctx, req)
	if err != nil {
		return toolapi.ToolResult{}, false, err
	}
	out.ModelCalls++
	out.Tokens.Add(resp.Usage)
	r.tokens.Add(resp.Usage)
	var call *Block
	for i := range resp.Content {
		if resp.Content[i].Type == ToolUseBlock {
			call = &resp.Content[i]
			break
		}
	}
	if call == nil {
		return toolapi.ToolResult{Text: "the model did not call a tool", IsError: true}, false, nil
	}
	r.redact.notePassword(call.Name, call.Input, before)
	if why := secretElsewhere(step, call.Input, before, r.where); why != "" {
		r.log.Warn("model's call refused", "step", n, "tool", call.Name, "why", why)
		return toolapi.ToolResult{Text: why, IsError: true}, false, nil
	}
	res, err := r.call(ctx, call.Name, call.Input)
	if w := failureOf(res, err); w != "" {
		if err != nil {
			res = toolapi.ToolResult{Text: w, IsError: true}
		}
		return res, false, nil
	}
	if s, ok := stepOf(call.Name, call.Input, before, r.redact); ok {
		// The next version speaks of the recorded site, as its other
		// steps and its start URL do.
		s.Before.URL = r.where.back(s.Before.URL)
		if s.Target != nil {
			s.Target.Frame = r.where.back(s.Target.Frame)
		}
		r.next.Steps = append(r.next.Steps, s)
		if step.Target != nil && s.Target != nil {
			r.moved[*step.Target] = *s.Target
		}
	}
	return res, true, nil
}

// recoverPrompt tells the model which step did not replay and why.
func recoverPrompt(n, of int, step ScriptStep, why, hint string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are replaying a recorded flow, step by step. Step %d of %d did not replay.\n", n, of)
	fmt.Fprintf(&b, "The step: %s", step.Tool)
	if step.Target != nil {
		fmt.Fprintf(&b, " on %s", step.Target)
		if step.Target.Label != "" {
			fmt.Fprintf(&b, " (labelled %q)", step.Target.Label)
		}
	}
	if len(step.Args) > 0 {
		fmt.Fprintf(&b, " with %s", step.Args)
	}
	fmt.Fprintf(&b, ", recorded on the page %q.\n", step.Before.Title)
	fmt.Fprintf(&b, "Why it did not replay: %s\n", why)
	if hint != "" {
		fmt.Fprintf(&b, "A person looked at the page and says: %s\n", hint)
	}
	b.WriteString("Do this one step on the page as it is now, with one tool call on a ref of the snapshot below: the element that does what the recorded one did, even if its label changed. Do not do later steps.\nThe page now:")
	return b.String()
}

// secretElsewhere says why a call the model answered with during a
// replay's recovery must not run: it types a secret or a password on
// another site than the one the step was recorded on (its frame's, or its
// page's), or the script does not say which that was. "" lets it run.
func secretElsewhere(step ScriptStep, input json.RawMessage, before *snapshot.Snapshot, where placeMap) string {
	if !typesSecret(input, before) {
		return ""
	}
	want := where.origin(step.recordedOrigin())
	if want == "" {
		return "refused: the call types a secret or a password, and the script does not say on which site the step was recorded"
	}
	var in struct {
		Ref string `json:"ref"`
	}
	_ = json.Unmarshal(input, &in) // typesSecret read it
	if before == nil {
		return "refused: the call types a secret or a password, and the page it would go to is unknown"
	}
	at := before.Page.URL
	if e, ok := before.Element(in.Ref); ok && e.Frame != "" {
		at = e.Frame
	}
	if origin(at) != want {
		return fmt.Sprintf("refused: the call types a secret or a password on %s, but the step was recorded on %s; a secret is typed only on the site it was recorded on", firstNonEmpty(origin(at), at), want)
	}
	return ""
}

// pathOf is a URL's path, "" when it does not parse.
func pathOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Path
}
