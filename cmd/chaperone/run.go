package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/chaperone-mcp/chaperone/approver"
	"github.com/chaperone-mcp/chaperone/audit"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/driver"
	"github.com/chaperone-mcp/chaperone/server"
	"github.com/chaperone-mcp/chaperone/tools"
)

// runCmd drives one task unattended with Claude, through the same server code
// as any MCP client, and leaves a run record.
func runCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "run", "run --goal TEXT [flags]")
	goal := fs.String("goal", "", "the `task`, in plain words (required)")
	profile := fs.String("profile", "", "the profile: a built-in `name` ("+strings.Join(checkpoint.BuiltinProfiles(), ", ")+") or a JSON file")
	startURL := fs.String("url", "", "the `URL` to start at (default: the profile's start URL)")
	model := fs.String("model", driver.DefaultModel, "the Claude `model`")
	maxTurns := fs.Int("max-turns", 0, "the most model calls (default: the profile's, else 20)")
	modelTimeout := fs.Duration("model-timeout", driver.DefaultModelTimeout, "the time one model call may take")
	dryRun := fs.Bool("dry-run", false, "refuse every step that needs approval, without asking: rehearse a flow without performing it")
	af := addApproverFlags(fs, "tty")
	out := fs.String("out", "", "the run record `dir` (default: runs/<time>-<id>)")
	cf := addCommonFlags(fs, "info")
	rest, err := parseFlags(fs, args, e.getenv)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q (the task goes in --goal)", rest[0])
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
	var p *checkpoint.Profile
	if *profile != "" {
		if p, err = checkpoint.LoadProfile(*profile); err != nil {
			return fmt.Errorf("--profile: %w", err)
		}
	}
	if *startURL == "" && p == nil {
		return errors.New("say where to start: --url, or a --profile with a start URL")
	}
	res, err := drive(ctx, e, task{
		setup: st, goal: *goal, profile: p, startURL: *startURL,
		model: claude, modelName: claude.Name(), modelTimeout: *modelTimeout,
		maxTurns: *maxTurns, dryRun: *dryRun, approvers: af, outDir: *out,
	})
	if err != nil {
		return err
	}
	if !res.Success {
		return fmt.Errorf("the task did not succeed: %s", res.Reason)
	}
	return nil
}

// task is one driven run, as run and demo set it up.
type task struct {
	setup
	goal         string
	profile      *checkpoint.Profile // nil: no checkpoints, nothing verifiable
	startURL     string              // overrides the profile's
	model        driver.Model
	modelName    string
	modelTimeout time.Duration
	maxTurns     int
	dryRun       bool
	approvers    *approverFlags
	// approver, when set, is used instead of the one approvers names
	// (tests answer through it).
	approver checkpoint.Approver
	outDir   string
	// record, when set, receives the path of the run record as soon as it
	// exists.
	record func(dir string)
}

// drive runs t: it resolves the start (serving the demo site if the profile
// needs it), starts the browser, the MCP server and an in-process client of
// it, runs the driver loop, and prints the outcome, the tokens, the cost and
// the report's path on stdout.
func drive(ctx context.Context, e *env, t task) (driver.Result, error) {
	log := t.log
	start, err := resolveStart(log, t.policy, t.startURL, t.profile)
	if err != nil {
		return driver.Result{}, err
	}
	defer start.stop()
	p := start.profile
	t.tools.StartURL = start.url
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
	if approver == nil {
		a, closeApprover, err := t.approvers.open(e, log, rec.Dir())
		if err != nil {
			return driver.Result{}, err
		}
		defer closeApprover()
		approver = a
	}

	mgr, err := tools.NewManager(ctx, t.browser, t.tools)
	if err != nil {
		return driver.Result{}, err
	}
	defer func() {
		if err := mgr.Close(); err != nil {
			log.Warn("close the browser", "err", err)
		}
	}()
	srv, err := server.New(server.Config{
		NewSession: func(ctx context.Context) (server.Session, error) {
			gate := checkpoint.NewGate(p, approver, checkpoint.Options{DryRun: t.dryRun, Session: "driver", Audit: auditLog, Logger: log})
			return mgr.NewSession(ctx, tools.WithGate(gate), tools.WithAudit(auditLog))
		},
		MaxSessions: 1,
		Version:     version(),
		Logger:      log,
	})
	if err != nil {
		return driver.Result{}, err
	}
	defer srv.Close()
	browserTools, closeClient, err := server.ConnectInProcess(ctx, srv)
	if err != nil {
		return driver.Result{}, err
	}
	defer closeClient()

	fmt.Fprintf(e.stdout, "Goal: %s\nModel: %s · start: %s · record: %s\n", t.goal, t.modelName, t.tools.StartURL, rec.Dir())
	res, err := driver.Run(ctx, driver.Config{
		Model: t.model, ModelName: t.modelName, Tools: browserTools,
		Goal: t.goal, Guidance: guidance, MaxTurns: maxTurns, ModelTimeout: t.modelTimeout,
		Record: rec, Logger: log,
	})
	if err != nil {
		return driver.Result{}, err
	}
	printResult(e.stdout, res, rec.ReportPath())
	return res, nil
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
	fmt.Fprintf(w, "\nTurns: %d · tokens: %d in, %d out · ", res.Turns, res.Tokens.InputTokens, res.Tokens.OutputTokens)
	if res.Priced {
		fmt.Fprintf(w, "cost: $%.4f at %s list price\n", res.Cost, res.Model)
	} else {
		fmt.Fprintf(w, "cost: unknown (no price on file for %s)\n", res.Model)
	}
	fmt.Fprintf(w, "Report: %s\n", report)
}

// approverFlags choose how a human is asked.
type approverFlags struct {
	kind          string
	openConsole   bool
	webListen     string
	webhookURL    string
	webhookToken  string
	webhookListen string
}

// addApproverFlags defines the approver flags on fs, with def the default.
func addApproverFlags(fs *flag.FlagSet, def string) *approverFlags {
	a := &approverFlags{}
	fs.StringVar(&a.kind, "approver", def, "`who` approves the steps that matter: tty (this terminal), web (a local console page) or webhook")
	fs.StringVar(&a.webListen, "web-listen", "127.0.0.1:0", "the `addr` of the web approval console")
	fs.BoolVar(&a.openConsole, "open-approvals", false, "open the web approval console in the default browser each time an approval waits")
	fs.StringVar(&a.webhookURL, "webhook-url", "", "with --approver webhook: the `URL` each approval request is POSTed to")
	fs.StringVar(&a.webhookToken, "webhook-token", "", "with --approver webhook: the bearer `token` decisions must carry (prefer $CHAPERONE_WEBHOOK_TOKEN)")
	fs.StringVar(&a.webhookListen, "webhook-listen", "127.0.0.1:0", "with --approver webhook: the `addr` decisions are POSTed back to (/approvals/{id})")
	return a
}

// mcpTransport is how the agent reaches the command, which decides who can
// be asked.
type mcpTransport int

const (
	// overStdio is serve on stdin and stdout.
	overStdio mcpTransport = iota
	// overHTTP is serve --http.
	overHTTP
	// inProcess is run and demo: their own driver is the MCP client, with no
	// person behind it to answer an elicitation.
	inProcess
)

// approverChain says which channels the --approver choice asks through under
// transport t, in the order they are tried: checkpoint.First falls through
// to the next when one cannot reach a person. It only decides; start opens
// the channels.
func approverChain(choice string, t mcpTransport) ([]checkpoint.Channel, error) {
	switch choice {
	case "tty":
		return []checkpoint.Channel{checkpoint.ChannelTTY}, nil
	case "web":
		return []checkpoint.Channel{checkpoint.ChannelWeb}, nil
	case "webhook":
		return []checkpoint.Channel{checkpoint.ChannelWebhook}, nil
	case "auto":
		if t != inProcess {
			return []checkpoint.Channel{checkpoint.ChannelElicitation, checkpoint.ChannelWeb}, nil
		}
	case "elicitation":
		if t != inProcess {
			return []checkpoint.Channel{checkpoint.ChannelElicitation}, nil
		}
	}
	return nil, fmt.Errorf("--approver %q: want tty, web or webhook", choice)
}

// open starts the approver the flags name for run and demo, and returns it
// with its closer.
func (a *approverFlags) open(e *env, log *slog.Logger, dir string) (checkpoint.Approver, func(), error) {
	chain, err := approverChain(a.kind, inProcess)
	if err != nil {
		return nil, nil, err
	}
	// In process nothing comes before the one channel: there is no client
	// to ask first.
	return a.start(e, log, dir, chain[0])
}

// start opens the approver of channel c, which lives as long as the command,
// and returns it with its closer. dir is where the terminal saves
// screenshots. Elicitation is not started here: each MCP session brings its
// own.
func (a *approverFlags) start(e *env, log *slog.Logger, dir string, c checkpoint.Channel) (checkpoint.Approver, func(), error) {
	switch c {
	case checkpoint.ChannelTTY:
		t, err := approver.OpenTTY()
		if err != nil {
			return nil, nil, fmt.Errorf("--approver tty: %w (no terminal here: try --approver web)", err)
		}
		t.ScreenshotDir = dir
		return t, func() { t.Close() }, nil
	case checkpoint.ChannelWeb:
		w, err := approver.NewWeb(approver.WebOptions{
			Logger: log,
			OnPending: func(url string, r checkpoint.Request) {
				fmt.Fprintf(e.stderr, "\nApproval needed: %s\nOpen %s to approve or reject.\n", r.Prompt(), url)
				if a.openConsole {
					if err := openInBrowser(url); err != nil {
						log.Warn("could not open the approval console", "err", err)
					}
				}
			},
		})
		if err != nil {
			return nil, nil, err
		}
		if err := w.Listen(a.webListen); err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(e.stderr, "Approval console: %s\n", w.URL())
		return w, func() { w.Close() }, nil
	case checkpoint.ChannelWebhook:
		ln, err := net.Listen("tcp", a.webhookListen)
		if err != nil {
			return nil, nil, fmt.Errorf("--webhook-listen: %w", err)
		}
		h, err := approver.NewWebhook(approver.WebhookOptions{
			URL: a.webhookURL, Token: a.webhookToken, Logger: log,
			CallbackURL: "http://" + ln.Addr().String() + "/approvals/",
		})
		if err != nil {
			ln.Close()
			return nil, nil, fmt.Errorf("--approver webhook: %w", err)
		}
		srv := &http.Server{Handler: h.Handler(), ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		return h, func() { srv.Close() }, nil
	}
	return nil, nil, fmt.Errorf("the %s approver comes with each MCP session, not with the command", c)
}

// openInBrowser opens url in the user's default browser, as the platform's
// own opener does.
func openInBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("open %s: %w", url, err)
	}
	go cmd.Wait() // reap it; the browser outlives the opener
	return nil
}
