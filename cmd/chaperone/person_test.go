package main

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/mark3labs/mcp-go/client"
)

// The tests of this file act as a person acts (issue 20, items 3 to 5):
// they scroll a box to reach its button, leave a styled dropdown closed,
// move a slider, read a locked agreement and type key by key, on the
// pages under fixtures/site/widgets2.

// personClient serves the widgets2 page path with no profile (and args)
// and returns a client and the first snapshot.
func personClient(t *testing.T, path string, args ...string) (*client.Client, *snapshot.Snapshot) {
	t.Helper()
	site := httptest.NewServer(fixtures.Site())
	t.Cleanup(site.Close)
	c, _, _ := stdioClient(t, nil, append([]string{"serve", "--url", site.URL + path, "--profile", "none"}, args...)...)
	return c, getSnapshot(t, c)
}

// mustSucceed fails the test unless r succeeded.
func mustSucceed(t *testing.T, what string, r actionResult) {
	t.Helper()
	if !r.Success {
		code := ""
		if r.Error != nil {
			code = *r.Error
		}
		t.Fatalf("%s: %s: %s", what, code, r.Message)
	}
}

// pageSays fails the test unless the snapshot's page text holds want.
func pageSays(t *testing.T, s *snapshot.Snapshot, want string) {
	t.Helper()
	if !strings.Contains(s.Render(), want) {
		t.Fatalf("the page does not say %q:\n%s", want, s.Render())
	}
}

// TestButtonInScrolledBox: a multi-step form inside a scrolled box (nested
// in the second step), its buttons below the fold of the box but inside
// the viewport. Each click scrolls the box to the button and lands on it;
// before, the hit test at the button's hidden centre found the document
// and the click was element_obscured "covered by html".
func TestButtonInScrolledBox(t *testing.T) {
	c, s := personClient(t, "/widgets2/steps")
	r, s := act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Full name"), "value": "Ada"})
	mustSucceed(t, "fill the name", r)
	for _, step := range []struct{ button, then string }{
		{"Next", "Step 2"},
		{"Continue to review", "Step 3"},
		{"Create account", "Signed up as Ada"},
	} {
		r, s = click(t, c, browsertest.Ref(t, s, "button", step.button))
		mustSucceed(t, "click "+step.button, r)
		pageSays(t, s, step.then)
	}
}

// TestScrollLockedAgreement: an agreement in a disabled, read-only text
// area scrolls (down by the wheel, then to its end), which enables "I
// agree"; before, browser_scroll refused it as element_disabled.
func TestScrollLockedAgreement(t *testing.T) {
	c, s := personClient(t, "/widgets2/agreement")
	terms := browsertest.Ref(t, s, "textbox", "Read the terms to the end")
	r, s := act(t, c, toolapi.Scroll, map[string]any{"ref": terms, "direction": "down", "amount": 60})
	mustSucceed(t, "scroll the terms down", r)
	r, s = act(t, c, toolapi.Scroll, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Read the terms to the end"), "direction": "bottom"})
	mustSucceed(t, "scroll the terms to the end", r)
	r, s = click(t, c, browsertest.Ref(t, s, "button", "I agree"))
	mustSucceed(t, "click I agree", r)
	pageSays(t, s, "Agreed")
}

// TestStandInSelectLeftClosed: browser_select on the hidden select under a
// selectric-style stand-in (whose list opens when the select takes focus)
// leaves the stand-in showing the value with its list closed, so the
// button right below is clicked; before, the list was left open over it
// and the click was element_obscured.
func TestStandInSelectLeftClosed(t *testing.T) {
	c, s := personClient(t, "/widgets2/dropdown")
	r, s := act(t, c, toolapi.Select, map[string]any{"ref": browsertest.Ref(t, s, "combobox", "T-shirt size"), "value": "Large"})
	mustSucceed(t, "select Large", r)
	r, s = click(t, c, browsertest.Ref(t, s, "button", "Add to bag"))
	mustSucceed(t, "click Add to bag", r)
	pageSays(t, s, "Added size Large")
}

// TestTypeKeyByKey: pages that read keystrokes see them. browser_fill
// with keys types a search that filters as you type (on keyup) and a
// command into a terminal's helper field, which keeps no text; and
// browser_press_key with a text types a command and its Enter in one call.
// Before, fill inserted the text with no key events, so neither page saw
// anything, and the terminal took a press per character.
func TestTypeKeyByKey(t *testing.T) {
	c, s := personClient(t, "/widgets2/keys")
	r, s := act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Search films"), "value": "Al", "keys": true})
	mustSucceed(t, "fill the search key by key", r)
	pageSays(t, s, "1 film")

	r, s = act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Terminal input"), "value": "ls", "keys": true})
	mustSucceed(t, "fill the terminal key by key", r)
	if !strings.Contains(r.Message, "holds no text") {
		t.Errorf("fill message %q does not say the page read the keys", r.Message)
	}
	r, s = act(t, c, toolapi.PressKey, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Terminal input"), "text": " -la\n"})
	mustSucceed(t, "type into the terminal", r)
	pageSays(t, s, "Ran: ls -la")
}

// TestSliderByKeysAndDrag: a slider handle moves by its keys on its ref
// (ArrowRight, Home, End), each result saying the value it shows, and by a
// drag onto the mark of the value wanted.
func TestSliderByKeysAndDrag(t *testing.T) {
	c, s := personClient(t, "/widgets2/slider", "--caps", "drag")
	for _, k := range []struct{ key, shows string }{
		{"ArrowRight", "55"},
		{"Home", "0"},
		{"End", "100"},
	} {
		r, after := act(t, c, toolapi.PressKey, map[string]any{"ref": browsertest.Ref(t, s, "slider", "Balance"), "key": k.key})
		mustSucceed(t, "press "+k.key, r)
		if !strings.HasSuffix(r.Message, "It shows "+k.shows+".") {
			t.Errorf("after %s the result says %q, want the slider's value %s", k.key, r.Message, k.shows)
		}
		pageSays(t, after, "Balance: "+k.shows)
		s = after
	}
	r, s := act(t, c, toolapi.Drag, map[string]any{"from_ref": browsertest.Ref(t, s, "slider", "Balance"), "to_ref": browsertest.Ref(t, s, "button", "Centre")})
	mustSucceed(t, "drag the handle to the centre", r)
	pageSays(t, s, "Balance: 50")

	// jQuery UI's handle says nothing of its value: the result says the
	// number shown beside its track.
	handle := ""
	for _, e := range s.Elements {
		if strings.Contains(e.CSS, "#volume") || (strings.Contains(e.CSS, "ui-slider-handle") && e.Name == "") {
			handle = e.Ref
		}
	}
	if handle == "" {
		t.Fatalf("no ref for the volume handle: %+v", s.Elements)
	}
	r, s = act(t, c, toolapi.PressKey, map[string]any{"ref": handle, "key": "ArrowRight"})
	mustSucceed(t, "press ArrowRight on the volume handle", r)
	if !strings.HasSuffix(r.Message, "It shows 55 (shown beside).") {
		t.Errorf("the result says %q, want where the handle stands", r.Message)
	}
	pageSays(t, s, "Volume: 55")
}
