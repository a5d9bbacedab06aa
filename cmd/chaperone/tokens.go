package main

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/chaperone-mcp/chaperone/server"
)

// tokenCredentials turns --token values into credentials: "name:token", or
// a bare token, named client1, client2… in order.
func tokenCredentials(values []string) []server.Credential {
	cs := make([]server.Credential, 0, len(values))
	for i, v := range values {
		name, token, ok := strings.Cut(v, ":")
		if !ok {
			name, token = fmt.Sprintf("client%d", i+1), v
		}
		cs = append(cs, server.Credential{Name: name, Token: token})
	}
	return cs
}

// readTokensFile reads the credentials of path: one "name token" per line;
// blank lines and lines starting with # are skipped. A file any user may
// read is refused: its tokens are no secret.
func readTokensFile(path string) ([]server.Credential, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("tokens file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("tokens file: %w", err)
	}
	if fi.Mode().Perm()&0o004 != 0 {
		return nil, fmt.Errorf("tokens file %s is readable by every user (mode %v): its tokens are no secret; chmod 600 it, replace the tokens, then start again", path, fi.Mode().Perm())
	}
	var cs []server.Credential
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			// The line may hold a token: say where, not what.
			return nil, fmt.Errorf("tokens file %s, line %d: want \"name token\" (%d fields)", path, n, len(fields))
		}
		cs = append(cs, server.Credential{Name: fields[0], Token: fields[1]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("tokens file %s: %w", path, err)
	}
	return cs, nil
}

// loadCredentials builds the credentials of --token values or of the
// tokens file path (not both); nil when neither is given.
func loadCredentials(tokens []string, path string) (*server.Credentials, error) {
	switch {
	case len(tokens) > 0 && path != "":
		return nil, fmt.Errorf("--token and --tokens-file: give one or the other")
	case path != "":
		cs, err := readTokensFile(path)
		if err != nil {
			return nil, err
		}
		creds, err := server.NewCredentials(cs)
		if err != nil {
			return nil, fmt.Errorf("tokens file %s: %w", path, err)
		}
		return creds, nil
	case len(tokens) > 0:
		creds, err := server.NewCredentials(tokenCredentials(tokens))
		if err != nil {
			return nil, fmt.Errorf("--token: %w", err)
		}
		return creds, nil
	}
	return nil, nil
}

// reloadOnHUP reloads creds from the tokens file path on every SIGHUP until
// ctx ends. A file that no longer reads, or is refused, leaves no token
// valid: a reload is how a token is revoked, and a failed one must not keep
// a revoked token working.
func reloadOnHUP(ctx context.Context, log *slog.Logger, creds *server.Credentials, path string) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		defer signal.Stop(hup)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
			}
			cs, err := readTokensFile(path)
			if err == nil {
				err = creds.Replace(cs)
			}
			if err != nil {
				creds.Replace(nil)
				log.Error("tokens file reload failed: every HTTP request is refused until a reload succeeds", "err", err)
				continue
			}
			log.Info("tokens file reloaded", "clients", creds.Names())
		}
	}()
}
