package main

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/mark3labs/mcp-go/client"
)

// mouseStep is one thing a person does with the mouse on a widget page:
// browser_click on the element found by role and name, with the mouse's
// arguments, and the text the page shows after it.
type mouseStep struct {
	role, name string
	args       map[string]any
	want       string
}

// mouseAct runs st and returns the result's snapshot.
func mouseAct(t *testing.T, c *client.Client, s *snapshot.Snapshot, st mouseStep) *snapshot.Snapshot {
	t.Helper()
	args := map[string]any{"ref": browsertest.Ref(t, s, st.role, st.name)}
	for k, v := range st.args {
		args[k] = v
	}
	r, after := act(t, c, toolapi.Click, args)
	if !r.Success {
		t.Fatalf("click %v on %s %q: error %v, %s\n%s", st.args, st.role, st.name, *r.Error, r.Message, s.Render())
	}
	if !strings.Contains(after.Text, st.want) {
		t.Fatalf("after click %v on %s %q the page text lacks %q:\n%s", st.args, st.role, st.name, st.want, after.Render())
	}
	return after
}

// TestMouseWidgets (issue 31, the whole mouse): over stdio, a double click
// edits a task, a right click opens a page's own context menu whose items
// are then elements to click, and Control (or Meta, or "Ctrl") and Shift
// clicks extend a selection of rows, as a person's mouse does.
func TestMouseWidgets(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	tests := []struct {
		page  string
		steps []mouseStep
	}{
		{"/widgets/tasks", []mouseStep{
			{"button", "Water plants", nil, "Selected Water plants"},
			{"button", "Water plants", map[string]any{"count": 2}, "Editing Water plants"},
		}},
		{"/widgets/filemenu", []mouseStep{
			{"listitem", "notes.txt", map[string]any{"button": "right"}, "Menu for notes.txt"},
			{"menuitem", "Open", nil, "Opened notes.txt"},
			{"listitem", "budget.xlsx", map[string]any{"button": "right"}, "Menu for budget.xlsx"},
			{"menuitem", "Delete", nil, "Deleted budget.xlsx"},
		}},
		{"/widgets/rowselect", []mouseStep{
			{"option", "Alpha", nil, "Selected: Alpha"},
			{"option", "Charlie", map[string]any{"modifiers": []string{"Control"}}, "Selected: Alpha, Charlie"},
			{"option", "Echo", map[string]any{"modifiers": []string{"Shift"}}, "Selected: Charlie, Delta, Echo"},
			{"option", "Alpha", map[string]any{"modifiers": []string{"Meta"}}, "Selected: Alpha, Charlie, Delta, Echo"},
			{"option", "Delta", map[string]any{"modifiers": []string{"ctrl"}}, "Selected: Alpha, Charlie, Echo"},
			{"option", "Bravo", nil, "Selected: Bravo"},
		}},
	}
	for _, tt := range tests {
		t.Run(strings.TrimPrefix(tt.page, "/widgets/"), func(t *testing.T) {
			c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+tt.page, "--profile", "none")
			s := getSnapshot(t, c)
			for _, st := range tt.steps {
				s = mouseAct(t, c, s, st)
			}
		})
	}
}

// TestMouseGated (issue 31): every gesture of the mouse is judged as a
// click on what it reaches. A double click on a button that acts on a
// double click asks once, the person seeing "double click"; an approval of
// a plain click does not cover it; a middle or right click on a button the
// page acts on for any button asks; a right click that opens a menu asks
// nobody, and the menu's "Delete" asks.
func TestMouseGated(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()

	t.Run("double click", func(t *testing.T) {
		c, host, _ := webhookServe(t, "--url", site.URL+"/widgets/tasks")
		s := getSnapshot(t, c)
		purge := map[string]any{"ref": browsertest.Ref(t, s, "button", "Delete all tasks"), "count": 2}
		p, s := keysRefused(t, c, host, toolapi.Click, purge)
		if p.Concrete == nil || p.Concrete.Gesture != "double click" || !strings.Contains(p.Action, `double click button "Delete all tasks"`) {
			t.Fatalf("the person was asked about %q (%+v), want the double click", p.Action, p.Concrete)
		}
		if !strings.Contains(s.Text, "Water plants") || strings.Contains(s.Text, "Deleted") {
			t.Fatalf("the rejected double click acted:\n%s", s.Text)
		}
		// An approval of a plain click covers a plain click, not a
		// double click.
		host.decisions <- map[string]any{"approved": true}
		a := requestApproval(t, c, map[string]any{"action": "click Delete all tasks", "reason": "asked", "ref": browsertest.Ref(t, s, "button", "Delete all tasks"), "verb": "click"})
		host.asked(t)
		if !a.Approved {
			t.Fatalf("approval: %+v", a)
		}
		s = getSnapshot(t, c)
		purge["ref"] = browsertest.Ref(t, s, "button", "Delete all tasks")
		host.decisions <- map[string]any{"approved": true}
		r, s := keysAct(t, c, toolapi.Click, purge)
		again := host.asked(t)
		if again.Concrete == nil || again.Concrete.Gesture != "double click" {
			t.Errorf("the second question: %+v", again.Concrete)
		}
		if !r.Success || !strings.Contains(s.Text, "Deleted all tasks") || !strings.Contains(r.Message, "(double click)") {
			t.Fatalf("the approved double click: %v %q\n%s", r.Error, r.Message, s.Text)
		}
		host.notAsked(t)
	})

	t.Run("any button", func(t *testing.T) {
		c, host, _ := webhookServe(t, "--url", site.URL+"/hostile/mouse-links")
		for _, args := range []map[string]any{
			{"button": "middle"},
			{"button": "right"},
			{"button": "Middle", "modifiers": []string{"Shift"}},
			{"modifiers": []string{"Alt"}},
			{"count": 3},
		} {
			s := getSnapshot(t, c)
			args["ref"] = browsertest.Ref(t, s, "button", "Delete account")
			p, s := keysRefused(t, c, host, toolapi.Click, args)
			if p.Concrete == nil || p.Concrete.Name != "Delete account" || p.Concrete.Gesture == "" {
				t.Errorf("%v: the person was asked about %+v", args, p.Concrete)
			}
			if !strings.Contains(s.Text, "Nothing done") {
				t.Fatalf("%v: the rejected click acted:\n%s", args, s.Text)
			}
		}
		host.notAsked(t)
	})

	t.Run("second press re-judged", func(t *testing.T) {
		// The first click turns "Archive" (asked about by nobody) into
		// "Delete everything": the second press does not go.
		c, host, _ := webhookServe(t, "--url", site.URL+"/hostile/mouse-links")
		for _, args := range []map[string]any{{"count": 2}, {"count": 3, "modifiers": []string{"Shift"}}} {
			s := getSnapshot(t, c)
			ref := browsertest.Ref(t, s, "button", "Archive")
			args["ref"] = ref
			r, after := keysAct(t, c, toolapi.Click, args)
			if r.Success || r.Error == nil || *r.Error != string(toolapi.ActionFailed) || !strings.Contains(r.Message, "nothing more was pressed") {
				t.Errorf("%v: success %v error %v %q", args, r.Success, r.Error, r.Message)
			}
			if strings.Contains(after.Text, "Everything deleted") {
				t.Fatalf("%v: the second press went to what the first made of the button:\n%s", args, after.Text)
			}
			host.notAsked(t)
			// Back to "Archive" for the next case.
			if r, _ := act(t, c, toolapi.Navigate, map[string]any{"url": site.URL + "/hostile/mouse-links"}); !r.Success {
				t.Fatalf("navigate back: %v %q", r.Error, r.Message)
			}
		}
	})

	t.Run("context menu", func(t *testing.T) {
		c, host, _ := webhookServe(t, "--url", site.URL+"/widgets/filemenu")
		s := getSnapshot(t, c)
		r, s := act(t, c, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "listitem", "report.pdf"), "button": "right"})
		if !r.Success || !strings.Contains(s.Text, "Menu for report.pdf") {
			t.Fatalf("right click: %v %q\n%s", r.Error, r.Message, s.Render())
		}
		host.notAsked(t)
		p, s := keysRefused(t, c, host, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "menuitem", "Delete")})
		if p.Concrete == nil || p.Concrete.Role != "menuitem" || p.Concrete.Name != "Delete" {
			t.Errorf("the person was asked about %+v", p.Concrete)
		}
		if !strings.Contains(s.Text, "report.pdf") || strings.Contains(s.Text, "Deleted") {
			t.Fatalf("the rejected Delete acted:\n%s", s.Text)
		}
	})
}

// TestMouseNewTabs (issue 31): a Control, Meta or middle click on a link
// opens its URL in a new tab, a navigation the URL policy judges as it
// judges the link: to a blocked origin it is refused and no tab stays; to
// the page's own site it opens and becomes current. Shift and click on a
// form's submit sends the form in a new window, which the write set judges
// as it judges the submit: the person is asked, and nothing is sent when
// they say no.
func TestMouseNewTabs(t *testing.T) {
	site := leakServeSite(t)
	start := site.URL + "/hostile/mouse-links"

	t.Run("blocked origin", func(t *testing.T) {
		c, _, _ := stdioClient(t, nil, "serve", "--profile", "none", "--url", start, "--blocked-origins", site.Other, "--caps", "tabs")
		for _, args := range []map[string]any{
			{"modifiers": []string{"Control"}},
			{"button": "middle", "modifiers": []string{}},
			{"modifiers": []string{"Shift"}},
			{"modifiers": []string{"Control", "Shift"}},
			{"modifiers": []string{"Cmd"}},
			{"button": "middle", "modifiers": []string{"Alt", "Shift"}},
			// Alt and click (a browser's "save link") starts nothing in
			// Chromium without its window: it must not reach the origin
			// either way.
			{"modifiers": []string{"Alt"}},
		} {
			s := getSnapshot(t, c)
			args["ref"] = browsertest.Ref(t, s, "link", "Partner offers")
			r, after := keysAct(t, c, toolapi.Click, args)
			opens := !slices.Equal(args["modifiers"].([]string), []string{"Alt"})
			if opens && (r.Success || r.Error == nil || *r.Error != string(toolapi.ActionFailed) || !strings.Contains(r.Message, "blocked by policy")) {
				t.Errorf("%v on a link to a blocked origin: success %v error %v %q", args, r.Success, r.Error, r.Message)
			}
			if after.Page.URL != start {
				t.Errorf("%v: the session is on %s, want %s", args, after.Page.URL, start)
			}
		}
		if site.saw("localhost") {
			t.Error("a request reached the blocked origin")
		}
		r, _ := act(t, c, toolapi.Tabs, map[string]any{"action": "list"})
		if strings.Contains(r.Message, "2 tabs") || strings.Contains(r.Message, "localhost") {
			t.Errorf("a tab of the blocked origin stayed: %q", r.Message)
		}
	})

	t.Run("own site", func(t *testing.T) {
		c, _, _ := stdioClient(t, nil, "serve", "--profile", "none", "--url", start, "--caps", "tabs")
		s := getSnapshot(t, c)
		r, after := act(t, c, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "link", "Help Center"), "modifiers": []string{"Control"}})
		if !r.Success || !strings.Contains(r.Message, "Opened a new tab") || !strings.Contains(after.Page.URL, "/help") {
			t.Fatalf("Control+click on a link: %v %q at %s", r.Error, r.Message, after.Page.URL)
		}
	})

	t.Run("form in a new window", func(t *testing.T) {
		c, host, _ := webhookServe(t, "--url", start)
		s := getSnapshot(t, c)
		for _, args := range []map[string]any{
			{"modifiers": []string{"Shift"}},
			{"modifiers": []string{"Control"}},
			{"button": "middle"},
		} {
			args["ref"] = browsertest.Ref(t, s, "button", "Search")
			p, after := keysRefused(t, c, host, toolapi.Click, args)
			if p.Site != originsOtherSite || p.Concrete == nil || p.Concrete.Gesture == "" {
				t.Errorf("%v: the person was asked about %q on %q (%+v)", args, p.Action, p.Site, p.Concrete)
			}
			if site.saw("q=shoes") {
				t.Fatalf("%v: the rejected submit sent the form", args)
			}
			s = after
		}
	})
}

// TestSelectTextByDrag (issue 31): browser_drag with text drags over it as
// a person selects text no key selects, within a ref or the page, across
// paragraphs too; the result says what the browser's selection holds, and
// the page's own selection handling sees it. Text that is not there is
// invalid_params. A drag over a gated control's text is judged as a click
// on it: the person is asked.
func TestSelectTextByDrag(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, host, _ := webhookServe(t, "--url", site.URL+"/widgets/quotes", "--caps", "drag")
	s := getSnapshot(t, c)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"text": "quick brown fox"}, "quick brown fox"},
		{map[string]any{"text": "riverbank.  Every good"}, "riverbank. Every good"},
		{map[string]any{"text": "uotes", "from_ref": "heading Quotes"}, "uotes"},
		{map[string]any{"text": "lazy dog"}, "lazy dog"},
	} {
		if tc.args["from_ref"] != nil {
			tc.args["from_ref"] = browsertest.Ref(t, s, "heading", "Quotes")
		}
		r, after := act(t, c, toolapi.Drag, tc.args)
		if !r.Success || !strings.Contains(strings.ReplaceAll(r.Message, `\n\n`, " "), `Selected "`+tc.want) {
			t.Fatalf("select %v: %v %q", tc.args, r.Error, r.Message)
		}
		if !strings.Contains(strings.Join(strings.Fields(after.Text), " "), "Selected: "+tc.want) {
			t.Fatalf("select %v: the page does not see the selection:\n%s", tc.args, after.Text)
		}
		s = after
	}
	r, s := act(t, c, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Quote selection")})
	if !r.Success || strings.Contains(s.Text, "Nothing quoted") || !strings.Contains(s.Text, "lazy dog") {
		t.Fatalf("quote: %v %q\n%s", r.Error, r.Message, s.Text)
	}
	// A middle click into a field would paste the selection there:
	// typing nobody judged.
	r, s = act(t, c, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Your note"), "button": "middle"})
	if r.Success || r.Error == nil || *r.Error != string(toolapi.InvalidParams) {
		t.Errorf("a middle click into a field: %v %q", r.Error, r.Message)
	}
	if v := originsValue(t, s, "textbox", "Your note"); v != "" {
		t.Errorf("the middle click pasted %q", v)
	}
	r, _ = act(t, c, toolapi.Drag, map[string]any{"text": "a slow green turtle"})
	if r.Success || r.Error == nil || *r.Error != string(toolapi.InvalidParams) {
		t.Errorf("text not on the page: %v %q", r.Error, r.Message)
	}
	host.notAsked(t)

	c, host, _ = webhookServe(t, "--url", site.URL+"/widgets/tasks", "--caps", "drag")
	getSnapshot(t, c)
	p, s := keysRefused(t, c, host, toolapi.Drag, map[string]any{"text": "all tasks"})
	if p.Concrete == nil || p.Concrete.Name != "Delete all tasks" || !strings.Contains(p.Action, `drag to select "all tasks" in button "Delete all tasks"`) {
		t.Errorf("the person was asked about %q (%+v)", p.Action, p.Concrete)
	}
	if !strings.Contains(s.Text, "No action yet") {
		t.Errorf("the rejected drag acted:\n%s", s.Text)
	}
}

// TestMouseAtAPoint (issue 31): under vision, the whole mouse works at a
// point as by ref: a double click there edits the task, a right click
// there opens the file's menu, and a gated button's double click at its
// point asks, the person reading the gesture.
func TestMouseAtAPoint(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	at := func(s *snapshot.Snapshot, role, name string, args map[string]any) map[string]any {
		b := find(t, s, role, name).BBox
		args["x"], args["y"] = b.X+b.Width/2, b.Y+b.Height/2
		return args
	}
	c, host, _ := webhookServe(t, "--url", site.URL+"/widgets/tasks", "--caps", "vision")
	s := getSnapshot(t, c)
	r, s := act(t, c, toolapi.Click, at(s, "button", "Water plants", map[string]any{"count": 2}))
	if !r.Success || !strings.Contains(s.Text, "Editing Water plants") || !strings.Contains(r.Message, "(double click)") {
		t.Fatalf("double click at a point: %v %q\n%s", r.Error, r.Message, s.Text)
	}
	p, s := keysRefused(t, c, host, toolapi.Click, at(s, "button", "Delete all tasks", map[string]any{"count": 2}))
	if p.Concrete == nil || p.Concrete.Gesture != "double click" || p.Concrete.Name != "Delete all tasks" {
		t.Errorf("the person was asked about %+v", p.Concrete)
	}
	if strings.Contains(s.Text, "Deleted all tasks") {
		t.Fatalf("the rejected double click acted:\n%s", s.Text)
	}
	r, s = act(t, c, toolapi.Navigate, map[string]any{"url": site.URL + "/widgets/filemenu"})
	if !r.Success {
		t.Fatal(r.Message)
	}
	r, s = act(t, c, toolapi.Click, at(s, "listitem", "notes.txt", map[string]any{"button": "right"}))
	if !r.Success || !strings.Contains(s.Text, "Menu for notes.txt") {
		t.Fatalf("right click at a point: %v %q\n%s", r.Error, r.Message, s.Text)
	}
	host.notAsked(t)
}
