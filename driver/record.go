package driver

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/google/uuid"
)

// The files of a run record.
const (
	SessionLogName = "session.jsonl"
	ReportName     = "report.html"
)

// DefaultRecordDir returns runs/<time>-<id> under base: a fresh directory
// name that sorts by start time.
func DefaultRecordDir(base string, now time.Time) string {
	return filepath.Join(base, now.UTC().Format("20060102-150405")+"-"+uuid.NewString()[:8])
}

// StartRecord is the first line of session.jsonl.
type StartRecord struct {
	Type  string    `json:"type"` // "start"
	Time  time.Time `json:"time"`
	Goal  string    `json:"goal"`
	Model string    `json:"model"`
	// MaxTurns is the turn limit of the run.
	MaxTurns int `json:"max_turns"`
	// SystemTokens estimates the system prompt.
	SystemTokens int `json:"system_tokens"`
	// URL is the page of the initial snapshot.
	URL string `json:"url,omitempty"`
	// Replay names the script a replay performs; empty for a run.
	Replay     string `json:"replay,omitempty"`
	Screenshot string `json:"screenshot,omitempty"`
}

// TurnRecord is one line of session.jsonl per turn: one model call and the
// tool call it led to.
type TurnRecord struct {
	Type string    `json:"type"` // "turn"
	Turn int       `json:"turn"`
	Time time.Time `json:"time"`
	// RequestTokens is the driver's calibrated estimate of the request;
	// InputTokens and OutputTokens are what the API reported.
	RequestTokens int   `json:"request_tokens"`
	InputTokens   int64 `json:"input_tokens"`
	OutputTokens  int64 `json:"output_tokens"`
	// CacheReadTokens and CacheWriteTokens are the parts of InputTokens
	// read from and written to the prompt cache.
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
	// LatencyMS is the model call's time, retries and waits included.
	LatencyMS int64 `json:"latency_ms"`
	Attempts  int   `json:"attempts"`
	// DroppedTurns is how many early turns the request showed only as a
	// summary.
	DroppedTurns int `json:"dropped_turns,omitempty"`
	// Said is the text the model wrote beside its tool call.
	Said   string          `json:"said,omitempty"`
	Tool   string          `json:"tool,omitempty"`
	Target string          `json:"target,omitempty"`
	Input  json.RawMessage `json:"input,omitempty"`
	// Result is the outcome in short: success, failed (code), approved, …
	Result  string `json:"result,omitempty"`
	Message string `json:"message,omitempty"`
	// Approval is set when a human was asked: "approved" or "rejected".
	Approval string `json:"approval,omitempty"`
	// Skipped names the further tool calls of the response, not executed.
	Skipped []string `json:"skipped,omitempty"`
	URL     string   `json:"url,omitempty"`
	// Screenshot is the file, in the record's directory, of the screenshot
	// the tool returned.
	Screenshot string `json:"screenshot,omitempty"`
	// Error says why the model call or the tool call failed.
	Error string `json:"error,omitempty"`
	// Replay says how a step of a replay went: replayed, or recovered by
	// the model in so many calls. A replay's turn is a step of its script.
	Replay string `json:"replay,omitempty"`
	// Note is what the driver told the model beside the result: a
	// reflection prompt after repeated failures, or a person's hint.
	Note string `json:"note,omitempty"`
}

// EndRecord is the last line of session.jsonl.
type EndRecord struct {
	Type   string    `json:"type"` // "end"
	Time   time.Time `json:"time"`
	Result Result    `json:"result"`
}

// Recorder writes a run's record as it happens: session.jsonl line by line,
// each screenshot as a file, and at the end report.html. A nil *Recorder
// records nothing. Write failures do not stop the run; the first one is
// kept and returned by Close.
type Recorder struct {
	dir string

	mu    sync.Mutex
	log   *os.File
	start StartRecord
	turns []TurnRecord
	end   *EndRecord
	err   error
}

// Permissions of a run record: it holds what the agent saw of pages the
// person is logged in to, so only its owner may read it.
const (
	recordDirPerm  os.FileMode = 0o700
	recordFilePerm os.FileMode = 0o600
)

// NewRecorder creates dir (and its parents) and opens its session log. The
// directory is readable by its owner only, and so is every file in it.
func NewRecorder(dir string) (*Recorder, error) {
	if err := os.MkdirAll(dir, recordDirPerm); err != nil {
		return nil, fmt.Errorf("create run record: %w", err)
	}
	// MkdirAll leaves a directory that already exists as it was.
	if err := os.Chmod(dir, recordDirPerm); err != nil {
		return nil, fmt.Errorf("create run record: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, SessionLogName), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, recordFilePerm)
	if err != nil {
		return nil, fmt.Errorf("create run record: %w", err)
	}
	if err := f.Chmod(recordFilePerm); err != nil {
		f.Close()
		return nil, fmt.Errorf("create run record: %w", err)
	}
	return &Recorder{dir: dir, log: f}, nil
}

// writeFile writes a file of the record, readable by its owner only, even
// when a file of that name was there before.
func (r *Recorder) writeFile(name string, data []byte) error {
	path := filepath.Join(r.dir, name)
	if err := os.WriteFile(path, data, recordFilePerm); err != nil {
		return err
	}
	return os.Chmod(path, recordFilePerm)
}

// Dir is the record's directory.
func (r *Recorder) Dir() string { return r.dir }

// ReportPath is where report.html is written at the end of the run.
func (r *Recorder) ReportPath() string { return filepath.Join(r.dir, ReportName) }

// Close closes the session log and returns the first write error.
func (r *Recorder) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.log != nil {
		r.keep(r.log.Close())
		r.log = nil
	}
	if r.end != nil {
		// Once more, with the whole recording: its last frames are
		// written as the session closes, after the run's end.
		r.keep(r.writeReport())
	}
	return r.err
}

func (r *Recorder) keep(err error) {
	if err != nil && r.err == nil {
		r.err = err
	}
}

func (r *Recorder) begin(rec StartRecord, img *toolapi.Image) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rec.Type = "start"
	rec.Screenshot = r.saveImage(0, img)
	r.start = rec
	r.line(rec)
}

func (r *Recorder) turn(rec TurnRecord, img *toolapi.Image) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rec.Type = "turn"
	rec.Screenshot = r.saveImage(rec.Turn, img)
	r.turns = append(r.turns, rec)
	r.line(rec)
}

// finish writes the end line and the report.
func (r *Recorder) finish(res Result, at time.Time) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	end := EndRecord{Type: "end", Time: at, Result: res}
	r.end = &end
	r.line(end)
	r.keep(r.writeReport())
}

func (r *Recorder) line(v any) {
	if r.log == nil {
		r.keep(errors.New("session log is closed"))
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		r.keep(fmt.Errorf("encode session log line: %w", err))
		return
	}
	_, err = r.log.Write(append(b, '\n'))
	r.keep(err)
}

// writeScript writes a script into the record as name, readable by its
// owner only.
func (r *Recorder) writeScript(name string, s *Script) {
	if r == nil || s == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		r.keep(fmt.Errorf("encode script: %w", err))
		return
	}
	r.keep(r.writeFile(name, append(data, '\n')))
}

// saveImage writes a turn's screenshot and returns its file name, or "".
func (r *Recorder) saveImage(turn int, img *toolapi.Image) string {
	if img == nil {
		return ""
	}
	ext := ".png"
	if img.MIMEType == "image/jpeg" {
		ext = ".jpg"
	}
	name := fmt.Sprintf("turn-%03d%s", turn, ext)
	if err := r.writeFile(name, img.Data); err != nil {
		r.keep(fmt.Errorf("save screenshot: %w", err))
		return ""
	}
	return name
}
