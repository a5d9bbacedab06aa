package recording

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"
)

// Recording is a recording read back.
type Recording struct {
	// Dir is its directory.
	Dir string
	// Session names the session recorded.
	Session string
	Start   time.Time
	// Frames are in time order; each File is under Dir and exists.
	Frames    []Event
	Calls     []Call
	Approvals []Approval
	// Notes are the note events.
	Notes []Event
}

// frameFile is how a frame's file is named; any other name in a timeline
// is not read, so a timeline cannot point a reader outside its directory.
var frameFile = regexp.MustCompile(`^frames/[0-9]{6}\.jpg$`)

// maxLine bounds one line of a timeline.
const maxLine = 1 << 20

// Read reads the recording in dir. A torn last line, as a process that
// died mid-write leaves, is skipped, and so is a frame whose file is
// missing.
func Read(dir string) (*Recording, error) {
	f, err := os.Open(filepath.Join(dir, TimelineName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read recording %s: %w", dir, ErrNoRecording)
	}
	if err != nil {
		return nil, fmt.Errorf("read recording: %w", err)
	}
	defer f.Close()
	rec := &Recording{Dir: dir}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		var ev Event
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch ev.Type {
		case "start":
			rec.Session, rec.Start = ev.Text, ev.Time
		case "frame":
			if !frameFile.MatchString(ev.File) {
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(ev.File))); err != nil {
				continue
			}
			rec.Frames = append(rec.Frames, ev)
		case "call":
			if ev.Call != nil {
				rec.Calls = append(rec.Calls, *ev.Call)
			}
		case "approval":
			if ev.Approval != nil {
				rec.Approvals = append(rec.Approvals, *ev.Approval)
			}
		case "note":
			rec.Notes = append(rec.Notes, ev)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read recording: %w", err)
	}
	sort.SliceStable(rec.Frames, func(i, j int) bool { return rec.Frames[i].Time.Before(rec.Frames[j].Time) })
	if rec.Start.IsZero() && len(rec.Frames) > 0 {
		rec.Start = rec.Frames[0].Time
	}
	return rec, nil
}

// Duration is the time from the start to the last frame or mark.
func (r *Recording) Duration() time.Duration {
	end := r.Start
	for _, f := range r.Frames {
		end = later(end, f.Time)
	}
	for _, c := range r.Calls {
		end = later(end, c.End)
	}
	for _, a := range r.Approvals {
		end = later(end, a.Decided)
	}
	return end.Sub(r.Start)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Player is what a player page needs of a recording, as JSON: times in
// milliseconds from the start, frames by their path from the page.
type Player struct {
	Session   string         `json:"session"`
	Duration  int64          `json:"duration"`
	Frames    []PlayerFrame  `json:"frames"`
	Calls     []PlayerCall   `json:"calls"`
	Approvals []PlayerChoice `json:"approvals"`
	Notes     []PlayerNote   `json:"notes"`
}

// PlayerFrame is a frame: its time and where the page finds it.
type PlayerFrame struct {
	T   int64  `json:"t"`
	Src string `json:"src"`
}

// PlayerCall is a call mark.
type PlayerCall struct {
	T        int64  `json:"t"`
	End      int64  `json:"end"`
	Tool     string `json:"tool"`
	Target   string `json:"target,omitempty"`
	Code     string `json:"code"`
	Approval string `json:"approval,omitempty"`
}

// PlayerChoice is an approval mark.
type PlayerChoice struct {
	T        int64  `json:"t"`
	Decided  int64  `json:"decided"`
	Action   string `json:"action"`
	Channel  string `json:"channel"`
	Approved bool   `json:"approved"`
}

// PlayerNote is a note.
type PlayerNote struct {
	T    int64  `json:"t"`
	Text string `json:"text"`
}

// Player returns the recording as a player reads it; each frame's src is
// prefix followed by its file (prefix "recording/" for a page beside the
// recording's directory of that name). The texts are data: a page that
// shows them must escape them.
func (r *Recording) Player(prefix string) Player {
	ms := func(t time.Time) int64 { return max(0, t.Sub(r.Start).Milliseconds()) }
	p := Player{Session: r.Session, Duration: r.Duration().Milliseconds(),
		Frames: []PlayerFrame{}, Calls: []PlayerCall{}, Approvals: []PlayerChoice{}, Notes: []PlayerNote{}}
	for _, f := range r.Frames {
		p.Frames = append(p.Frames, PlayerFrame{T: ms(f.Time), Src: prefix + f.File})
	}
	for _, c := range r.Calls {
		p.Calls = append(p.Calls, PlayerCall{T: ms(c.Start), End: ms(c.End), Tool: c.Tool, Target: c.Target, Code: c.Code, Approval: c.Approval})
	}
	for _, a := range r.Approvals {
		p.Approvals = append(p.Approvals, PlayerChoice{T: ms(a.Asked), Decided: ms(a.Decided), Action: a.Action, Channel: a.Channel, Approved: a.Approved})
	}
	for _, n := range r.Notes {
		p.Notes = append(p.Notes, PlayerNote{T: ms(n.Time), Text: n.Text})
	}
	return p
}
