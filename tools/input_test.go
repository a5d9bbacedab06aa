package tools

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

func TestFill(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/form")
	for _, tc := range []struct {
		name     string
		elem     string // the field's label in the page text, or "" for a field found by kind
		kind     string
		selector string
		value    string
		want     string
	}{
		{"text input", "Username", "", `document.querySelector('[name=u]').value`, "ada", "ada"},
		{"textarea keeps its trailing space", "", "multiline", `document.querySelector('#notes').value`, "Line one \nline two ", "Line one \nline two "},
		{"contenteditable", "Bio", "", `document.querySelector('[aria-label=Bio]').textContent`, "Rides bikes.", "Rides bikes."},
		{"date typed as a person would", "", "date", `document.querySelector('input[type=date]').value`, "10/11/2011", "2011-10-11"},
		{"time typed as a person would", "", "time", `document.querySelector('input[type=time]').value`, "8:04 PM", "20:04"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := h.sub(t)
			s := h.snap(false)
			var field string
			if tc.elem != "" {
				field = browsertest.Labelled(t, s, tc.elem)
			} else {
				field = refOfKind(t, s, tc.kind)
			}
			h.ok(toolapi.Fill, map[string]any{"ref": field, "value": tc.value})
			if got := h.evalString(tc.selector); got != tc.want {
				t.Errorf("value = %q, want %q", got, tc.want)
			}
		})
	}
}

// refOfKind returns the ref of the first element of the kind (date, time,
// multiline), for fields without a name to find them by.
func refOfKind(t *testing.T, s *snapshot.Snapshot, kind string) string {
	t.Helper()
	i := slices.IndexFunc(s.Elements, func(e snapshot.Element) bool { return e.Kind == kind })
	if i < 0 {
		t.Fatalf("no element of kind %q in the snapshot:\n%s", kind, s.Outline())
	}
	return s.Elements[i].Ref
}

func TestFillControlledInputFiresEvents(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/form")
	s := h.snap(false)
	h.ok(toolapi.Fill, map[string]any{"ref": browsertest.Labelled(t, s, "Nickname"), "value": "typed by the agent"})
	var echo, events string
	h.eval(`document.querySelector('#controlled-echo').textContent`, &echo)
	h.eval(`document.querySelector('#events').textContent`, &events)
	if echo != "typed by the agent" {
		t.Errorf("the page's state is %q, want the typed value", echo)
	}
	if !strings.Contains(events, "input:") || !strings.Contains(events, "change:") {
		t.Errorf("input and change did not both fire: %q", events)
	}
}

func TestFillNeverLogsAPassword(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/form")
	s := h.snap(false)
	r := h.ok(toolapi.Fill, map[string]any{"ref": browsertest.Labelled(t, s, "Password"), "value": "s3cret-value"})
	if strings.Contains(r.Message, "s3cret") {
		t.Errorf("the result message shows the password: %q", r.Message)
	}
	for _, e := range r.Snapshot.Elements {
		if e.Value != nil && strings.Contains(*e.Value, "s3cret") {
			t.Errorf("the snapshot shows the password in %s", e.Ref)
		}
	}
	if strings.Contains(r.Snapshot.Text, "s3cret") {
		t.Error("the page text shows the password")
	}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	h := open(t, "/survey")
	for _, tc := range []struct {
		name, value, want string
	}{
		{"by value", "lt1", "lt1"},
		{"by visible text", "Less than a year", "lt1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := h.sub(t)
			s := h.snap(false)
			h.ok(toolapi.Select, map[string]any{"ref": browsertest.Ref(t, s, "combobox", ""), "value": tc.value})
			if got := h.evalString(`document.querySelector('select').value`); got != tc.want {
				t.Errorf("value = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestScroll(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/long")
	s := h.snap(true)
	if s.Viewport.ScrollY != 0 {
		t.Fatalf("starts scrolled to %v", s.Viewport.ScrollY)
	}
	r := h.ok(toolapi.Scroll, map[string]any{"direction": "down", "amount": 500})
	if r.Snapshot.Viewport.ScrollY < 400 {
		t.Errorf("after scrolling down 500 the page is at %v", r.Snapshot.Viewport.ScrollY)
	}
	r = h.act(toolapi.Scroll, map[string]any{"direction": "bottom"})
	bottom := r.Snapshot.Viewport.ScrollY
	if !r.Success || bottom < 3000 {
		t.Fatalf("scroll to the bottom: %v at %v", r.Message, bottom)
	}
	r = h.act(toolapi.Scroll, map[string]any{"direction": "up", "amount": 300})
	if got := r.Snapshot.Viewport.ScrollY; !r.Success || got >= bottom {
		t.Errorf("scroll up: at %v, was %v", got, bottom)
	}
	r = h.act(toolapi.Scroll, map[string]any{"direction": "top"})
	if r.Snapshot.Viewport.ScrollY != 0 {
		t.Errorf("scroll to the top: at %v", r.Snapshot.Viewport.ScrollY)
	}
}

func TestScrollByRef(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/long")
	s := h.snap(false) // offscreen elements too
	target := browsertest.Ref(t, s, "button", "Cancel Membership")
	if e, _ := s.Element(target); !slices.Contains(e.State, "offscreen") {
		t.Fatalf("the button should start offscreen: %+v", e)
	}
	r := h.ok(toolapi.Scroll, map[string]any{"ref": target})
	found := false
	for _, e := range r.Snapshot.Elements {
		if e.Role == "button" && strings.Contains(e.Name, "Cancel Membership") {
			found = true
			if e.BBox.Y < 0 || e.BBox.Y+e.BBox.Height > r.Snapshot.Viewport.Height {
				t.Errorf("the button is not in the viewport: %+v", e.BBox)
			}
		}
	}
	if !found {
		t.Error("the button is not in the viewport-only snapshot after scrolling to it")
	}
}

func TestScrollInsideABox(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/long")
	s := h.snap(true)
	box := browsertest.Ref(t, s, "generic", "Billing history")
	r := h.ok(toolapi.Scroll, map[string]any{"ref": box, "direction": "bottom"})
	var atEnd bool
	h.eval(`(() => { const b = document.getElementById('scroll-box'); return b.scrollTop + b.clientHeight >= b.scrollHeight - 1; })()`, &atEnd)
	if !atEnd {
		t.Error("the box is not scrolled to its end")
	}
	if e, _ := r.Snapshot.Element(browsertest.Ref(t, r.Snapshot, "button", "Load older invoices")); slices.Contains(e.State, "offscreen") {
		t.Errorf("the box's last control is still offscreen after scrolling to the end: %v", e.State)
	}
	var pageY float64
	h.eval(`window.scrollY`, &pageY)
	r = h.ok(toolapi.Scroll, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "generic", "Billing history"), "direction": "up", "amount": 200})
	var top, height, after float64
	h.eval(`document.getElementById('scroll-box').scrollTop`, &top)
	h.eval(`document.getElementById('scroll-box').scrollHeight - document.getElementById('scroll-box').clientHeight`, &height)
	if top >= height {
		t.Errorf("the wheel did not scroll the box up: scrollTop %v of %v", top, height)
	}
	h.eval(`window.scrollY`, &after)
	if after != pageY {
		t.Errorf("scrolling inside the box moved the page from %v to %v", pageY, after)
	}
}

func TestScrollLoadsMore(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/lazy")
	var before, after int
	h.eval(`document.querySelectorAll('li').length`, &before)
	for i := 0; i < 5; i++ {
		h.act(toolapi.Scroll, map[string]any{"direction": "bottom"})
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		h.eval(`document.querySelectorAll('li').length`, &after)
		if after > before || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if after <= before {
		t.Errorf("scrolling did not load more: %d items before, %d after", before, after)
	}
}

func TestNormalizeInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		typ, in, want string
		ok            bool
	}{
		{"date", "10/11/2011", "2011-10-11", true},
		{"date", "2011-10-11", "2011-10-11", true},
		{"date", "Oct 11, 2011", "2011-10-11", true},
		{"date", "someday", "", false},
		{"time", "8:04 PM", "20:04", true},
		{"time", "20:04", "20:04", true},
		{"time", "8:04pm", "20:04", true},
		{"time", "25:00", "", false},
		{"datetime-local", "10/11/2011 8:04 PM", "2011-10-11T20:04", true},
		{"month", "October 2011", "2011-10", true},
		{"week", "2011-w41", "2011-W41", true},
		{"number", "1,234.5", "1234.5", true},
		{"number", "many", "", false},
		{"text", "  kept as typed ", "  kept as typed ", true},
	} {
		got, err := normalizeInput(tc.typ, tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("normalizeInput(%q, %q) = %q, %v; want %q, ok %v", tc.typ, tc.in, got, err, tc.want, tc.ok)
		}
	}
}
