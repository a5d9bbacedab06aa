// Package tools holds the seven tools of DESIGN.md §1 in transport-free form:
// a Session (one isolated browser context, its live ref table, its gate and
// its log), the tools' inputs, results, error codes and definitions.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// Config says how a session behaves.
type Config struct {
	// StartURL is opened when the session starts; empty leaves about:blank.
	StartURL string
	// Snapshot bounds what a snapshot shows.
	Snapshot snapshot.Options
	// ActionTimeout caps click, fill and select (default 2 s), ScrollTimeout
	// scroll (1 s), SnapshotTimeout a snapshot (3 s).
	ActionTimeout   time.Duration
	ScrollTimeout   time.Duration
	SnapshotTimeout time.Duration
	// Logger receives the session's log; nil discards it.
	Logger *slog.Logger
}

// Manager opens sessions, each in its own isolated browser context, on one
// browser.
type Manager struct {
	browser *browser.Browser
	config  Config
}

// NewManager launches or connects to a browser as opts say.
func NewManager(ctx context.Context, opts browser.Options, cfg Config) (*Manager, error) {
	b, err := browser.Launch(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("start browser: %w", err)
	}
	return &Manager{browser: b, config: cfg}, nil
}

// Close closes every session's context and the browser, if this process
// started it.
func (m *Manager) Close() error { return m.browser.Close() }

// Session is one agent's browser: an isolated context with its tab, its live
// ref table, and its checkpoint state. Calls on one session must not overlap;
// the caller serialises them.
type Session struct {
	tab    *browser.Tab
	config Config
	live   snapshot.Table
	next   int
}

// NewSession opens an isolated browser context and goes to cfg.StartURL.
func (m *Manager) NewSession(ctx context.Context) (*Session, error) {
	tab, err := m.browser.NewTab(ctx)
	if err != nil {
		return nil, fmt.Errorf("new session: %w", err)
	}
	s := &Session{tab: tab, config: m.config}
	if m.config.StartURL != "" {
		if err := tab.Navigate(ctx, m.config.StartURL); err != nil {
			tab.Close()
			return nil, fmt.Errorf("new session: open %s: %w", m.config.StartURL, err)
		}
	}
	return s, nil
}

// Close closes the session's browser context.
func (s *Session) Close() error { return s.tab.Close() }

// Call runs the tool name with its JSON arguments. Every failure the agent can
// act on is inside the Output; the error is only for an unknown tool.
func (s *Session) Call(ctx context.Context, name string, args json.RawMessage) (Output, error) {
	return Output{}, fmt.Errorf("unknown tool %q", name)
}
