package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/chaperone-mcp/chaperone/approver"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/urlpolicy"
)

// approverFlags choose how a human is asked.
type approverFlags struct {
	kind          string
	openConsole   autoBool
	webListen     string
	webhookURL    string
	webhookToken  string
	webhookListen string
}

// addApproverFlags defines the approver flags on fs. inProcess says that the
// command's agent is its own (run, demo), with no MCP client to ask.
func addApproverFlags(fs *flag.FlagSet, inProcess bool) *approverFlags {
	a := &approverFlags{}
	help := "`who` approves the steps that matter: auto (the web console), web (a loopback console page),\n" +
		"tty (the controlling terminal), webhook, or elicitation (the MCP client asks its user: this trusts the client\n" +
		"program, and anything with a shell beside it, not to answer for the person; never chosen by auto)"
	if inProcess {
		help = "`who` approves the steps that matter: auto (this terminal when stdin is one, else the web console),\n" +
			"tty (this terminal), web (a loopback console page) or webhook"
	}
	fs.StringVar(&a.kind, "approver", "auto", help)
	fs.StringVar(&a.webListen, "web-listen", "127.0.0.1:0", "the `addr` of the web approval console")
	fs.Var(&a.openConsole, "open-approvals", "open the web approval console in the default browser each time an approval waits\n"+
		"(default: on where there is a desktop to open it in: macOS, Windows, or $DISPLAY or $WAYLAND_DISPLAY set)")
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
// "auto" never means elicitation, over stdio or HTTP: the client program
// answers an elicitation, and a client program, or a model with a shell
// beside it, must not be able to approve the agent's actions. Elicitation is
// there for whoever chooses it by name and trusts the client host.
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
// with its closer. The addresses it listens on join policy's reserved ones.
func (a *approverFlags) open(e *env, log *slog.Logger, dir string, policy *urlpolicy.Policy) (checkpoint.Approver, func(), error) {
	chain, err := approverChain(a.kind, inProcess, e.terminal)
	if err != nil {
		return nil, nil, err
	}
	// In process nothing comes before the one channel: there is no client
	// to ask first.
	return a.start(e, log, dir, chain[0], policy)
}

// start opens the approver of channel c, which lives as long as the command,
// and returns it with its closer. dir, when set, is where the terminal saves
// screenshots (else the temporary directory). Elicitation is not started
// here: each MCP session brings its own. The addresses the approver listens
// on or posts to join policy's reserved ones, so the browser the agent
// drives can never open them: start it before the browser.
func (a *approverFlags) start(e *env, log *slog.Logger, dir string, c checkpoint.Channel, policy *urlpolicy.Policy) (checkpoint.Approver, func(), error) {
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
		open := a.openConsole.or(hasDesktop(e.getenv))
		w, err := approver.NewWeb(approver.WebOptions{
			Logger: log,
			OnPending: func(view string, r checkpoint.Request) {
				// The URL is this session's capability: it goes to the
				// person (this terminal, their browser), never to the MCP
				// client. The action and the page are the page's and the
				// model's words: escaped, so they cannot repaint the
				// terminal.
				fmt.Fprintf(e.stderr, "\nApproval console: %s\nApproval needed: %s\nOpen the console above to approve or reject.\n", view, checkpoint.OneLine(r.Prompt()))
				if open {
					if err := openInBrowser(view); err != nil {
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
		if err := reserve(policy, w.Addr()); err != nil {
			w.Close()
			return nil, nil, err
		}
		fmt.Fprintf(e.stderr, "Approval console listening on %s: each session's own address is shown here when it first needs a person.\n", w.Addr())
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
		reserved := []string{ln.Addr().String()}
		if u, err := url.Parse(a.webhookURL); err == nil && u.Host != "" {
			// The agent host that decides: the browser must not post its
			// decisions either.
			port := u.Port()
			if port == "" {
				port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
			}
			if port != "" {
				reserved = append(reserved, net.JoinHostPort(u.Hostname(), port))
			}
		}
		if err := reserve(policy, reserved...); err != nil {
			ln.Close()
			return nil, nil, err
		}
		srv := &http.Server{Handler: h.Handler(), ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		return h, func() { srv.Close() }, nil
	}
	return nil, nil, fmt.Errorf("the %s approver comes with each MCP session, not with the command", c)
}

// reserve adds the listen addresses to policy's reserved ones; an address
// on every interface (0.0.0.0, ::) reserves each address of this machine.
func reserve(policy *urlpolicy.Policy, addrs ...string) error {
	var all []string
	for _, a := range addrs {
		all = append(all, a)
		host, port, err := net.SplitHostPort(a)
		if err != nil {
			return fmt.Errorf("reserve %s: %w", a, err)
		}
		if ip, err := netip.ParseAddr(host); err == nil && ip.IsUnspecified() {
			ifaddrs, err := net.InterfaceAddrs()
			if err != nil {
				return fmt.Errorf("reserve %s: this machine's addresses: %w", a, err)
			}
			for _, ia := range ifaddrs {
				if p, err := netip.ParsePrefix(ia.String()); err == nil {
					all = append(all, net.JoinHostPort(p.Addr().WithZone("").String(), port))
				}
			}
		}
	}
	p, err := policy.WithReserved(all...)
	if err != nil {
		return err
	}
	*policy = p
	return nil
}

// hasDesktop reports whether a desktop is there to open a page in: always
// on macOS and Windows, and elsewhere when an X or Wayland display is set.
func hasDesktop(getenv func(string) string) bool {
	switch runtime.GOOS {
	case "darwin", "windows":
		return true
	}
	return getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
}

// autoBool is a boolean flag whose default is decided later, when it was
// not given.
type autoBool struct {
	set, value bool
}

func (b *autoBool) String() string {
	if b == nil || !b.set {
		return "auto"
	}
	return strconv.FormatBool(b.value)
}

func (b *autoBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true or false")
	}
	b.set, b.value = true, v
	return nil
}

// IsBoolFlag lets the flag be given alone, as --open-approvals.
func (b *autoBool) IsBoolFlag() bool { return true }

// or is the flag's value, or def when it was not given.
func (b *autoBool) or(def bool) bool {
	if b.set {
		return b.value
	}
	return def
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
