package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"time"

	"github.com/chaperone-mcp/chaperone/approver"
	"github.com/chaperone-mcp/chaperone/audit"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/fleet"
	"github.com/chaperone-mcp/chaperone/internal/filename"
	"github.com/chaperone-mcp/chaperone/server"
	"github.com/chaperone-mcp/chaperone/tools"
	"github.com/google/uuid"
)

// serveCmd serves the tools over MCP: on stdio by default, over streamable
// HTTP (/mcp) and SSE (/sse, /message) with --http.
func serveCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "serve", "serve [flags]")
	startURL := fs.String("url", "", "the `URL` every session starts at (default: the embedded demo site, served by this process on a loopback port)")
	httpAddr := fs.String("http", "", "serve over HTTP on `addr` (host:port; a bare port means 127.0.0.1) instead of stdio:\nstreamable HTTP at /mcp, SSE at /sse and /message, /healthz")
	var tokens repeatedFlag
	fs.Var(&tokens, "token", "a bearer `token` HTTP requests must carry, as name:token or bare (named client1, client2…); repeat for more clients.\nA token or --tokens-file is required beyond loopback (prefer $CHAPERONE_TOKEN or the file: flags show in ps)")
	tokensFile := fs.String("tokens-file", "", "read the clients' bearer tokens from `file`, one \"name token\" per line (# comments); reloaded on SIGHUP; must not be readable by every user")
	of := addOAuthFlags(fs)
	maxPerClient := fs.Int("max-sessions-per-client", 0, "the most browser sessions one client (one token) may have open at once (0: only --max-sessions bounds it)")
	var allowedHosts, allowedOrigins listFlag
	fs.Var(&allowedHosts, "allowed-hosts", "more Host `names` HTTP requests may carry, comma-separated (localhost, 127.0.0.1 and [::1] always)")
	fs.Var(&allowedOrigins, "allowed-origins", "browser `origins` (scheme://host:port) allowed to call over HTTP, comma-separated; others get 403")
	sessionRoute := addSessionRouteFlag(fs)
	maxSessions := fs.Int("max-sessions", 10, "the most browser sessions (one per MCP client) open at once")
	sessionIdle := fs.Duration("session-idle", 30*time.Minute, "close a client's browser session after this long without a call (0: never)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	profileName := addProfileFlag(fs)
	secretNames := addSecretFlag(fs)
	totpNames := addTOTPFlag(fs)
	dryRun := fs.Bool("dry-run", false, "never perform an action at a checkpoint: answer human_rejected, so a whole flow can be rehearsed")
	auditDir := fs.String("audit-dir", "", "write each session's audit log (JSON Lines) into this `dir`")
	recordDir := fs.String("record", "", "record each session (the page's frames, its tool calls and approvals) into `dir`/<session>/, secrets masked; play it with report.html's player or `chaperone record export`")
	af := addApproverFlags(fs, false)
	text := addSnapshotTextFlag(fs)
	obsf := addObsFlags(fs)
	cf := addCommonFlags(fs, "info")
	rest, err := parseFlags(fs, args, e.getenv)
	if err != nil {
		return err
	}
	if *showVersion {
		return versionCmd(ctx, e, nil)
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q (the start URL goes in --url)", rest[0])
	}
	st, err := cf.setup(e.stderr)
	if err != nil {
		return err
	}
	log := st.log

	// Refuse what must be refused before anything starts.
	var hc server.HTTPConfig
	if *httpAddr != "" {
		addr, err := server.ListenAddr(*httpAddr)
		if err != nil {
			return fmt.Errorf("--http: %w", err)
		}
		creds, err := loadCredentials(tokens, *tokensFile)
		if err != nil {
			return err
		}
		hc = server.HTTPConfig{Addr: addr, Credentials: creds, MaxSessionsPerClient: *maxPerClient,
			AllowedHosts: allowedHosts, AllowedOrigins: allowedOrigins, SessionRoute: *sessionRoute}
		if err := of.check(); err != nil {
			return err
		}
		// With an issuer, the check waits for the validator, made once
		// the listener knows its port (the default resource names it).
		if of.issuer == "" {
			if err := hc.Check(); err != nil {
				return err
			}
		}
		if *tokensFile != "" {
			reloadOnHUP(ctx, log, creds, *tokensFile)
		}
	} else if len(tokens) > 0 || *tokensFile != "" || of.issuer != "" {
		log.Warn("--token, --tokens-file and --oauth-issuer have no effect on stdio")
	}
	if *maxSessions < 1 {
		return fmt.Errorf("--max-sessions %d: want at least 1", *maxSessions)
	}
	secrets, err := secretValues(*secretNames, e.getenv)
	if err != nil {
		return err
	}
	codes, err := totpKeys(*totpNames, e.getenv, secrets)
	if err != nil {
		return err
	}
	over := overStdio
	if *httpAddr != "" {
		over = overHTTP
	}
	chain, err := approverChain(af.kind, over, e.terminal)
	if err != nil {
		return err
	}
	profs, err := loadProfiles(*profileName, e.stderr)
	if err != nil {
		return err
	}
	if af.kind == "elicitation" {
		log.Warn("approvals are asked of the MCP client program, which must show them to a person: the server cannot tell that it does, " +
			"and a client program or a model with a shell beside it could answer for the person")
	}
	if af.kind == "tty" && *httpAddr == "" {
		// Under stdio the terminal's stdin and stdout carry MCP; the tty
		// approver uses /dev/tty, which is fine, but say where it asks.
		log.Info("approvals will be asked on the controlling terminal (/dev/tty)")
	}
	start, err := resolveStart(log, st.policy, *startURL, profs.named)
	if err != nil {
		return err
	}
	defer start.stop()
	profile := profs.gate(start.profile)
	cfg := st.tools
	cfg.StartURL = start.url
	cfg.URLPolicy = start.policy
	cfg.Secrets = secrets
	cfg.TOTP = codes

	// Listen before the browser starts, so that a taken port fails fast.
	var ln net.Listener
	if *httpAddr != "" {
		if ln, err = net.Listen("tcp", hc.Addr); err != nil {
			return fmt.Errorf("--http: %w", err)
		}
		defer ln.Close()
		// The browser the agent drives has no business with the server
		// that drives it.
		if err := reserve(&cfg.URLPolicy, ln.Addr().String()); err != nil {
			return err
		}
		if hc.OAuth, err = of.validator(ctx, log, hc.Addr, ln.Addr()); err != nil {
			return err
		}
		if err := hc.Check(); err != nil {
			return err
		}
	}
	obs, closeObs, err := obsf.start(log, *httpAddr != "", allowedHosts, &cfg.URLPolicy) // obsflags.go
	if err != nil {
		return err
	}
	defer closeObs()
	if obs.tel != nil {
		hc.Metrics = obs.tel.Handler()
	}
	// The approvers start before the browser: the addresses they listen on
	// join the URL policy's reserved ones, which the browser never opens.
	started := map[checkpoint.Channel]checkpoint.Approver{}
	for _, c := range chain {
		if c == checkpoint.ChannelElicitation || *dryRun {
			// Each MCP session brings its own elicitation; a dry run
			// refuses every gated action without asking anyone.
			continue
		}
		a, closeApprover, err := af.start(e, log, *auditDir, c, &cfg.URLPolicy)
		if err != nil {
			return err
		}
		defer closeApprover()
		started[c] = a
	}
	// The browser starts while the rest starts and the client connects; a
	// browser that cannot start ends the serving with its error.
	mgr := fleet.Start(ctx, st.browser, st.fleetConfig(cfg))
	defer func() {
		if err := mgr.Close(); err != nil {
			log.Warn("close the browser", "err", err)
		}
		log.Info("browser closed")
	}()
	serving, stopServing := context.WithCancelCause(ctx)
	defer stopServing(nil)
	go func() {
		if err := mgr.Started(serving); err != nil && serving.Err() == nil {
			stopServing(err)
		}
	}()
	// Sessions ask through approvers that reach the client's human by way of
	// the server (elicitation, the console's announcement), so the chain is
	// built once the server exists and before it serves: no session opens
	// earlier.
	var sessionApprover checkpoint.Approver
	srv, err := server.New(server.Config{
		NewSession: func(ctx context.Context) (server.Session, error) {
			id := uuid.NewString()
			client := server.ClientFromContext(ctx)
			var auditLog *audit.Log
			if *auditDir != "" {
				a, err := audit.Open(*auditDir, id)
				if err != nil {
					return nil, err
				}
				a.SetClient(client)
				auditLog = a
			}
			var approvals checkpoint.Recorder = auditLog
			opts := []tools.SessionOption{tools.WithAudit(auditLog)}
			var recorded *tools.Recording
			if *recordDir != "" {
				r, err := openRecording(filepath.Join(*recordDir, filename.Safe(id)), id, auditLog) // record.go
				if err != nil {
					auditLog.Close()
					return nil, err
				}
				recorded, approvals = r, r
				opts = append(opts, tools.WithRecording(r))
			}
			gate := checkpoint.NewGate(profile, sessionApprover, checkpoint.Options{
				DryRun: *dryRun, Session: id, Audit: approvals, Logger: log.With("session", server.ShortID(id), "client", client)})
			opts = append(opts, tools.WithGate(gate))
			if obs.tel != nil {
				opts = append(opts, tools.WithTelemetry(obs.tel.Session(server.ShortID(id), client)))
			}
			s, err := tools.Open(ctx, mgr, cfg, opts...)
			if err != nil {
				recorded.Close()
				auditLog.Close()
				return nil, err
			}
			web, _ := started[checkpoint.ChannelWeb].(*approver.Web)
			detach, err := attachLive(web, e.stderr, id, s) // takeover.go
			if err != nil {
				s.Close()
				auditLog.Close()
				return nil, err
			}
			attachRecording(web, e.stderr, id, recorded) // record.go
			return auditedSession{s, auditLog, detach}, nil
		},
		MaxSessions: *maxSessions,
		SessionIdle: *sessionIdle,
		Version:     version(),
		Logger:      log,
		Text:        server.TextFormat(*text),
		Caps:        cfg.Caps,
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	if *dryRun {
		sessionApprover = dryRunApprover()
	} else {
		sessionApprover = chainApprovers(srv, chain, started)
	}
	if obs.tel != nil {
		sessionApprover = obs.tel.Approver(sessionApprover)
	}
	obs.watch(srv, mgr)
	obs.serve(serving, log)

	if ln == nil {
		log.Info("serving MCP on stdio", "start_url", cfg.StartURL)
		err = srv.ServeStdio(serving, e.stdin, e.stdout)
	} else {
		base := "http://" + ln.Addr().String()
		log.Info("serving MCP over HTTP", "addr", ln.Addr().String(), "streamable", base+"/mcp", "sse", base+"/sse",
			"token_required", hc.Credentials != nil || hc.OAuth != nil, "start_url", cfg.StartURL)
		err = srv.Serve(serving, ln, hc)
	}
	if serving.Err() != nil {
		log.Info("shutting down", "why", context.Cause(serving))
	}
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	if err == nil && ctx.Err() == nil && serving.Err() != nil {
		err = context.Cause(serving) // the browser did not start
	}
	return err
}

// chainApprovers chains the approvers of chain, in order, for the sessions
// of srv: elicitation is the server's own, and the web console is announced
// to the client whose call waits. started holds the approvers the command
// opened.
func chainApprovers(srv *server.Server, chain []checkpoint.Channel, started map[checkpoint.Channel]checkpoint.Approver) checkpoint.Approver {
	var chained checkpoint.First
	for _, c := range chain {
		a := started[c]
		if c == checkpoint.ChannelElicitation {
			a = srv.Elicitation()
		} else if w, ok := a.(*approver.Web); ok {
			// The client whose call waits hears that a person decides,
			// never the console's address.
			a = srv.Announce(w)
		}
		chained = append(chained, a)
	}
	if len(chained) == 1 {
		return chained[0]
	}
	return chained
}

// auditedSession closes its audit log with the session.
type auditedSession struct {
	*tools.Session
	audit *audit.Log
	// detach takes the session off the console's live view.
	detach func()
}

// Close closes the browser session, then its audit log.
func (s auditedSession) Close() error {
	s.detach()
	err := s.Session.Close()
	if aerr := s.audit.Close(); err == nil {
		err = aerr
	}
	return err
}
