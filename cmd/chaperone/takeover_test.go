package main

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/approver"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/driver"
)

// takeoverWheel is a browser that a person takes and hands back, without
// a page.
type takeoverWheel struct{ taken bool }

func (w *takeoverWheel) Screencast(ctx context.Context) (<-chan approver.LiveFrame, error) {
	ch := make(chan approver.LiveFrame)
	go func() { <-ctx.Done(); close(ch) }()
	return ch, nil
}
func (w *takeoverWheel) TakeOver()                                         { w.taken = true }
func (w *takeoverWheel) HandBack(string)                                   { w.taken = false }
func (w *takeoverWheel) Taken() bool                                       { return w.taken }
func (w *takeoverWheel) Input(context.Context, approver.PersonInput) error { return nil }

// run's stuck question waits in the driver's view of the console, beside
// its live view: the person may take the browser over, fix what held the
// agent, and hand back; the note is the agent's hint and the run goes on.
func TestTakeoverAnswersRunsStuckQuestion(t *testing.T) {
	t.Parallel()
	views := make(chan string, 1)
	w, err := approver.NewWeb(approver.WebOptions{OnPending: func(u string, _ checkpoint.Request) { views <- u }})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Listen(""); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var stderr strings.Builder
	detach, err := attachLive(w, &stderr, "driver", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer detach()
	// attachLive wraps a session; the console only needs a wheel.
	wh := &takeoverWheel{}
	live, err := w.Attach("driver", wh)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), live+"live") {
		t.Errorf("stderr does not give the live view: %q", stderr.String())
	}
	answer := make(chan driver.StuckAnswer, 1)
	go func() {
		a, err := askWhenStuck(w)(t.Context(), driver.StuckQuestion{Goal: "g", URL: "http://127.0.0.1:9/", Title: "Shop",
			Failures: []string{"browser_click(@e2): failed (element_obscured)"}})
		if err != nil {
			a = driver.StuckAnswer{Stop: true, Hint: err.Error()}
		}
		answer <- a
	}()
	if view := <-views; view != live {
		t.Fatalf("the stuck question waits in %s, not the driver's view %s", view, live)
	}
	for _, step := range []struct{ path, body string }{{"live/take", `{}`}, {"live/handback", `{"note":"closed the cookie banner"}`}} {
		resp, err := http.Post(live+step.path, "application/json", strings.NewReader(step.body))
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %v %v", step.path, resp, err)
		}
		resp.Body.Close()
	}
	got := <-answer
	if got.Stop || got.Hint != "A person took the browser and handed it back: closed the cookie banner" {
		t.Errorf("the stuck answer: %+v", got)
	}
}
