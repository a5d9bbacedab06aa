package approver_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/approver"
	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// look takes a snapshot of tab the way the tools do.
func look(t *testing.T, ctx context.Context, tab *browser.Context) (*snapshot.Snapshot, snapshot.Table) {
	t.Helper()
	c, err := tab.Capture(ctx, browser.CaptureOptions{Screenshot: true})
	if err != nil {
		t.Fatalf("capture: %v", err)
	}
	s, table, _ := snapshot.Build(c, snapshot.Options{}, 0)
	return s, table
}

// TestWebConsoleInChromium: the gate stops the click on "Finish
// Cancellation" on the real demo page and waits in the web console; a person
// opens the console in Chromium, sees the action and the page's screenshot,
// writes feedback and clicks Reject; then, asked again, clicks Approve.
func TestWebConsoleInChromium(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	pending := make(chan string, 4)
	web, err := approver.NewWeb(approver.WebOptions{OnPending: func(url string, r checkpoint.Request) { pending <- url }})
	if err != nil {
		t.Fatal(err)
	}
	if err := web.Listen(""); err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	p, _ := checkpoint.LoadProfile("demo")
	site := browsertest.Site(t)
	p, _ = p.WithDemoSite(site)
	gate := checkpoint.NewGate(p, web, checkpoint.Options{Session: "test-session"})

	// The agent's tab, on the checkpoint page.
	agent := browsertest.Tab(t)
	if err := agent.Navigate(ctx, site+"/finish"); err != nil {
		t.Fatal(err)
	}
	page, refs := look(t, ctx, agent)
	if page.Screenshot == nil || len(page.Screenshot.Data) == 0 {
		t.Fatalf("no screenshot of the demo page: %v", page.Notes)
	}
	target, ok := page.Find("button", "Finish Cancellation")
	if !ok {
		t.Fatalf("no Finish Cancellation button:\n%s", page.Outline())
	}
	action := checkpoint.Action{Verb: checkpoint.VerbClick, Ref: target.Ref, Node: int64(refs[target.Ref].BackendNodeID),
		Role: target.Role, Name: target.Name, Box: &target.BBox}
	// The person sees the page with the button outlined.
	marked := checkpoint.MarkTarget(page.Screenshot, target.BBox, page.Viewport)
	if bytes.Equal(marked.Data, page.Screenshot.Data) {
		t.Fatal("MarkTarget drew nothing")
	}

	// The person's tab, on the console.
	person := browsertest.Tab(t)
	for round, c := range []struct {
		button, feedback string
		approved         bool
	}{
		{"Reject", "Not yet: ask about the refund first.", false},
		{"Approve", "", true},
	} {
		type result struct {
			d   checkpoint.Decision
			err error
		}
		done := make(chan result, 1)
		go func() {
			d, err := gate.Authorize(ctx, page, action)
			done <- result{d, err}
		}()
		var url string
		select {
		case url = <-pending:
		case r := <-done:
			t.Fatalf("round %d: decided without the console: %+v", round, r)
		case <-ctx.Done():
			t.Fatal("the gate never asked")
		}
		if err := person.Navigate(ctx, url); err != nil {
			t.Fatal(err)
		}
		var seen struct {
			Prompt, Lines    string
			ImgW, ImgH, Kids int
			Shot             string
		}
		if err := person.Evaluate(ctx, `(async () => {
			const img = document.querySelector("img.screenshot");
			if (img && !img.complete) await new Promise(r => img.onload = img.onerror = r);
			const shot = img ? new Uint8Array(await (await fetch(img.src)).arrayBuffer()) : [];
			let bin = "";
			for (const b of shot) bin += String.fromCharCode(b);
			return {Prompt: document.querySelector(".prompt").textContent,
				Lines: document.querySelector(".lines").innerText,
				ImgW: img ? img.naturalWidth : 0, ImgH: img ? img.naturalHeight : 0,
				Kids: document.querySelectorAll("section.approval").length,
				Shot: btoa(bin)};
		})()`, &seen); err != nil {
			t.Fatal(err)
		}
		want := `The system wants to proceed with: click button "Finish Cancellation". Approve?`
		if seen.Prompt != want || !strings.Contains(seen.Lines, "URL: "+site+"/finish") ||
			!strings.Contains(seen.Lines, `Element: button "Finish Cancellation"`) || seen.Kids != 1 {
			t.Errorf("round %d: console shows %+v", round, seen)
		}
		if shot, _ := base64.StdEncoding.DecodeString(seen.Shot); !bytes.Equal(shot, marked.Data) {
			t.Errorf("round %d: the console shows a screenshot of %d bytes, not the marked one of %d", round, len(shot), len(marked.Data))
		}
		if seen.ImgW != page.Screenshot.Width || seen.ImgH != page.Screenshot.Height {
			t.Errorf("round %d: screenshot shown at %dx%d, want the page's %dx%d", round, seen.ImgW, seen.ImgH,
				page.Screenshot.Width, page.Screenshot.Height)
		}

		// The person acts through the page as anyone would: type, then click.
		console, table := look(t, ctx, person)
		if c.feedback != "" {
			e, ok := console.Find("textbox", "Message to the agent")
			if !ok {
				t.Fatalf("no message box in the console:\n%s", console.Outline())
			}
			if _, err := person.Type(ctx, table[e.Ref].BackendNodeID, c.feedback, true); err != nil {
				t.Fatal(err)
			}
		}
		e, ok := console.Find("button", c.button)
		if !ok {
			t.Fatalf("no %s button in the console:\n%s", c.button, console.Outline())
		}
		if err := person.ScrollIntoView(ctx, table[e.Ref].BackendNodeID); err != nil {
			t.Fatal(err)
		}
		console, table = look(t, ctx, person)
		if e, ok = console.Find("button", c.button); !ok {
			t.Fatalf("no %s button in the scrolled console:\n%s", c.button, console.Outline())
		}
		btn := table[e.Ref]
		if err := person.Click(ctx, btn.BBox.X+btn.BBox.Width/2, btn.BBox.Y+btn.BBox.Height/2); err != nil {
			t.Fatal(err)
		}
		var r result
		select {
		case r = <-done:
		case <-ctx.Done():
			var where string
			person.Evaluate(context.Background(), `location.href + " " + document.body.innerText.slice(0, 300)`, &where)
			t.Fatalf("round %d: clicking %s at %+v decided nothing; the console shows %s", round, c.button, btn.BBox, where)
		}
		if r.err != nil || r.d.RequestID == "" {
			t.Errorf("round %d: the decision names no request: %+v %v", round, r.d, r.err)
		}
		r.d.RequestID = ""
		if r.err != nil || r.d != (checkpoint.Decision{Approved: c.approved, Feedback: c.feedback, Channel: checkpoint.ChannelWeb}) {
			t.Errorf("round %d: %+v %v", round, r.d, r.err)
		}
		if !c.approved && r.d.Message() != "User feedback: "+c.feedback {
			t.Errorf("message %q", r.d.Message())
		}
		// After the decision the console empties itself.
		deadline := time.Now().Add(10 * time.Second)
		for {
			var n int
			person.Evaluate(ctx, `document.querySelectorAll("section.approval").length`, &n)
			if n == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the decided approval is still listed", round)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// TestWebConsoleWrongTokenInChromium: a browser that guesses the console's
// URL wrong sees nothing: an empty 404, no page, no screenshot.
func TestWebConsoleWrongTokenInChromium(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	web, err := approver.NewWeb(approver.WebOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := web.Listen(""); err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	r := checkpoint.Request{ID: "r1", Kind: checkpoint.KindCheckpoint, Action: "click the secret button", URL: "http://x/",
		Screenshot: &snapshot.Screenshot{MIMEType: "image/png", Width: 1, Height: 1, Data: []byte("x")}}
	go web.Approve(ctx, r)
	tab := browsertest.Tab(t)
	good, err := web.URL("")
	if err != nil {
		t.Fatal(err)
	}
	base := good[:strings.Index(good[len("http://"):], "/")+len("http://")]
	wrong := []string{base + "/", base + "/wrong-token/", good[:len(good)-2] + "/", base + "/wrong/api/pending",
		base + "/x" + strings.Trim(good[len(base):], "/") + "/api/approvals/r1/screenshot"}
	// Navigating to a wrong URL fails outright: there is no page to show.
	for _, u := range wrong {
		err := tab.Navigate(ctx, u)
		var text string
		tab.Evaluate(ctx, `document.documentElement.outerHTML`, &text)
		if err == nil || strings.Contains(text, "secret") || strings.Contains(text, "Approve") {
			t.Errorf("%s: navigation error %v; page %s", u, err, text)
		}
	}
	// Seen from the console's own origin, each is an empty 404.
	if err := tab.Navigate(ctx, good); err != nil {
		t.Fatal(err)
	}
	for _, u := range wrong {
		var got struct {
			Status int
			Body   string
		}
		if err := tab.Evaluate(ctx, fmt.Sprintf(`fetch(%q).then(async r => ({Status: r.status, Body: await r.text()}))`, u), &got); err != nil ||
			got.Status != 404 || got.Body != "" {
			t.Errorf("%s: %+v %v", u, got, err)
		}
	}
}
