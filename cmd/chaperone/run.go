package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	approverpkg "github.com/chaperone-mcp/chaperone/approver"
	"github.com/chaperone-mcp/chaperone/audit"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/driver"
	"github.com/chaperone-mcp/chaperone/fleet"
	"github.com/chaperone-mcp/chaperone/internal/totp"
	"github.com/chaperone-mcp/chaperone/server"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/tools"
	"github.com/google/uuid"
)

// runCmd drives one task unattended with Claude, through the same server code
// as any MCP client, and leaves a run record.
func runCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "run", "run --goal TEXT [flags]")
	goal := fs.String("goal", "", "the `task`, in plain words (required)")
	sf := addSiteFlags(fs, "the `URL` to start at (default: the profile's start URL)")
	model := fs.String("model", driver.DefaultModel, "the Claude `model`")
	maxTurns := fs.Int("max-turns", 0, "the most model calls (default: the profile's, else 20)")
	modelTimeout := fs.Duration("model-timeout", driver.DefaultModelTimeout, "the time one model call may take")
	dryRun := fs.Bool("dry-run", false, "refuse every step that needs approval, without asking: rehearse a flow without performing it")
	plan := fs.Bool("plan", false, "show the model's plan (steps, sites to write on and read) to the person before the first action; the sites they approve need no more asking, gated steps still ask")
	tf := addTaskFlags(fs)
	cf := addCommonFlags(fs, "info")
	keepStills(fs)
	if err := parseNoArgs(fs, args, e.getenv, "the task goes in --goal"); err != nil {
		return err
	}
	if strings.TrimSpace(*goal) == "" {
		return errors.New("--goal is required: say what the browser should do")
	}
	// Everything that can be refused is refused before a browser starts:
	// first of all a missing API key.
	cc, err := driver.ClaudeConfigFromEnv(e.getenv, *model)
	if err != nil {
		return err
	}
	claude, err := driver.NewClaude(cc)
	if err != nil {
		return err
	}
	st, err := cf.setup(e.stderr)
	if err != nil {
		return err
	}
	t, err := sf.task(e, tf, st)
	if err != nil {
		return err
	}
	if t.startURL == "" && t.profiles.named == nil {
		return errors.New("say where to start: --url, or a --profile with a start URL")
	}
	t.goal = *goal
	t.model, t.modelName, t.modelTimeout = claude, claude.Name(), *modelTimeout
	t.maxTurns, t.dryRun, t.plan = *maxTurns, *dryRun, *plan
	res, err := drive(ctx, e, t)
	if err != nil {
		return err
	}
	if !res.Success {
		return fmt.Errorf("the task did not succeed: %s", res.Reason)
	}
	return nil
}

// siteFlags are the flags of run and replay that say where a task starts
// and under which rules: --profile, --secret, --totp and --url.
type siteFlags struct {
	profile *string
	secrets *listFlag
	totp    *listFlag
	url     *string
}

func addSiteFlags(fs *flag.FlagSet, urlUsage string) *siteFlags {
	return &siteFlags{profile: addProfileFlag(fs), secrets: addSecretFlag(fs), totp: addTOTPFlag(fs), url: fs.String("url", "", urlUsage)}
}

// task returns the task the flags say, on st, once what can be refused
// before a browser starts was not: a secret that is not set, an approver
// that cannot be reached, a profile that does not load.
func (f *siteFlags) task(e *env, tf *taskFlags, st setup) (task, error) {
	secrets, err := secretValues(*f.secrets, e.getenv)
	if err != nil {
		return task{}, err
	}
	codes, err := totpKeys(*f.totp, e.getenv, secrets)
	if err != nil {
		return task{}, err
	}
	if _, err := approverChain(tf.approvers.kind, inProcess, e.terminal); err != nil {
		return task{}, err
	}
	profs, err := loadProfiles(*f.profile, e.stderr)
	if err != nil {
		return task{}, err
	}
	t := tf.task(st)
	t.profiles, t.secrets, t.codes, t.startURL = profs, secrets, codes, *f.url
	t.profileName = scriptProfile(*f.profile)
	return t, nil
}

// scriptProfile is how a script names the profile --profile named, so that
// a replay from another directory loads it again: a built-in profile by
// name, a file by absolute path, and nothing for the default policy or for
// none (a replay is not run with the checkpoints off unless the person says
// so again).
func scriptProfile(name string) string {
	if name == "" || name == profileNone || slices.Contains(checkpoint.BuiltinProfiles(), name) {
		return strings.TrimPrefix(name, profileNone)
	}
	if abs, err := filepath.Abs(name); err == nil {
		return abs
	}
	return name
}

// taskFlags are the flags of the commands that drive a task in process,
// run and demo: who approves, where the run record goes, and how the tools'
// results read to the model.
type taskFlags struct {
	approvers *approverFlags
	out       *string
	text      *textFormat
	via       *string
}

func addTaskFlags(fs *flag.FlagSet) *taskFlags {
	return &taskFlags{
		approvers: addApproverFlags(fs, true),
		out:       fs.String("out", "", "the run record `dir` (default: runs/<time>-<id>)"),
		text:      addSnapshotTextFlag(fs),
		via:       fs.String("via", viaMCP, "how the driver calls the tools: `mcp` (through the MCP server in process, as any client) or direct (the tools in process, without the protocol)"),
	}
}

// The ways a driven task reaches the tools (--via).
const (
	viaMCP    = "mcp"
	viaDirect = "direct"
)

// task returns the task the flags say, on st.
func (f *taskFlags) task(st setup) task {
	return task{setup: st, approvers: f.approvers, outDir: *f.out, text: server.TextFormat(*f.text), via: *f.via}
}

// task is one driven run, as run and demo set it up.
type task struct {
	setup
	goal     string
	profiles profiles
	// profileName is the named profile as a script records it (see
	// scriptProfile).
	profileName string
	// secrets are the values of --secret, by name, and codes the keys of
	// --totp.
	secrets      map[string]string
	codes        map[string]totp.Key
	startURL     string // overrides the profile's
	model        driver.Model
	modelName    string
	modelTimeout time.Duration
	maxTurns     int
	dryRun       bool
	// plan has the run show its plan before the first action (--plan).
	plan      bool
	approvers *approverFlags
	// approver, when set, is used instead of the one approvers names
	// (tests answer through it).
	approver checkpoint.Approver
	outDir   string
	// text is how the tools' results read to the model (--snapshot-text).
	text server.TextFormat
	// via is how the driver calls the tools (--via): viaMCP, the default
	// for "", or viaDirect.
	via string
	// record, when set, receives the path of the run record as soon as it
	// exists.
	record func(dir string)
	// script, when set, is replayed instead of driving the goal with the
	// model, which then only recovers the steps that do not replay (model
	// may be nil).
	script *driver.Script
}

// drive runs t: it resolves the start (serving the demo site if the profile
// needs it), starts the browser, the MCP server and an in-process client of
// it, runs the driver loop, and prints the outcome, the tokens, the cost and
// the report's path on stdout.
func drive(ctx context.Context, e *env, t task) (driver.Result, error) {
	log := t.log
	if err := t.checkVia(); err != nil {
		return driver.Result{}, err
	}
	start, err := resolveStart(log, t.policy, t.startURL, t.profiles.named)
	if err != nil {
		return driver.Result{}, err
	}
	defer start.stop()
	p := t.profiles.gate(start.profile)
	t.tools.StartURL = start.url
	t.tools.URLPolicy = start.policy
	t.tools.Secrets = t.secrets
	t.tools.TOTP = t.codes
	maxTurns := t.maxTurns
	if maxTurns <= 0 && p != nil {
		maxTurns = p.MaxTurns
	}
	var guidance string
	if p != nil {
		guidance = p.Guidance
	}

	outDir := t.outDir
	if outDir == "" {
		outDir = driver.DefaultRecordDir("runs", time.Now())
	}
	rec, err := driver.NewRecorder(outDir)
	if err != nil {
		return driver.Result{}, err
	}
	defer func() {
		if err := rec.Close(); err != nil {
			log.Warn("run record incomplete", "err", err)
		}
	}()
	if t.record != nil {
		t.record(rec.Dir())
	}
	auditLog, err := audit.Open(rec.Dir(), "driver")
	if err != nil {
		return driver.Result{}, err
	}
	defer auditLog.Close()

	approver := t.approver
	if approver == nil && t.dryRun {
		// A dry run refuses every gated action without asking: it needs
		// no channel to a person, and opens none.
		approver = dryRunApprover()
	}
	if approver == nil {
		a, closeApprover, err := t.approvers.open(e, log, rec.Dir(), &t.tools.URLPolicy)
		if err != nil {
			return driver.Result{}, err
		}
		defer closeApprover()
		approver = a
	}

	mgr, err := fleet.New(ctx, t.browser, t.fleetConfig(t.tools))
	if err != nil {
		return driver.Result{}, err
	}
	defer func() {
		if err := mgr.Close(); err != nil {
			log.Warn("close the browser", "err", err)
		}
	}()
	newSession := func(ctx context.Context) (*tools.Session, error) {
		// Every run is recorded, into its record beside report.html,
		// which plays it.
		recorded, err := openRecording(filepath.Join(rec.Dir(), driver.RecordingDir), "driver", auditLog)
		if err != nil {
			return nil, err
		}
		gate := checkpoint.NewGate(p, approver, checkpoint.Options{DryRun: t.dryRun, Session: "driver", Audit: recorded, Logger: log})
		s, err := tools.Open(ctx, mgr, t.tools, tools.WithGate(gate), tools.WithAudit(auditLog), tools.WithRecording(recorded))
		if err != nil {
			recorded.Close()
			return nil, err
		}
		web, _ := approver.(*approverpkg.Web)
		if _, err := attachLive(web, e.stderr, "driver", s); err != nil { // takeover.go
			s.Close()
			return nil, err
		}
		attachRecording(web, e.stderr, "driver", recorded) // record.go
		return s, nil
	}
	browserTools, closeTools, err := connectTools(ctx, t, log, newSession)
	if err != nil {
		return driver.Result{}, err
	}
	defer closeTools()

	modelName := t.modelName
	if modelName == "" {
		modelName = "none"
	}
	fmt.Fprintf(e.stdout, "Goal: %s\nModel: %s · start: %s · record: %s\n", t.goal, modelName, t.tools.StartURL, rec.Dir())
	cfg := driver.Config{
		Model: t.model, ModelName: t.modelName, Tools: browserTools,
		Goal: t.goal, Guidance: guidance, MaxTurns: maxTurns, ModelTimeout: t.modelTimeout,
		Record: rec, Secrets: t.secrets, Logger: log, Ask: askWhenStuck(approver),
		Origin: driver.ScriptOrigin{Start: start.portable(), Profile: t.profileName},
		Plan:   t.plan,
	}
	if t.script != nil {
		out, err := driver.Replay(ctx, driver.ReplayConfig{Script: t.script, Config: cfg})
		if err != nil {
			return driver.Result{}, err
		}
		printSteps(e.stdout, out)
		printResult(e.stdout, out.Result, rec.ReportPath())
		if out.Script != nil {
			fmt.Fprintf(e.stdout, "Recovered steps: the script's version %d is %s\n", out.Script.Version, filepath.Join(rec.Dir(), driver.ScriptVersionName(out.Script.Version)))
		}
		return out.Result, nil
	}
	res, err := driver.Run(ctx, cfg)
	if err != nil {
		return driver.Result{}, err
	}
	printResult(e.stdout, res, rec.ReportPath())
	if res.Success {
		script := filepath.Join(rec.Dir(), driver.ScriptName)
		if abs, err := filepath.Abs(script); err == nil {
			script = abs
		}
		// The command is printed to be pasted: the script says where to
		// start and under which profile, so it needs no flags.
		fmt.Fprintf(e.stdout, "Script: %s\nReplay it: chaperone replay %s\n", script, shellQuote(script))
	}
	return res, nil
}

// connectTools opens the driver's way to the tools that --via names: an MCP
// server with one session and an in-process client of it, or the session
// itself, called directly. The function it returns closes what it opened.
func connectTools(ctx context.Context, t task, log *slog.Logger, newSession func(context.Context) (*tools.Session, error)) (toolapi.Tools, func(), error) {
	if err := t.checkVia(); err != nil {
		return nil, nil, err
	}
	if t.via == viaDirect {
		s, err := newSession(ctx)
		if err != nil {
			return nil, nil, err
		}
		return tools.Direct(s), func() { s.Close() }, nil
	}
	srv, err := server.New(server.Config{
		NewSession: func(ctx context.Context) (server.Session, error) {
			s, err := newSession(ctx)
			if err != nil {
				return nil, err
			}
			return s, nil
		},
		MaxSessions: 1,
		Version:     version(),
		Logger:      log,
		Text:        t.text,
		Caps:        t.tools.Caps,
	})
	if err != nil {
		return nil, nil, err
	}
	c, closeClient, err := server.ConnectInProcess(ctx, srv)
	if err != nil {
		srv.Close()
		return nil, nil, err
	}
	return c, func() { closeClient(); srv.Close() }, nil
}

// checkVia refuses a --via that names no way, or one the other flags
// contradict.
func (t task) checkVia() error {
	switch t.via {
	case viaMCP, "":
		return nil
	case viaDirect:
		if t.text == server.TextJSON {
			return fmt.Errorf("--snapshot-text json needs --via %s: the direct way renders compact text", viaMCP)
		}
		return nil
	}
	return fmt.Errorf("--via %q: want %s or %s", t.via, viaMCP, viaDirect)
}

// shellQuote quotes s for a POSIX shell when it holds anything but the
// characters a path usually has.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:=@,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// askWhenStuck asks the person, through the approver, what to do with an
// agent that keeps failing: an approval continues (its feedback is a hint
// for the model), a rejection stops the run.
func askWhenStuck(a checkpoint.Approver) driver.AskPerson {
	return func(ctx context.Context, q driver.StuckQuestion) (driver.StuckAnswer, error) {
		d, err := a.Approve(ctx, checkpoint.Request{
			// The driver's session: the console's view of it has the live
			// view, where the person may take over and hand back instead.
			ID: uuid.NewString(), Session: "driver", Kind: checkpoint.KindAgent, Action: driver.StuckPrompt,
			Words:  "The calls that failed or made no progress:\n- " + strings.Join(q.Failures, "\n- "),
			Reason: "Approve to let the agent continue (write a hint for it if you have one); reject to stop the run.",
			URL:    q.URL, Title: q.Title, Time: time.Now(),
		})
		if err != nil {
			return driver.StuckAnswer{}, fmt.Errorf("ask a person: %w", err)
		}
		return driver.StuckAnswer{Stop: !d.Approved, Hint: d.Feedback}, nil
	}
}

// printSteps prints how each step of a replay went.
func printSteps(w io.Writer, out driver.ReplayResult) {
	for _, s := range out.Steps {
		fmt.Fprintf(w, "step %d %s %s: %s", s.Step, s.Tool, checkpoint.OneLine(s.Target), s.How)
		if s.Why != "" {
			fmt.Fprintf(w, " (%s)", checkpoint.OneLine(s.Why))
		}
		if s.ModelCalls > 0 {
			fmt.Fprintf(w, " · %d model call(s), %d tokens in, %d out", s.ModelCalls, s.Tokens.InputTokens, s.Tokens.OutputTokens)
		}
		fmt.Fprintln(w)
	}
}

// printResult prints how the run ended, what it cost and where the report is.
func printResult(w io.Writer, res driver.Result, report string) {
	outcome := "FAILED"
	if res.Success {
		outcome = "SUCCEEDED"
	}
	fmt.Fprintf(w, "\n%s: %s", outcome, res.Reason)
	if res.Detail != "" {
		fmt.Fprintf(w, " (%s)", res.Detail)
	}
	fmt.Fprintf(w, "\nTurns: %d · tokens: %d in", res.Turns, res.Tokens.InputTokens)
	if t := res.Tokens; t.CacheReadTokens+t.CacheWriteTokens > 0 {
		fmt.Fprintf(w, " (%d read from the prompt cache, %d written to it)", t.CacheReadTokens, t.CacheWriteTokens)
	}
	fmt.Fprintf(w, ", %d out · ", res.Tokens.OutputTokens)
	switch {
	case res.Model == "":
		fmt.Fprintln(w, "cost: none (no model was called)")
	case res.Priced:
		fmt.Fprintf(w, "cost: $%.4f at %s list price\n", res.Cost, res.Model)
	default:
		fmt.Fprintf(w, "cost: unknown (no price on file for %s)\n", res.Model)
	}
	fmt.Fprintf(w, "Report: %s\n", report)
}
