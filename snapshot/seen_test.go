package snapshot

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/capture"
)

// judgedCapture loads a judged capture recorded from
// fixtures/site/hostile (testdata/seen).
func judgedCapture(t *testing.T, name string) *capture.Page {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "seen", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var c capture.Page
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

// judgedOptions see all of a page, as a verdict does.
var judgedOptions = Options{MaxElements: 100_000, TokenBudget: 1 << 30, TextBudget: 1 << 30}

// seenText joins the runs of seen text of s.
func seenText(s *Snapshot) string {
	var b strings.Builder
	for _, r := range s.Seen.Text {
		b.WriteString(r.Text + "\n")
	}
	return b.String()
}

// TestSeenTricks builds the recorded verdict-tricks page: every paragraph
// that says "Shown" is seen text, and none that says "Hidden" is, whatever
// hides it. The agent's own view is not changed: its text still has them.
func TestSeenTricks(t *testing.T) {
	t.Parallel()
	s, _, _ := build(t, judgedCapture(t, "tricks"), judgedOptions, 0)
	if s.Seen == nil {
		t.Fatal("a judged capture built no Seen")
	}
	seen := seenText(s)
	for _, want := range []string{
		"Shown plainly.", "Shown though aria-hidden.", "Shown at opacity 0.6.", "Shown light on dark.",
		"Shown in an oklch colour.", "Shown when its box is scrolled.", "Shown in a fixed toast.", "Shown below the fold.",
		"Shown over a box behind it.", "Shown under a translucent veil.",
	} {
		if !strings.Contains(seen, want) {
			t.Errorf("%q is not seen; seen:\n%s", want, seen)
		}
	}
	for _, hidden := range []string{
		"an ancestor's opacity", "opacities that multiply", "a collapsed box", "far to the left", "far above",
		"at 1 px", "white on white", "near-white on white", "dark on dark", "a lab white", "by visibility",
		"by clip-path", "for screen readers", "by a filter", "a transparent colour", "a transparent fill", "scaled to nothing",
		"under an opaque box", "a 1 px scroll box",
	} {
		if strings.Contains(seen, hidden) {
			t.Errorf("%q is seen; seen:\n%s", hidden, seen)
		}
	}
	if strings.Contains(seen, "Hidden") {
		t.Errorf("seen text holds hidden text:\n%s", seen)
	}
	if !strings.Contains(s.Text, "Hidden white on white.") {
		t.Errorf("the agent's page text lost what a person does not see:\n%s", s.Text)
	}
	data, _ := json.Marshal(s)
	if strings.Contains(string(data), `"Document"`) || strings.Contains(string(data), `"Seen"`) {
		t.Errorf("the JSON carries the verdict's marks: %s", data)
	}
}

// TestSeenFrameDocument: text and elements in a cross-site frame carry the
// frame's document, so that the rules can tell its origin from the page's.
func TestSeenFrameDocument(t *testing.T) {
	t.Parallel()
	s, _, _ := build(t, judgedCapture(t, "frame-other"), judgedOptions, 0)
	var inFrame bool
	for _, r := range s.Seen.Text {
		if strings.Contains(r.Text, "Membership cancelled") {
			inFrame = true
			if !strings.HasPrefix(r.Document, "http://localhost:8000/") {
				t.Errorf("the frame's text is in %q, want the frame's document", r.Document)
			}
		}
		if strings.Contains(r.Text, "Manage your plan") && !strings.HasPrefix(r.Document, "http://127.0.0.1:8000/") {
			t.Errorf("the page's text is in %q", r.Document)
		}
	}
	if !inFrame {
		t.Errorf("the frame's text is not seen: %+v", s.Seen.Text)
	}
	e, ok := s.Find("heading", "Membership cancelled")
	if !ok || !e.Seen || len(e.SeenText) != 1 || e.SeenText[0] != "Membership cancelled" || !strings.HasPrefix(e.Document, "http://localhost:8000/") {
		t.Errorf("the frame's heading: %+v (found %v)", e, ok)
	}
}

// TestSeenOnlyOnJudgedCaptures: the agent's captures carry no Seen, and a
// judged one taken while a dialog is open (no layout) has an empty one.
func TestSeenOnlyOnJudgedCaptures(t *testing.T) {
	t.Parallel()
	c := judgedCapture(t, "tricks")
	c.Styles = capture.Styles()
	if s, _, _ := build(t, c, judgedOptions, 0); s.Seen != nil {
		t.Errorf("an agent's capture has Seen: %+v", s.Seen)
	}
	d := &capture.Page{URL: "http://demo.test/x", Styles: capture.JudgedStyles(), Dialog: &capture.Dialog{Type: "alert", Message: "Membership cancelled"}}
	s, _, _ := build(t, d, judgedOptions, 0)
	if s.Seen == nil || len(s.Seen.Text) != 0 {
		t.Errorf("a judged dialog capture: Seen %+v, want empty", s.Seen)
	}
}

func TestParseColorAndContrast(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in      string
		ok      bool
		r, g, b float64
		a       float64
	}{
		{"rgb(255, 255, 255)", true, 1, 1, 1, 1},
		{"rgba(0, 0, 0, 0)", true, 0, 0, 0, 0},
		{"rgba(31, 31, 31, 0.5)", true, 31.0 / 255, 31.0 / 255, 31.0 / 255, 0.5},
		{"rgb(255 0 0 / 50%)", true, 1, 0, 0, 0.5},
		{"transparent", true, 0, 0, 0, 0},
		{"color(srgb 1 1 1)", true, 1, 1, 1, 1},
		{"color(srgb-linear 0 0 0 / 0.25)", true, 0, 0, 0, 0.25},
		{"lab(100 0 0)", true, 1, 1, 1, 1},
		{"lch(0 0 0)", true, 0, 0, 0, 1},
		{"oklab(1 0 0)", true, 1, 1, 1, 1},
		{"oklch(0 0 0)", true, 0, 0, 0, 1},
		{"hsl(0 0% 100%)", false, 0, 0, 0, 0},
		{"rgb(1, 2)", false, 0, 0, 0, 0},
		{"rgb(x, 0, 0)", false, 0, 0, 0, 0},
		{"", false, 0, 0, 0, 0},
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 0.01 }
	for _, c := range cases {
		got, ok := parseColor(c.in)
		if ok != c.ok || (ok && (!near(got.r, c.r) || !near(got.g, c.g) || !near(got.b, c.b) || !near(got.a, c.a))) {
			t.Errorf("parseColor(%q) = %+v, %v; want {%v %v %v %v}, %v", c.in, got, ok, c.r, c.g, c.b, c.a, c.ok)
		}
	}
	black := rgba{0, 0, 0, 1}
	if got := contrast(black, white); !near(got, 21) {
		t.Errorf("black on white: %v, want 21", got)
	}
	if got := contrast(white, white); !near(got, 1) {
		t.Errorf("white on white: %v, want 1", got)
	}
	// Text at opacity 0 is the background itself.
	if got := contrast(black.over(white, 0), white); !near(got, 1) {
		t.Errorf("transparent black on white: %v, want 1", got)
	}
	grey, _ := parseColor("rgb(118, 118, 118)") // WCAG's 4.5:1 grey
	if got := contrast(grey, white); got < 4.4 || got > 4.6 {
		t.Errorf("#767676 on white: %v, want 4.5", got)
	}
}

func TestClips(t *testing.T) {
	t.Parallel()
	b := BBox{X: 10, Y: 20, Width: 100, Height: 40}
	for _, c := range []struct {
		in   string
		ok   bool
		want clipRect
	}{
		{"inset(50%)", true, clipRect{60, 40, 60, 40}},
		{"inset(0px)", true, clipRect{10, 20, 110, 60}},
		{"inset(10px 20px)", true, clipRect{30, 30, 90, 50}},
		{"inset(1px 2px 3px)", true, clipRect{12, 21, 108, 57}},
		{"inset(1px 2px 3px 4px round 5px)", true, clipRect{14, 21, 108, 57}},
		{"circle(50%)", false, clipRect{}},
		{"inset(1em)", false, clipRect{}},
	} {
		got, ok := insetClip(c.in, b)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("insetClip(%q) = %+v, %v; want %+v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	for _, c := range []struct {
		in   string
		ok   bool
		want clipRect
	}{
		{"rect(0px, 0px, 0px, 0px)", true, clipRect{10, 20, 10, 20}},
		{"rect(0px, auto, auto, 0px)", true, clipRect{10, 20, 110, 60}},
		{"rect(0px 5px 5px 0px)", true, clipRect{10, 20, 15, 25}},
		{"rect(0px, 5px)", false, clipRect{}},
	} {
		got, ok := rectClip(c.in, b)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("rectClip(%q) = %+v, %v; want %+v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	for in, want := range map[string]float64{"opacity(0)": 0, "blur(2px) opacity(0.5) opacity(50%)": 0.25, "none": 1, "grayscale(1)": 1} {
		if got := filterOpacity(in); math.Abs(got-want) > 1e-9 {
			t.Errorf("filterOpacity(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestShows: a box shows when at least half its height and some width are
// inside its clips and the document's extent, with no hiding sight.
func TestShows(t *testing.T) {
	t.Parallel()
	with := func(f func(*sight)) sight {
		s := openSight
		f(&s)
		return s
	}
	extent := clipRect{0, 0, 1280, 3000}
	box := BBox{X: 100, Y: 2500, Width: 200, Height: 20}
	for _, c := range []struct {
		name string
		b    BBox
		st   sight
		want bool
	}{
		{"below the fold", box, openSight, true},
		{"left of the page", BBox{X: -9999, Y: 10, Width: 200, Height: 20}, openSight, false},
		{"beyond the page's end", BBox{X: 100, Y: 3100, Width: 200, Height: 20}, openSight, false},
		{"no size", BBox{X: 100, Y: 10}, openSight, false},
		{"transparent", box, with(func(s *sight) { s.alpha = 0.05 }), false},
		{"hidden", box, with(func(s *sight) { s.hidden = true }), false},
		{"its frame not shown", box, with(func(s *sight) { s.gone = true }), false},
		{"clipped to 1 px", box, with(func(s *sight) { s.clip = clipRect{100, 2500, 101, 2501} }), false},
		{"half clipped", box, with(func(s *sight) { s.clip = clipRect{0, 0, 200, 3000} }), true},
		{"through a 1 px scroll box", box, with(func(s *sight) { s.winW, s.winH = 200, 1 }), false},
		{"through a scroll box a line high", box, with(func(s *sight) { s.winW, s.winH = 50, 20 }), true},
	} {
		if got := shows(c.b, c.st, extent); got != c.want {
			t.Errorf("%s: shows = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSeenParts: each run of seen text says which text node drew each
// stretch of it, as the capture numbers the nodes, and the stretches
// cover the run's words; Drawn holds all the text the layout draws, seen
// or not, in document order.
func TestSeenParts(t *testing.T) {
	t.Parallel()
	s, _, _ := build(t, judgedCapture(t, "tricks"), judgedOptions, 0)
	if len(s.Seen.Text) == 0 {
		t.Fatal("nothing seen")
	}
	for _, r := range s.Seen.Text {
		if len(r.Parts) == 0 {
			t.Errorf("run %q has no parts", r.Text)
		}
		end := 0
		for _, p := range r.Parts {
			if p.Node == 0 || p.From < end || p.To <= p.From || p.To > len(r.Text) {
				t.Errorf("run %q: part %+v out of place (after %d)", r.Text, p, end)
				break
			}
			if strings.TrimSpace(r.Text[end:p.From]) != "" {
				t.Errorf("run %q: %q belongs to no part", r.Text, r.Text[end:p.From])
			}
			end = p.To
		}
		if end != len(r.Text) {
			t.Errorf("run %q: parts end at %d", r.Text, end)
		}
	}
	if len(s.Seen.Drawn) != 1 {
		t.Fatalf("Drawn has %d documents, want 1", len(s.Seen.Drawn))
	}
	d := s.Seen.Drawn[0]
	plain, hidden, below := strings.Index(d, "Shown plainly."), strings.Index(d, "Hidden white on white."), strings.Index(d, "Shown below the fold.")
	if plain < 0 || hidden < plain || below < hidden {
		t.Errorf("Drawn is not all the text in order: %q", d)
	}
}
