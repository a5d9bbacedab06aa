package approver

import (
	"bufio"
	"context"
	"errors"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// fakeWheel is a session's browser as the live view sees it, recording
// what reached it.
type fakeWheel struct {
	mu     sync.Mutex
	taken  bool
	note   string
	inputs []PersonInput
}

func (f *fakeWheel) Screencast(ctx context.Context) (<-chan LiveFrame, error) {
	out := make(chan LiveFrame, 1)
	out <- LiveFrame{JPEG: []byte{0xff, 0xd8, 0xff}, Width: 1280, Height: 720}
	go func() { <-ctx.Done(); close(out) }()
	return out, nil
}
func (f *fakeWheel) TakeOver()            { f.mu.Lock(); f.taken = true; f.mu.Unlock() }
func (f *fakeWheel) HandBack(note string) { f.mu.Lock(); f.taken, f.note = false, note; f.mu.Unlock() }
func (f *fakeWheel) Taken() bool          { f.mu.Lock(); defer f.mu.Unlock(); return f.taken }
func (f *fakeWheel) Input(_ context.Context, ev PersonInput) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inputs = append(f.inputs, ev)
	return nil
}

func TestPersonInputValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ev   PersonInput
		ok   bool
	}{
		{"a click", PersonInput{Type: "mousePressed", X: 10, Y: 20, Button: "left", ClickCount: 1}, true},
		{"a move", PersonInput{Type: "mouseMoved", X: 0, Y: 0}, true},
		{"a wheel", PersonInput{Type: "mouseWheel", X: 5, Y: 5, DeltaY: -120}, true},
		{"a character", PersonInput{Type: "keyDown", Key: "a", Code: "KeyA", Text: "a", KeyCode: 65}, true},
		{"Enter", PersonInput{Type: "keyDown", Key: "Enter", Code: "Enter", Text: "\r", KeyCode: 13}, true},
		{"a shortcut", PersonInput{Type: "keyUp", Key: "c", Code: "KeyC", KeyCode: 67, Modifiers: 2}, true},
		{"an unknown type", PersonInput{Type: "insertText", Text: "x"}, false},
		{"no type", PersonInput{}, false},
		{"a negative coordinate", PersonInput{Type: "mouseMoved", X: -1, Y: 0}, false},
		{"a huge coordinate", PersonInput{Type: "mouseMoved", X: 1, Y: 1e9}, false},
		{"NaN", PersonInput{Type: "mouseMoved", X: math.NaN(), Y: 0}, false},
		{"an unknown button", PersonInput{Type: "mousePressed", X: 1, Y: 1, Button: "back"}, false},
		{"too many clicks", PersonInput{Type: "mousePressed", X: 1, Y: 1, Button: "left", ClickCount: 9}, false},
		{"a wheel too far", PersonInput{Type: "mouseWheel", X: 1, Y: 1, DeltaX: 1e7}, false},
		{"a mouse event with a key", PersonInput{Type: "mouseMoved", X: 1, Y: 1, Key: "a"}, false},
		{"a key with no name", PersonInput{Type: "keyDown"}, false},
		{"a key name too long", PersonInput{Type: "keyDown", Key: strings.Repeat("A", 40)}, false},
		{"text of many characters", PersonInput{Type: "keyDown", Key: "a", Text: "rm -rf"}, false},
		{"a control character", PersonInput{Type: "keyDown", Key: "a", Text: "\x1b"}, false},
		{"a key code out of range", PersonInput{Type: "keyDown", Key: "a", KeyCode: 4096}, false},
		{"a key with a pointer", PersonInput{Type: "keyDown", Key: "a", X: 3}, false},
		{"modifiers out of range", PersonInput{Type: "keyDown", Key: "a", Modifiers: 64}, false},
	} {
		err := tc.ev.Validate()
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v, want ok %v", tc.name, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrBadInput) {
			t.Errorf("%s: %v is not ErrBadInput", tc.name, err)
		}
	}
}

// The live view of a session: its page, its frames, take over, input,
// hand back; other sessions' capabilities and other sites reach nothing,
// and a refused request leaves the session as it was.
func TestWebLiveView(t *testing.T) {
	t.Parallel()
	w, _ := startWeb(t)
	alice, bob := &fakeWheel{}, &fakeWheel{}
	aliceURL, err := w.Attach("alice", alice)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Attach("bob", bob); err != nil {
		t.Fatal(err)
	}
	code, body, hdr := get(t, aliceURL+"live")
	if code != http.StatusOK || !strings.Contains(body, `id="screen"`) || !strings.Contains(hdr.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Fatalf("live page: %d %s %v", code, hdr, body)
	}
	if hdr.Get("X-Frame-Options") != "DENY" {
		t.Errorf("the live page may be framed: %v", hdr)
	}
	// A frame arrives as a server-sent event.
	resp, err := http.Get(aliceURL + "live/frames")
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	resp.Body.Close()
	if err != nil || !strings.HasPrefix(line, `data: {`) || !strings.Contains(line, `"jpeg":"/9j/"`) {
		t.Errorf("first event: %q %v", line, err)
	}
	post := func(path, body string, hdr map[string]string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, aliceURL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		return r.StatusCode
	}
	click := `{"type":"mousePressed","x":10,"y":10,"button":"left","clickCount":1}`
	if c := post("live/input", click, nil); c != http.StatusConflict {
		t.Errorf("input before a takeover: %d", c)
	}
	if c := post("live/take", `{}`, map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}); c != http.StatusForbidden || alice.Taken() {
		t.Errorf("another site took over: %d", c)
	}
	if c := post("live/take", `{}`, nil); c != http.StatusOK || !alice.Taken() || bob.Taken() {
		t.Errorf("take over: %d, alice %v bob %v", c, alice.Taken(), bob.Taken())
	}
	for _, bad := range []string{`{"type":"evil"}`, `{"type":"mouseMoved","x":1,"y":1,"js":"x"}`, `[1]`, `{"type":"mouseMoved","x":1,"y":1}{"type":"mouseMoved","x":1,"y":1}`} {
		if c := post("live/input", bad, nil); c != http.StatusBadRequest {
			t.Errorf("input %s: %d, want 400", bad, c)
		}
	}
	if c := post("live/input", click, nil); c != http.StatusOK || len(alice.inputs) != 1 || len(bob.inputs) != 0 {
		t.Errorf("input: %d; alice got %v, bob %v", c, alice.inputs, bob.inputs)
	}
	if c := post("live/handback", `{"note":"done"}`, nil); c != http.StatusOK || alice.Taken() || alice.note != "done" {
		t.Errorf("hand back: %d taken %v note %q", c, alice.Taken(), alice.note)
	}
	// A session that closed has no live view.
	w.Detach("alice")
	if code, _, _ := get(t, aliceURL+"live"); code != http.StatusNotFound {
		t.Errorf("a detached session's live view: %d", code)
	}
}

// Handing back answers the agent's own request for a person (a login),
// with the note; a request bound to an action, or another session's, is
// left for the person to decide: a hand-back approves no action.
func TestWebHandBackAnswersTheAgentsRequest(t *testing.T) {
	t.Parallel()
	w, urls := startWeb(t)
	wh := &fakeWheel{}
	view, err := w.Attach("sess-1", wh)
	if err != nil {
		t.Fatal(err)
	}
	login := testRequest("login")
	login.Kind, login.Concrete, login.Action = checkpoint.KindAgent, nil, "Sign in for me"
	bound := testRequest("bound")
	bound.Kind = checkpoint.KindAgent
	other := testRequest("other")
	other.Kind, other.Concrete, other.Session = checkpoint.KindAgent, nil, "sess-2"
	var done []<-chan result
	for _, r := range []checkpoint.Request{login, bound, other} {
		done = append(done, approveAsync(t.Context(), w, r))
		<-urls
	}
	for _, step := range []struct{ path, body string }{{"live/take", `{}`}, {"live/handback", `{"note":"Signed in"}`}} {
		resp, err := http.Post(view+step.path, "application/json", strings.NewReader(step.body))
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %v %v", step.path, resp, err)
		}
		resp.Body.Close()
	}
	got := <-done[0]
	if got.err != nil || !got.d.Approved || got.d.Feedback != "A person took the browser and handed it back: Signed in" {
		t.Errorf("the agent's request: %+v", got)
	}
	for i, name := range []string{"bound", "other"} {
		select {
		case r := <-done[i+1]:
			t.Errorf("the hand-back decided the %s request: %+v", name, r)
		default:
		}
	}
}
