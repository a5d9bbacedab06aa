package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/chaperone-mcp/chaperone/approver"
	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// approverFlags choose how a human is asked.
type approverFlags struct {
	kind          string
	openConsole   bool
	webListen     string
	webhookURL    string
	webhookToken  string
	webhookListen string
}

// addApproverFlags defines the approver flags on fs. inProcess says that the
// command's agent is its own (run, demo), with no MCP client to ask.
func addApproverFlags(fs *flag.FlagSet, inProcess bool) *approverFlags {
	a := &approverFlags{}
	help := "`who` approves the steps that matter: auto (over stdio, MCP elicitation when the client declares it, else the web console;\n" +
		"with --http, the web console), web (a loopback console page), tty (the controlling terminal), webhook,\n" +
		"or elicitation (the MCP client asks its user: this trusts the client program to show a person, which with --http\n" +
		"the server cannot tell)"
	if inProcess {
		help = "`who` approves the steps that matter: auto (this terminal when stdin is one, else the web console),\n" +
			"tty (this terminal), web (a loopback console page) or webhook"
	}
	fs.StringVar(&a.kind, "approver", "auto", help)
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

// approverChoices lists the --approver values valid under transport t.
func approverChoices(t mcpTransport) []string {
	if t == inProcess {
		return []string{"auto", "tty", "web", "webhook"}
	}
	return []string{"auto", "elicitation", "tty", "web", "webhook"}
}

// approverChain says which channels the --approver choice asks through under
// transport t, in the order they are tried: checkpoint.First falls through
// to the next when one cannot reach a person. terminal says whether the
// command's stdin is a terminal, where a person sits for "auto" in process.
// It only decides; start opens the channels.
//
// Over HTTP "auto" never means elicitation: any program can be the client
// there, and nothing shows that a person reads what it is sent.
func approverChain(choice string, t mcpTransport, terminal bool) ([]checkpoint.Channel, error) {
	switch choice {
	case "tty":
		return []checkpoint.Channel{checkpoint.ChannelTTY}, nil
	case "web":
		return []checkpoint.Channel{checkpoint.ChannelWeb}, nil
	case "webhook":
		return []checkpoint.Channel{checkpoint.ChannelWebhook}, nil
	case "auto":
		switch {
		case t == overStdio:
			return []checkpoint.Channel{checkpoint.ChannelElicitation, checkpoint.ChannelWeb}, nil
		case t == inProcess && terminal:
			return []checkpoint.Channel{checkpoint.ChannelTTY}, nil
		}
		return []checkpoint.Channel{checkpoint.ChannelWeb}, nil
	case "elicitation":
		if t != inProcess {
			return []checkpoint.Channel{checkpoint.ChannelElicitation}, nil
		}
		return nil, fmt.Errorf("--approver %q: here the agent is chaperone's own, with no MCP client to ask; want %s",
			choice, orList(approverChoices(t)))
	}
	return nil, fmt.Errorf("--approver %q: want %s", choice, orList(approverChoices(t)))
}

// orList writes "a, b or c".
func orList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// errDryRun is how a dry run answers every question for a person: nobody
// is asked, so no approval channel is opened.
var errDryRun = fmt.Errorf("%w: --dry-run asks nobody and performs no gated action", checkpoint.ErrNoApprover)

// dryRunApprover is the approver of a dry run: it refuses at once, saying
// why, without reaching anyone.
func dryRunApprover() checkpoint.Approver {
	return checkpoint.ApproverFunc(func(context.Context, checkpoint.Request) (checkpoint.Decision, error) {
		return checkpoint.Decision{}, errDryRun
	})
}

// open starts the approver the flags name for run and demo, and returns it
// with its closer.
func (a *approverFlags) open(e *env, log *slog.Logger, dir string) (checkpoint.Approver, func(), error) {
	chain, err := approverChain(a.kind, inProcess, e.terminal)
	if err != nil {
		return nil, nil, err
	}
	// In process nothing comes before the one channel: there is no client
	// to ask first.
	return a.start(e, log, dir, chain[0])
}

// start opens the approver of channel c, which lives as long as the command,
// and returns it with its closer. dir, when set, is where the terminal saves
// screenshots (else the temporary directory). Elicitation is not started
// here: each MCP session brings its own.
func (a *approverFlags) start(e *env, log *slog.Logger, dir string, c checkpoint.Channel) (checkpoint.Approver, func(), error) {
	switch c {
	case checkpoint.ChannelTTY:
		t, err := approver.OpenTTY()
		if err != nil {
			return nil, nil, fmt.Errorf("--approver tty: %w (no terminal here: try --approver web)", err)
		}
		if dir != "" {
			t.ScreenshotDir = dir
		}
		return t, func() { t.Close() }, nil
	case checkpoint.ChannelWeb:
		w, err := approver.NewWeb(approver.WebOptions{
			Logger: log,
			OnPending: func(url string, r checkpoint.Request) {
				// The action and the page are the page's and the model's
				// words: escaped, so they cannot repaint the terminal.
				fmt.Fprintf(e.stderr, "\nApproval needed: %s\nOpen %s to approve or reject.\n", checkpoint.OneLine(r.Prompt()), url)
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
