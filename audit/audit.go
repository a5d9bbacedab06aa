// Package audit writes a session's audit log: every tool call, approval and
// completion, as JSON Lines, each written as it happens.
//
// The log knows nothing of any tool's arguments: the caller hands it
// arguments with their secrets already replaced. It records the gate's
// approvals by being its checkpoint.Recorder.
package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/internal/filename"
	"github.com/chaperone-mcp/chaperone/internal/redact"
)

// Log is a session's audit log: JSON Lines, one event per line, each
// written as it happens. A nil *Log discards everything, so callers need
// not check. Its methods are safe for concurrent use.
type Log struct {
	mu      sync.Mutex
	w       io.Writer
	closer  io.Closer
	session string
	client  string
	now     func() time.Time
	// red, when set, redacts every line before it is written.
	red *redact.Redactor
}

var _ checkpoint.WidenRecorder = (*Log)(nil)

// New returns an audit log writing to w for the named session.
func New(w io.Writer, session string) *Log {
	return &Log{w: w, session: session, now: time.Now}
}

// Open creates dir if needed and a new file in it for session, named after
// the time and the session, e.g. 20261104T101500Z-stdio.jsonl. Close closes
// it.
func Open(dir, session string) (*Log, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("audit dir: %w", err)
	}
	name := time.Now().UTC().Format("20060102T150405.000000000Z") + "-" + filename.Safe(session) + ".jsonl"
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit file: %w", err)
	}
	l := New(f, session)
	l.closer = f
	return l, nil
}

// SetClient names the HTTP client (its credential's name, never its token)
// that owns the session; every later event carries it.
func (l *Log) SetClient(name string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.client = name
}

// Redact makes the log hide, in every line it writes from now on, every
// value r knows (and learns later), in whatever form it takes: a page URL
// that carries a password URL-encoded, a name that echoes a secret. It is
// the last word, after the caller's own redaction of arguments.
func (l *Log) Redact(r *redact.Redactor) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.red = r
}

// Close closes the file Open opened.
func (l *Log) Close() error {
	if l == nil || l.closer == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closer.Close()
}

// ToolCall is one tool call as the audit log records it.
type ToolCall struct {
	// Tool is the tool's name.
	Tool string
	// Args are the call's arguments with every secret already replaced by
	// the caller: the log writes what it is given. A JSON object is written
	// as one; anything else is written as text.
	Args json.RawMessage
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
	// ApprovalID names the approval request (checkpoint.Decision.RequestID)
	// that covered a gated action the call performed; "" when the action
	// needed none. A reader joins it to the approval event of that id.
	ApprovalID string
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
	Indicators []checkpoint.Indicator
}

// ToolCall logs a tool call.
func (l *Log) ToolCall(c ToolCall) error {
	if l == nil {
		return nil
	}
	ev := map[string]any{
		"event":       "tool_call",
		"tool":        c.Tool,
		"args":        args(c.Args),
		"result":      resultCode(c.Code),
		"snapshot_id": c.SnapshotID,
		"started":     c.Start.UTC().Format(time.RFC3339Nano),
		"duration_ms": float64(c.Duration.Microseconds()) / 1000,
	}
	if len(c.Screenshot) > 0 {
		sum := sha256.Sum256(c.Screenshot)
		ev["screenshot_sha256"] = hex.EncodeToString(sum[:])
	}
	if c.ApprovalID != "" {
		ev["approval_id"] = c.ApprovalID
	}
	return l.write(ev)
}

func resultCode(code string) string {
	if code == "" {
		return "ok"
	}
	return code
}

// args is what the log writes of a call's arguments: an object as an
// object, so that a reader can query its fields, and anything else as text.
func args(raw json.RawMessage) any {
	if len(raw) == 0 {
		return map[string]any{}
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return string(raw)
	}
	return m
}

// Approval logs an approval decision.
func (l *Log) Approval(r checkpoint.Request, d checkpoint.Decision) error {
	if l == nil {
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
	if r.Concrete != nil {
		// The action exactly as the person was shown it; a password's or
		// secret's value is already masked in it.
		ev["concrete"] = r.Concrete
	}
	if r.Screenshot != nil && len(r.Screenshot.Data) > 0 {
		sum := sha256.Sum256(r.Screenshot.Data)
		ev["screenshot_sha256"] = hex.EncodeToString(sum[:])
	}
	return l.write(ev)
}

// Widened logs a person's widening of the session's write set: the
// approval of request r also allowed the agent to write on r.Site for the
// rest of the session. It is an event of its own, beside r's approval.
func (l *Log) Widened(r checkpoint.Request, d checkpoint.Decision) error {
	if l == nil {
		return nil
	}
	return l.write(map[string]any{
		"event":    "write_set_widened",
		"site":     d.WidenSite,
		"id":       r.ID,
		"action":   r.Action,
		"url":      r.URL,
		"channel":  d.Channel,
		"feedback": d.Feedback,
	})
}

// PlanApproved logs the plan a person approved (request r, decided by d)
// as they left it: its write sites are the session's plan sites from now
// on, replacing those of an earlier plan. An event of its own, beside r's
// approval.
func (l *Log) PlanApproved(r checkpoint.Request, d checkpoint.Decision, p checkpoint.Plan) error {
	if l == nil {
		return nil
	}
	write := p.WriteSites()
	if write == nil {
		write = []string{}
	}
	return l.write(map[string]any{
		"event":   "plan_approved",
		"id":      r.ID,
		"write":   write,
		"sites":   p.Sites,
		"channel": d.Channel,
	})
}

// Completion logs a complete_task call.
func (l *Log) Completion(c Completion) error {
	if l == nil {
		return nil
	}
	return l.write(map[string]any{
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

func (l *Log) write(ev map[string]any) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	ev["time"] = l.now().UTC().Format(time.RFC3339Nano)
	if l.session != "" {
		ev["session"] = l.session
	}
	if l.client != "" {
		ev["client"] = l.client
	}
	line, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if l.red != nil {
		line = l.red.JSON(line)
	}
	// A person reads the real host of every URL in the log, the agent's
	// arguments and the page's text included (a secret is hidden first).
	line = checkpoint.ASCIIHostsJSON(line)
	if _, err := l.w.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}
