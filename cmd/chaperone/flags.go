package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/fleet"
	"github.com/chaperone-mcp/chaperone/server"
	"github.com/chaperone-mcp/chaperone/tools"
	"github.com/chaperone-mcp/chaperone/urlpolicy"
)

// errUsage marks a command line the flag package has already complained
// about.
var errUsage = errors.New("usage")

// envPrefix starts the name of the environment variable of every flag.
const envPrefix = "CHAPERONE_"

// envName is the environment variable of the flag name: session-idle is
// CHAPERONE_SESSION_IDLE.
func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// newFlagSet returns a flag set for the command name whose usage lists the
// flags with their environment variables.
func newFlagSet(e *env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: chaperone %s\n\nFlags (each also read from the environment variable shown):\n", synopsis)
		fs.VisitAll(func(f *flag.Flag) {
			typ, usage := flag.UnquoteUsage(f)
			fmt.Fprintf(w, "  --%s %s", f.Name, typ)
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "0s" {
				fmt.Fprintf(w, " (default %s)", f.DefValue)
			}
			if f.Name != "version" {
				fmt.Fprintf(w, "  [$%s]", envName(f.Name))
			}
			fmt.Fprintf(w, "\n    \t%s\n", strings.ReplaceAll(usage, "\n", "\n    \t"))
		})
	}
	return fs
}

// parseFlags sets the flags from args, and every flag that args leave unset
// from its environment variable. Flags and positional arguments may be mixed
// ("snapshot URL --json"); the positional arguments are returned.
func parseFlags(fs *flag.FlagSet, args []string, getenv func(string) string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, errUsage
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			positional = append(positional, args[1:]...)
			break
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
	set := make(map[string]bool)
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if err != nil || set[f.Name] || f.Name == "version" {
			return
		}
		if v := getenv(envName(f.Name)); v != "" {
			if serr := f.Value.Set(v); serr != nil {
				err = fmt.Errorf("$%s=%q: %w", envName(f.Name), v, serr)
			}
		}
	})
	return positional, err
}

// parseNoArgs parses args as parseFlags does, for a command that takes no
// positional argument; where, if not empty, says where such an argument
// belongs instead.
func parseNoArgs(fs *flag.FlagSet, args []string, getenv func(string) string, where string) error {
	rest, err := parseFlags(fs, args, getenv)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		if where != "" {
			return fmt.Errorf("unexpected argument %q (%s)", rest[0], where)
		}
		return fmt.Errorf("unexpected argument %q", rest[0])
	}
	return nil
}

// listFlag is a comma-separated list flag; repeating it appends.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

// Set implements flag.Value.
func (l *listFlag) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

// repeatedFlag is a flag that may be given more than once, each value kept
// whole (a token may hold a comma).
type repeatedFlag []string

func (r *repeatedFlag) String() string {
	if len(*r) == 0 {
		return ""
	}
	// The values may be secrets: the usage text shows how many, not what.
	return fmt.Sprintf("%d values", len(*r))
}

// Set implements flag.Value.
func (r *repeatedFlag) Set(s string) error {
	*r = append(*r, s)
	return nil
}

// browserFlags are the flags that say which browser to use and how.
type browserFlags struct {
	path, cdp, userDataDir string
	connect                string
	pool                   listFlag
	headed, noSandbox      bool
	cdpDefaultContext      bool
	viewport               string
}

// addBrowserFlags defines the browser flags on fs.
func addBrowserFlags(fs *flag.FlagSet) *browserFlags {
	b := &browserFlags{}
	fs.StringVar(&b.path, "browser-path", "", "the Chromium or Chrome `binary` (default: $CHROME_PATH, then the usual places)")
	fs.StringVar(&b.cdp, "cdp-endpoint", "", "connect to a running browser at this DevTools `endpoint` (ws://… or http://host:port) instead of launching one")
	fs.StringVar(&b.connect, "connect", "", "work in the person's own running Chrome: `auto` finds it, or give its DevTools endpoint (ws://… or http://host:port); each session gets a window of its own there and touches no other tab")
	fs.BoolVar(&b.headed, "headed", false, "show the browser window")
	fs.BoolVar(&b.cdpDefaultContext, "cdp-default-context", false, "with --cdp-endpoint: open the session in the browser's own context, with its cookies and logins, instead of an isolated one (one session at a time)")
	fs.StringVar(&b.userDataDir, "user-data-dir", "", "the browser profile `dir` to use, with its cookies and logins (one session at a time; default: a fresh profile, removed at exit, with isolated sessions)")
	fs.BoolVar(&b.noSandbox, "no-sandbox", false, "turn off Chromium's sandbox (always off when running as root)")
	fs.StringVar(&b.viewport, "viewport", "1280x720", "the viewport size, `WxH`")
	fs.Var(&b.pool, "browser-pool", "open each session on the least-loaded of these remote DevTools `endpoints` (ws://… or http://host:port), comma-separated, or a file naming one per line; a dead endpoint's sessions move to another")
	return b
}

// options returns the browser options the flags say.
func (b *browserFlags) options(log *slog.Logger) (browser.Options, error) {
	w, h, err := parseViewport(b.viewport)
	if err != nil {
		return browser.Options{}, err
	}
	if b.cdpDefaultContext && b.cdp == "" {
		return browser.Options{}, errors.New("--cdp-default-context needs --cdp-endpoint")
	}
	endpoint, attached := b.cdp, false
	if b.connect != "" {
		if b.cdp != "" || b.userDataDir != "" || b.cdpDefaultContext || len(b.pool) > 0 {
			return browser.Options{}, errors.New("--connect cannot be combined with --cdp-endpoint, --cdp-default-context, --user-data-dir or --browser-pool")
		}
		if endpoint, err = connectEndpoint(b.connect, log); err != nil {
			return browser.Options{}, err
		}
		attached = true
	}
	return browser.Options{
		Path:           b.path,
		CDPEndpoint:    endpoint,
		Attached:       attached,
		Headed:         b.headed,
		UserDataDir:    b.userDataDir,
		DefaultContext: b.userDataDir != "" || b.cdpDefaultContext,
		ViewportWidth:  w,
		ViewportHeight: h,
		NoSandbox:      b.noSandbox,
		Logger:         log,
	}, nil
}

// connectEndpoint is the DevTools endpoint of --connect: the person's
// running browser that auto finds (connect.go), or the endpoint given.
func connectEndpoint(connect string, log *slog.Logger) (string, error) {
	if connect == "auto" {
		found, info, err := findPersonsBrowser(context.Background())
		if err != nil {
			return "", fmt.Errorf("--connect auto: %w", err)
		}
		log.Info("found the person's browser", "browser", found.Browser, "version", info.Browser, "profile", found.Dir, "port", found.Port)
		return found.Endpoint(), nil
	}
	if !isDevToolsEndpoint(connect) {
		return "", fmt.Errorf("--connect %q: want auto, or the browser's DevTools endpoint (ws://host:port/devtools/browser/… or http://host:port)", fleet.EndpointName(connect))
	}
	return connect, nil
}

// isDevToolsEndpoint reports whether e reads as a DevTools endpoint:
// ws://… or http://host:port.
func isDevToolsEndpoint(e string) bool {
	u, err := url.Parse(e)
	return err == nil && (u.Scheme == "ws" || u.Scheme == "wss" || u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// endpoints returns the endpoints of --browser-pool: the list given, or the
// lines of the file it names (blank lines and # comments skipped).
func (b *browserFlags) endpoints() ([]string, error) {
	if len(b.pool) == 1 && !strings.Contains(b.pool[0], "://") {
		data, err := os.ReadFile(b.pool[0])
		if err != nil {
			return nil, fmt.Errorf("--browser-pool: %w", err)
		}
		var list []string
		for line := range strings.Lines(string(data)) {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				list = append(list, line)
			}
		}
		b.pool = list
	}
	for _, e := range b.pool {
		if !isDevToolsEndpoint(e) {
			return nil, fmt.Errorf("--browser-pool: %q is not a DevTools endpoint (ws://host:port/… or http://host:port)", fleet.EndpointName(e))
		}
	}
	if len(b.pool) > 0 && (b.cdp != "" || b.userDataDir != "") {
		return nil, errors.New("--browser-pool cannot be combined with --cdp-endpoint or --user-data-dir")
	}
	return b.pool, nil
}

// parseViewport parses "1280x720".
func parseViewport(s string) (w, h int, err error) {
	ws, hs, ok := strings.Cut(strings.ToLower(s), "x")
	if ok {
		w, err = strconv.Atoi(ws)
		if err == nil {
			h, err = strconv.Atoi(hs)
		}
	}
	if !ok || err != nil || w < 100 || h < 100 || w > 4096 || h > 4096 {
		return 0, 0, fmt.Errorf("--viewport %q: want WIDTHxHEIGHT between 100 and 4096, e.g. 1280x720", s)
	}
	return w, h, nil
}

// toolFlags are the flags that say how sessions behave: screenshots,
// timeouts, and which URLs they may open.
type toolFlags struct {
	screenshotFormat  string
	screenshotTokens  int
	screenshots       string
	actionTimeout     time.Duration
	scrollTimeout     time.Duration
	snapshotTimeout   time.Duration
	navigationTimeout time.Duration
	allowSchemes      listFlag
	allowMetadata     bool
	allowedOrigins    listFlag
	blockedOrigins    listFlag
	writeOrigins      listFlag
	caps              listFlag
	uploadDir         string
	storageState      string
	downloadDir       string
	maxDownloadSize   sizeFlag
	maxDownloadsTotal sizeFlag
	maxDownloads      countFlag
	polite            *politeFlags // politeflags.go
	// snapshotDelta is --snapshot-delta.
	snapshotDelta bool
	// showCanvas leaves canvases in screenshots once a secret was typed.
	showCanvas bool
}

// addToolFlags defines the tool flags on fs.
func addToolFlags(fs *flag.FlagSet) *toolFlags {
	t := &toolFlags{}
	fs.StringVar(&t.screenshotFormat, "screenshot-format", "png", "the screenshot `format`: png or jpeg")
	fs.StringVar(&t.screenshots, "screenshots", tools.ScreenshotsAuto, "`when` a result carries the page's screenshot: auto (whole with get_snapshot or a failure; after an action only when the page looks different, and then only the part that changed), always or never")
	fs.BoolVar(&t.snapshotDelta, "snapshot-delta", true, "after an action on the same page, answer with only what changed since the last snapshot sent (--snapshot-delta=false: always the whole snapshot)")
	fs.IntVar(&t.screenshotTokens, "screenshot-tokens", 500, "the screenshot budget in image `tokens` (width×height/750; never over 1568 px a side)")
	fs.DurationVar(&t.actionTimeout, "action-timeout", 2*time.Second, "the time a click, fill or select may take")
	fs.DurationVar(&t.scrollTimeout, "scroll-timeout", time.Second, "the time a scroll may take")
	fs.DurationVar(&t.snapshotTimeout, "snapshot-timeout", 3*time.Second, "the time a snapshot may take")
	fs.Var(&t.allowSchemes, "allow-schemes", "URL `schemes` to allow beyond http and https, comma-separated (e.g. file)")
	fs.BoolVar(&t.allowMetadata, "allow-metadata", false, "allow the cloud metadata addresses (169.254.169.254 and others) and the link-local ranges they live in")
	fs.DurationVar(&t.navigationTimeout, "navigation-timeout", 10*time.Second, "the time an action that starts a navigation may take for the new page to commit and become interactive (slow images and ads do not count)")
	fs.Var(&t.allowedOrigins, "allowed-origins-browse", "the only `origins` pages may load documents from, comma-separated, e.g. https://example.com,https://*.example.com (added to a profile's allowed_origins); default: any")
	fs.Var(&t.blockedOrigins, "blocked-origins", "`origins` pages may never load documents from, comma-separated")
	fs.Var(&t.writeOrigins, "write-origins", "`origins` the agent may write to (type, select, upload, drag, submit a form) and send data to by a URL it composes, comma-separated, beside the start URL's site and a profile's allowed_origins; any other site asks a person first")
	fs.Var(&t.caps, "caps", "opt-in tools to list, comma-separated: tabs (browser_tabs), wait (browser_wait_for), hover (browser_hover), upload (browser_upload), drag (browser_drag), files (browser_screenshot, browser_pdf), vision (browser_click and hover at x,y: canvases, maps), devtools (browser_console, browser_network), or all; eval (browser_evaluate, every script approved by a person) only when named, never in all")
	fs.StringVar(&t.uploadDir, "upload-dir", "", "the only `dir` browser_upload may take files from (default: uploads refused)")
	fs.StringVar(&t.downloadDir, "download-dir", "", "the `dir` downloads, screenshots and PDFs are saved in (default: a directory per session, removed when it closes)")
	t.maxDownloadSize = tools.DefaultMaxDownloadSize
	fs.Var(&t.maxDownloadSize, "max-download-size", "the largest `size` one download may have (e.g. 100MB); a bigger one is cancelled and nothing of it kept")
	t.maxDownloadsTotal = tools.DefaultMaxDownloadsTotal
	fs.Var(&t.maxDownloadsTotal, "max-downloads-total", "the `size` a session's downloads may take together, those under way included (e.g. 500MB); one that would pass it is cancelled and nothing of it kept")
	t.maxDownloads = tools.DefaultMaxDownloads
	fs.Var(&t.maxDownloads, "max-downloads", "how many downloads (`n`) a session may begin; past it each is cancelled and nothing of it kept")
	fs.StringVar(&t.storageState, "storage-state", "", "load cookies and localStorage from this `file` (the storage-state JSON Playwright writes; see chaperone login) into every new session")
	t.polite = addPoliteFlags(fs)
	fs.BoolVar(&t.showCanvas, "show-canvas-after-secrets", false, "show canvases in screenshots even once a secret or a password was typed in the session (by default they are covered then: a page may draw the secret on one, where it cannot be found and masked)")
	return t
}

// policy is the URL policy the flags say.
func (t *toolFlags) policy() urlpolicy.Policy {
	schemes := make([]string, len(t.allowSchemes))
	for i, s := range t.allowSchemes {
		schemes[i] = strings.ToLower(strings.TrimSuffix(s, ":"))
	}
	return urlpolicy.Policy{
		AllowSchemes:   schemes,
		AllowMetadata:  t.allowMetadata,
		AllowedOrigins: t.allowedOrigins,
		BlockedOrigins: t.blockedOrigins,
	}
}

// config is the tools configuration the flags say; the start URL is left to
// resolveStart.
func (t *toolFlags) config(log *slog.Logger) (tools.Config, error) {
	switch t.screenshotFormat {
	case "png", "jpeg":
	default:
		return tools.Config{}, fmt.Errorf("--screenshot-format %q: want png or jpeg", t.screenshotFormat)
	}
	if err := tools.CheckScreenshots(t.screenshots); err != nil {
		return tools.Config{}, fmt.Errorf("--%w", err)
	}
	if t.screenshotTokens < 50 {
		return tools.Config{}, fmt.Errorf("--screenshot-tokens %d: want at least 50", t.screenshotTokens)
	}
	for _, d := range []time.Duration{t.actionTimeout, t.scrollTimeout, t.snapshotTimeout, t.navigationTimeout} {
		if d <= 0 {
			return tools.Config{}, errors.New("timeouts must be positive")
		}
	}
	if err := t.policy().Validate(); err != nil {
		return tools.Config{}, err
	}
	if _, err := tools.DefinitionsFor(t.caps); err != nil {
		return tools.Config{}, fmt.Errorf("--caps: %w", err)
	}
	if t.uploadDir != "" {
		// Fail at start, not at the agent's first upload.
		if info, err := os.Stat(t.uploadDir); err != nil || !info.IsDir() {
			return tools.Config{}, fmt.Errorf("--upload-dir %q: not a directory this process can read", t.uploadDir)
		}
	}
	if t.downloadDir != "" {
		if info, err := os.Stat(t.downloadDir); err != nil || !info.IsDir() {
			return tools.Config{}, fmt.Errorf("--download-dir %q: not a directory", t.downloadDir)
		}
	}
	if t.storageState != "" {
		// A file that cannot be used is refused now, before anything starts,
		// not when the first session opens.
		if _, err := browser.ReadStorageStateFile(t.storageState); err != nil {
			return tools.Config{}, fmt.Errorf("--storage-state: %w", err)
		}
	}
	if _, err := checkpoint.NewWriteSet(t.writeOrigins...); err != nil {
		return tools.Config{}, fmt.Errorf("--write-origins: %w", err)
	}
	cfg := tools.Config{
		WriteOrigins:      t.writeOrigins,
		ActionTimeout:     t.actionTimeout,
		ScrollTimeout:     t.scrollTimeout,
		SnapshotTimeout:   t.snapshotTimeout,
		NavigationTimeout: t.navigationTimeout,
		Caps:              t.caps,
		UploadDir:         t.uploadDir,
		URLPolicy:         t.policy(),
		Screenshots:       t.screenshots,
		SnapshotDelta:     t.snapshotDelta,
		Logger:            log,
		DownloadDir:       t.downloadDir,
		MaxDownloadSize:   int64(t.maxDownloadSize),
		MaxDownloads:      int(t.maxDownloads),
		MaxDownloadsTotal: int64(t.maxDownloadsTotal),
	}
	if err := t.polite.apply(&cfg); err != nil {
		return tools.Config{}, err
	}
	cfg.ShowCanvasAfterSecrets = t.showCanvas
	cfg.Capture.Screenshot = true
	cfg.Capture.Format = t.screenshotFormat
	cfg.Capture.ImageTokens = t.screenshotTokens
	return cfg, nil
}

// textFormat is --snapshot-text: how a result's text content reads.
type textFormat server.TextFormat

func (f *textFormat) String() string { return string(*f) }

// Set implements flag.Value.
func (f *textFormat) Set(s string) error {
	switch v := server.TextFormat(s); v {
	case server.TextCompact, server.TextJSON:
		*f = textFormat(v)
		return nil
	}
	return fmt.Errorf("want %s or %s", server.TextCompact, server.TextJSON)
}

// addSnapshotTextFlag defines --snapshot-text on fs, for the commands that
// serve the tools over MCP.
func addSnapshotTextFlag(fs *flag.FlagSet) *textFormat {
	f := textFormat(server.TextCompact)
	fs.Var(&f, "snapshot-text", "the `format` of a tool result's text: compact (lines a model reads in few tokens) or json (for clients that parse the text); structured content is JSON either way")
	return &f
}

// addSessionRouteFlag defines --session-route on fs, for serve --http: the
// replica's name at the end of its session ids, for a load balancer that
// routes by it.
func addSessionRouteFlag(fs *flag.FlagSet) *string {
	return fs.String("session-route", "", "end every streamable HTTP session id with .`NAME`, this replica's name, for a load balancer that routes by it (packaging/nginx.conf)")
}

// commonFlags are the flags of every command that drives a browser: the log
// level, the browser and the tools.
type commonFlags struct {
	logLevel string
	browser  *browserFlags
	tools    *toolFlags
}

// addCommonFlags defines the common flags on fs, with logLevel the default
// level.
func addCommonFlags(fs *flag.FlagSet, logLevel string) *commonFlags {
	c := &commonFlags{browser: addBrowserFlags(fs), tools: addToolFlags(fs)}
	fs.StringVar(&c.logLevel, "log-level", logLevel, "the log `level` on stderr: debug, info, warn or error")
	return c
}

// keepStills makes --screenshots default to always for a command whose run
// record shows a still per step (run, demo, replay): under auto a step
// would show a clip of its change, or nothing.
func keepStills(fs *flag.FlagSet) {
	f := fs.Lookup("screenshots")
	f.DefValue = tools.ScreenshotsAlways
	_ = f.Value.Set(tools.ScreenshotsAlways) // one of the three: cannot fail
}

// setup is what the common flags say: the logger, the browser options, the
// tools' configuration (its start URL left to resolveStart) and the URL
// policy.
type setup struct {
	log     *slog.Logger
	browser browser.Options
	tools   tools.Config
	policy  urlpolicy.Policy
	// fleet says which browsers sessions open on; its URL policy is the
	// tools' one, set once the start is known (fleetConfig).
	fleet fleet.Config
}

// fleetConfig is the fleet's configuration for sessions configured as cfg:
// the browser enforces cfg's URL policy on every document.
func (st setup) fleetConfig(cfg tools.Config) fleet.Config {
	f := st.fleet
	f.URLPolicy = cfg.URLPolicy
	return f
}

// setup checks the common flags and returns what they say, with the logger
// writing to stderr. It starts nothing.
func (c *commonFlags) setup(stderr io.Writer) (setup, error) {
	log, err := newLogger(stderr, c.logLevel)
	if err != nil {
		return setup{}, err
	}
	bopts, err := c.browser.options(log)
	if err != nil {
		return setup{}, err
	}
	tcfg, err := c.tools.config(log)
	if err != nil {
		return setup{}, err
	}
	fcfg := fleet.Config{StorageState: c.tools.storageState, Logger: log}
	if fcfg.Pool, err = c.browser.endpoints(); err != nil {
		return setup{}, err
	}
	return setup{log: log, browser: bopts, tools: tcfg, policy: c.tools.policy(), fleet: fcfg}, nil
}

// newLogger returns a text logger on w at the level named.
func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	return slog.New(redactLogs(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))), nil
}
