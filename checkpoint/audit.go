package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Masked replaces a password's value in the audit log.
const Masked = "********"

// Audit is a session's audit log: JSON Lines, one event per line, each
// written as it happens. A nil *Audit discards everything, so callers need
// not check. Its methods are safe for concurrent use.
type Audit struct {
	mu      sync.Mutex
	w       io.Writer
	closer  io.Closer
	session string
	now     func() time.Time
}

// NewAudit returns an audit log writing to w for the named session.
func NewAudit(w io.Writer, session string) *Audit {
	return &Audit{w: w, session: session, now: time.Now}
}

// fileSafe keeps letters, digits, dot, dash and underscore.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, s)
}

// OpenAudit creates dir if needed and a new file in it for session, named
// after the time and the session, e.g. 20261104T101500Z-stdio.jsonl. Close
// closes it.
func OpenAudit(dir, session string) (*Audit, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("audit dir: %w", err)
	}
	name := time.Now().UTC().Format("20060102T150405.000000000Z") + "-" + fileSafe(session) + ".jsonl"
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit file: %w", err)
	}
	a := NewAudit(f, session)
	a.closer = f
	return a, nil
}

// Close closes the file OpenAudit opened.
func (a *Audit) Close() error {
	if a == nil || a.closer == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.closer.Close()
}

// ToolCall is one tool call as the audit log records it.
type ToolCall struct {
	// Tool is the tool's name.
	Tool string
	// Args are the call's JSON arguments.
	Args json.RawMessage
	// Masked says the call fills a password field: the "value" argument is
	// replaced by Masked before anything is written.
	Masked bool
	// Code is the result's error code, "" for success.
	Code string
	// SnapshotID is the result's snapshot.
	SnapshotID string
	// Screenshot is the result's screenshot bytes; only their SHA-256 is
	// written.
	Screenshot []byte
	// Start is when the call began, Duration how long it took.
	Start    time.Time
	Duration time.Duration
}

// Completion is a complete_task call as the audit log records it.
type Completion struct {
	// Status and Reason are the agent's claim.
	Status string
	Reason string
	// Acknowledged and Message are the answer.
	Acknowledged bool
	Message      string
	// SnapshotID is the fresh snapshot the claim was checked on, URL its page.
	SnapshotID string
	URL        string
	// Indicators are the profile's indicators evaluated on it (Gate.Evaluate).
	Indicators []Indicator
}

// ToolCall logs a tool call. With c.Masked the "value" argument never
// reaches the log.
func (a *Audit) ToolCall(c ToolCall) error {
	if a == nil {
		return nil
	}
	args := maskArgs(c.Args, c.Masked)
	ev := map[string]any{
		"event":       "tool_call",
		"tool":        c.Tool,
		"args":        args,
		"result":      resultCode(c.Code),
		"snapshot_id": c.SnapshotID,
		"started":     c.Start.UTC().Format(time.RFC3339Nano),
		"duration_ms": float64(c.Duration.Microseconds()) / 1000,
	}
	if len(c.Screenshot) > 0 {
		sum := sha256.Sum256(c.Screenshot)
		ev["screenshot_sha256"] = hex.EncodeToString(sum[:])
	}
	return a.write(ev)
}

func resultCode(code string) string {
	if code == "" {
		return "ok"
	}
	return code
}

// maskArgs returns args with "value" masked when masked is set. Arguments
// that are not a JSON object are dropped entirely when masked, since nothing
// says where the secret is.
func maskArgs(args json.RawMessage, masked bool) any {
	if len(args) == 0 {
		return map[string]any{}
	}
	var m map[string]any
	if err := json.Unmarshal(args, &m); err != nil {
		if masked {
			return Masked
		}
		return string(args)
	}
	if masked {
		if _, ok := m["value"]; ok {
			m["value"] = Masked
		}
	}
	return m
}

// Approval logs an approval decision.
func (a *Audit) Approval(r Request, d Decision) error {
	if a == nil {
		return nil
	}
	ev := map[string]any{
		"event":       "approval",
		"id":          r.ID,
		"kind":        r.Kind,
		"action":      r.Action,
		"reason":      r.Reason,
		"url":         r.URL,
		"snapshot_id": r.SnapshotID,
		"requested":   r.Time.UTC().Format(time.RFC3339Nano),
		"channel":     d.Channel,
		"approved":    d.Approved,
		"feedback":    d.Feedback,
	}
	if r.Screenshot != nil && len(r.Screenshot.Data) > 0 {
		sum := sha256.Sum256(r.Screenshot.Data)
		ev["screenshot_sha256"] = hex.EncodeToString(sum[:])
	}
	return a.write(ev)
}

// Completion logs a complete_task call.
func (a *Audit) Completion(c Completion) error {
	if a == nil {
		return nil
	}
	return a.write(map[string]any{
		"event":        "completion",
		"status":       c.Status,
		"reason":       c.Reason,
		"acknowledged": c.Acknowledged,
		"message":      c.Message,
		"snapshot_id":  c.SnapshotID,
		"url":          c.URL,
		"indicators":   c.Indicators,
	})
}

func (a *Audit) write(ev map[string]any) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	ev["time"] = a.now().UTC().Format(time.RFC3339Nano)
	if a.session != "" {
		ev["session"] = a.session
	}
	line, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if _, err := a.w.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}
