package tools

import (
	"encoding/json"
	"log/slog"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// pieced applies an action's delta to the page the agent had, failing the
// test unless the result is a delta of it.
func pieced(t *testing.T, had *snapshot.Snapshot, r toolapi.ActionResult) *snapshot.Snapshot {
	t.Helper()
	if r.Delta == nil {
		t.Fatalf("a whole snapshot, want a delta of %s:\n%s", had.ID, r.Snapshot.Render())
	}
	s, ok := snapshot.Apply(had, r.Delta)
	if !ok {
		t.Fatalf("the delta is of %s, not of the snapshot sent (%s)", r.Delta.Of, had.ID)
	}
	return s
}

// TestDeltaAgainstWhatWasSent: the page changes itself between the snapshot
// the agent was sent and its next action, and a snapshot is built in
// between that the agent is never sent (complete_task answers without
// one): the delta is against what the agent saw, so it shows both changes,
// and the page it pieces together is the page.
func TestDeltaAgainstWhatWasSent(t *testing.T) {
	t.Parallel()
	h := openWith(t, "/variants/delta", Config{SnapshotDelta: true})
	seen := h.snap(true)
	keep := browsertest.Ref(t, seen, "button", "Keep plan")
	h.eval(`swapLabels()`, nil)
	if out := h.call(toolapi.CompleteTask, map[string]any{"status": "success", "reason": "checking"}); resultSnapshot(out) != nil {
		t.Fatalf("complete_task sent a snapshot: %T", out.Value)
	}
	h.eval(`document.getElementById('plan-text').textContent = 'Plan: Gold, four screens.'`, nil)
	r := h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, seen, "button", "Show plans")})
	page := pieced(t, seen, r)
	text, _ := toolapi.Text(r)
	for _, want := range []string{"~" + keep + ` button "Downgrade plan"`, "+ Plan: Gold, four screens."} {
		if !strings.Contains(text, want) {
			t.Errorf("the delta does not show %q:\n%s", want, text)
		}
	}
	if whole := h.snap(true); whole.Render() != page.Render() {
		t.Errorf("pieced:\n%s\nwhole:\n%s", page.Render(), whole.Render())
	}
}

// TestDeltaRelabelledAfterIsNotClicked: after a delta, the page swaps two
// labels before the agent clicks: the ref the delta showed as "Keep plan"
// now reads "Downgrade plan", and the click is refused, as for a whole
// snapshot; the next result shows the swap.
func TestDeltaRelabelledAfterIsNotClicked(t *testing.T) {
	t.Parallel()
	h := openWith(t, "/variants/delta", Config{SnapshotDelta: true})
	seen := h.snap(true)
	r := h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, seen, "button", "Show plans")})
	page := pieced(t, seen, r)
	keep := browsertest.Ref(t, page, "button", "Keep plan")
	h.eval(`swapLabels()`, nil)
	r = h.act(toolapi.Click, map[string]any{"ref": keep})
	wantError(t, r, toolapi.RefInvalid)
	if got := h.evalString(`document.getElementById('status').textContent`); got != "" {
		t.Fatalf("the relabelled button was clicked: %q", got)
	}
	page = pieced(t, page, r)
	if e, ok := page.Element(keep); !ok || e.Name != "Downgrade plan" {
		t.Errorf("after the refusal the agent has %s as %+v, want Downgrade plan", keep, e)
	}
}

// TestDeltaCheckpoint: a gated button the agent knows only from a delta is
// put to the person as the whole action, with the page's screenshot, and
// done once approved.
func TestDeltaCheckpoint(t *testing.T) {
	t.Parallel()
	g := openGated(t, "/variants/delta", "default", true, Config{SnapshotDelta: true})
	seen := g.snap(true)
	r := g.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, seen, "button", "Show plans")})
	page := pieced(t, seen, r)
	r = g.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, page, "button", "Delete account")})
	asked := g.person.Requests()
	if len(asked) != 1 {
		t.Fatalf("the person was asked %d times, want once", len(asked))
	}
	if a := asked[0]; a.Action != `click button "Delete account"` || a.Screenshot == nil || !strings.HasSuffix(a.URL, "/variants/delta") {
		t.Errorf("the person saw %q on %s (screenshot %v)", a.Action, a.URL, a.Screenshot != nil)
	}
	if got := g.evalString(`document.getElementById('status').textContent`); got != "Account deleted." {
		t.Errorf("status %q after the approved click", got)
	}
	if page = pieced(t, page, r); !strings.Contains(page.Text, "Account deleted.") {
		t.Errorf("the delta does not show the outcome:\n%s", page.Render())
	}
}

// TestDeltaOff: without SnapshotDelta every result is whole and every
// snapshot numbers its refs anew, as before deltas.
func TestDeltaOff(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/delta")
	seen := h.snap(true)
	r := h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, seen, "button", "Show plans")})
	if r.Delta != nil {
		t.Fatal("a delta with deltas off")
	}
	if before, after := browsertest.Ref(t, seen, "button", "Swap labels"), browsertest.Ref(t, r.Snapshot, "button", "Swap labels"); before == after {
		t.Errorf("a ref was kept with deltas off: %s", after)
	}
}

// TestRedactDeltaEveryField: every string a delta carries from the page
// hides the session's secrets, whatever field it is in.
func TestRedactDeltaEveryField(t *testing.T) {
	t.Parallel()
	const pw = "p@ss w0rd/Zq?9"
	enc := url.QueryEscape(pw)
	s := newSecrets(map[string]string{"PW": pw}, nil, nil)
	var e snapshot.Element
	ev := reflect.ValueOf(&e).Elem()
	for i := range ev.NumField() {
		switch name := ev.Type().Field(i).Name; {
		case name == "Ref" || name == "Role" || name == "NameSource" || name == "Kind":
		case ev.Field(i).Kind() == reflect.String:
			ev.Field(i).SetString("x " + enc)
		case ev.Field(i).Kind() == reflect.Pointer && ev.Field(i).Type().Elem().Kind() == reflect.String:
			v := "x " + enc
			ev.Field(i).Set(reflect.ValueOf(&v))
		}
	}
	d := &snapshot.Delta{
		Page:  snapshot.Page{URL: "https://x.test/?pw=" + enc, Title: "Results for " + pw},
		Added: []snapshot.Element{e}, Changed: []snapshot.Element{e}, Updated: []snapshot.Element{e},
		Text:  []snapshot.TextEdit{{Delete: []string{"was " + pw}, Insert: []string{"is " + strings.ToUpper(enc)}}},
		Notes: []string{enc}, NotesChanged: true,
	}
	// Every string field of the delta is one of those above.
	dv := reflect.ValueOf(d).Elem()
	for i := range dv.NumField() {
		f := dv.Type().Field(i)
		if f.Type.Kind() == reflect.String && !strings.Contains(" Of ID ", " "+f.Name+" ") {
			t.Errorf("Delta.%s is a string redactDelta may not know", f.Name)
		}
	}
	s.redactDelta(d)
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(string(data)), strings.ToLower(enc)) || strings.Contains(string(data), "p@ss") {
		t.Errorf("the delta still shows the secret: %s", data)
	}
	r, _ := toolapi.Text(toolapi.ActionResult{Success: true, Snapshot: &snapshot.Snapshot{}, Delta: d})
	if strings.Contains(strings.ToLower(r), strings.ToLower(enc)) || strings.Contains(r, "p@ss") {
		t.Errorf("the delta's text still shows the secret:\n%s", r)
	}
}

// TestDeltaHidesSecretsLearntSince: a value the agent saw in the open, which
// became a secret after, never comes back as a line the delta removes.
func TestDeltaHidesSecretsLearntSince(t *testing.T) {
	t.Parallel()
	const code = "Tq7#secret-42"
	s := &Session{config: Config{SnapshotDelta: true}, log: slog.New(slog.DiscardHandler), secrets: newSecrets(map[string]string{"CODE": code}, nil, nil)}
	rest := strings.Repeat("\nA line of the page that stays as it was, so that a delta is worth sending.", 8)
	base := &snapshot.Snapshot{ID: "a", Elements: []snapshot.Element{{Ref: "@e1", Role: "button", Name: "Go"}},
		Text: "Your code: " + code + rest}
	cur := &snapshot.Snapshot{ID: "b", Elements: []snapshot.Element{{Ref: "@e1", Role: "button", Name: "Go"}},
		Text: "Your code: {{CODE}}, used" + rest}
	s.delta = deltas{sent: base, sentLine: 1, lastID: "b", lastLine: 1}
	out := s.deltaFor(toolapi.Click, Output{Value: toolapi.ActionResult{Success: true, Snapshot: cur}})
	r := out.Value.(toolapi.ActionResult)
	if r.Delta == nil {
		t.Fatal("no delta")
	}
	text, _ := toolapi.Text(r)
	data, _ := json.Marshal(r)
	if strings.Contains(text+string(data), code) {
		t.Errorf("the delta shows the secret:\n%s\n%s", text, data)
	}
}

// TestDeltaUnsentSnapshotKeepsNoRelabelledRef: a snapshot the agent is never
// sent (complete_task answers without one) keeps the refs of the nodes it
// saw; a page that swapped two labels before it must not make the ref the
// agent knows as "Keep plan" click "Downgrade plan".
func TestDeltaUnsentSnapshotKeepsNoRelabelledRef(t *testing.T) {
	t.Parallel()
	for _, status := range []string{"failed", "success"} {
		t.Run(status, func(t *testing.T) {
			t.Parallel()
			h := openWith(t, "/variants/delta", Config{SnapshotDelta: true})
			seen := h.snap(true)
			keep := browsertest.Ref(t, seen, "button", "Keep plan")
			h.eval(`swapLabels()`, nil)
			h.call(toolapi.CompleteTask, map[string]any{"status": status, "reason": "checking"})
			r := h.act(toolapi.Click, map[string]any{"ref": keep})
			wantError(t, r, toolapi.RefInvalid)
			if got := h.evalString(`document.getElementById('status').textContent`); got != "" {
				t.Fatalf("a button the agent never saw was clicked: %q", got)
			}
			page := pieced(t, seen, r)
			if e, ok := page.Element(keep); !ok || e.Name != "Downgrade plan" {
				t.Errorf("after the refusal the agent has %s as %+v, want Downgrade plan", keep, e)
			}
			// The ref as now shown acts.
			h.ok(toolapi.Click, map[string]any{"ref": keep})
			if got := h.evalString(`document.getElementById('status').textContent`); !strings.Contains(got, "Downgrade") {
				t.Errorf("status %q after clicking the ref as shown", got)
			}
		})
	}
}
