package browser_test

import (
	"context"
	"errors"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// TestClickElementWith: each button, count and key held reaches the page
// as a person's mouse does: a double click is click, click, dblclick with
// detail 1, 2; the right button's press brings contextmenu; the middle's
// release auxclick; the keys held are on every event; and the buttons
// held on the press.
func TestClickElementWith(t *testing.T) {
	t.Parallel()
	tab := browsertest.Tab(t)
	navigate(t, tab, browsertest.Site(t)+"/widgets/tasks")
	tests := []struct {
		name string
		m    browser.Mouse
		want string
	}{
		{"plain", browser.Mouse{}, "mousedown 1 b0 bs1; mouseup 1 b0 bs0; click 1 b0 bs0"},
		{"double", browser.Mouse{Count: 2},
			"mousedown 1 b0 bs1; mouseup 1 b0 bs0; click 1 b0 bs0; mousedown 2 b0 bs1; mouseup 2 b0 bs0; click 2 b0 bs0; dblclick 2 b0 bs0"},
		{"triple", browser.Mouse{Count: 3},
			"mousedown 1 b0 bs1; mouseup 1 b0 bs0; click 1 b0 bs0; mousedown 2 b0 bs1; mouseup 2 b0 bs0; click 2 b0 bs0; dblclick 2 b0 bs0; mousedown 3 b0 bs1; mouseup 3 b0 bs0; click 3 b0 bs0"},
		{"right", browser.Mouse{Button: "right"}, "mousedown 1 b2 bs2; contextmenu 0 b2 bs2; mouseup 1 b2 bs0; auxclick 1 b2 bs0"},
		{"middle", browser.Mouse{Button: "middle"}, "mousedown 1 b1 bs4; mouseup 1 b1 bs0; auxclick 1 b1 bs0"},
		{"keys", browser.Mouse{Modifiers: []string{"Control", "Shift"}}, "mousedown 1 b0 bs1 ctrl+shift; mouseup 1 b0 bs0 ctrl+shift; click 1 b0 bs0 ctrl+shift"},
		{"alt meta", browser.Mouse{Modifiers: []string{"Alt", "Meta"}}, "mousedown 1 b0 bs1 alt+meta; mouseup 1 b0 bs0 alt+meta; click 1 b0 bs0 alt+meta"},
	}
	for _, tc := range tests {
		// One tab, one pointer: the cases run in turn.
		if err := tab.Evaluate(testCtx(t), `seen.length = 0`, nil); err != nil {
			t.Fatal(err)
		}
		n := nodeOf(t, tab, "button", "Probe")
		in, err := tab.Inspect(testCtx(t), n, true)
		if err != nil {
			t.Fatal(err)
		}
		if err := tab.ClickElementWith(testCtx(t), n, in.X, in.Y, tc.m, nil); err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var got string
		if err := tab.Evaluate(testCtx(t), `seen.join('; ')`, &got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s: the page heard\n  %s\nwant\n  %s", tc.name, got, tc.want)
		}
	}
	// What the browser cannot send is refused before anything is.
	for _, m := range []browser.Mouse{{Button: "back"}, {Count: 4}, {Modifiers: []string{"Hyper"}}} {
		n := nodeOf(t, tab, "button", "Probe")
		if err := tab.ClickElementWith(testCtx(t), n, 1, 1, m, nil); err == nil {
			t.Errorf("%+v: no error", m)
		}
	}
}

// TestDoubleClickSecondPressJudged: a double click whose first click
// changes what is under the pointer sends no second press there, and one
// whose again check objects stops before it.
func TestDoubleClickSecondPressJudged(t *testing.T) {
	t.Parallel()
	tab := browsertest.Tab(t)
	navigate(t, tab, browsertest.Site(t)+"/widgets/tasks")
	n := nodeOf(t, tab, "button", "Delete all tasks")
	in, err := tab.Inspect(testCtx(t), n, true)
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("changed")
	err = tab.ClickElementWith(testCtx(t), n, in.X, in.Y, browser.Mouse{Count: 2}, func(ctx context.Context) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("a double click whose again check objects: %v", err)
	}
	var log string
	if err := tab.Evaluate(testCtx(t), `document.getElementById('log').textContent`, &log); err != nil {
		t.Fatal(err)
	}
	if log != "No action yet" {
		t.Errorf("the page did %q", log)
	}
	// The first click puts a cover where the button is: the second press
	// does not go.
	if err := tab.Evaluate(testCtx(t), `document.getElementById('purge').addEventListener('click', e => {
		const b = e.target.getBoundingClientRect(), c = document.createElement('div');
		c.id = 'cover'; c.textContent = 'Cover';
		c.style.cssText = 'position:fixed;background:#fff;left:' + b.left + 'px;top:' + b.top + 'px;width:' + b.width + 'px;height:' + b.height + 'px';
		c.addEventListener('dblclick', () => { document.getElementById('log').textContent = 'Cover double-clicked'; });
		document.body.append(c);
	}, {once: true}); true`, nil); err != nil {
		t.Fatal(err)
	}
	err = tab.ClickElementWith(testCtx(t), n, in.X, in.Y, browser.Mouse{Count: 2}, nil)
	var d *browser.DeliveryError
	if !errors.As(err, &d) || d.Pressed != 1 || d.Input != "second click" {
		t.Errorf("a double click whose first click covered the button: %v (%+v)", err, d)
	}
	if err := tab.Evaluate(testCtx(t), `document.getElementById('log').textContent`, &log); err != nil {
		t.Fatal(err)
	}
	if log != "No action yet" {
		t.Errorf("the page did %q", log)
	}
}

// TestClickAtWith: the whole mouse at a point: a double click at the
// probe's point is heard as one.
func TestClickAtWith(t *testing.T) {
	t.Parallel()
	tab := browsertest.Tab(t)
	navigate(t, tab, browsertest.Site(t)+"/widgets/tasks")
	n := nodeOf(t, tab, "button", "Probe")
	in, err := tab.Inspect(testCtx(t), n, true)
	if err != nil {
		t.Fatal(err)
	}
	at, err := tab.ElementAt(testCtx(t), in.X, in.Y)
	if err != nil {
		t.Fatal(err)
	}
	if err := tab.ClickAtWith(testCtx(t), at, browser.Mouse{Count: 2}, nil); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := tab.Evaluate(testCtx(t), `seen.filter(s => !s.startsWith('mouse')).join('; ')`, &got); err != nil {
		t.Fatal(err)
	}
	if want := "click 1 b0 bs0; click 2 b0 bs0; dblclick 2 b0 bs0"; got != want {
		t.Errorf("the page heard %q, want %q", got, want)
	}
}

// TestRightClickReleaseGuarded: a page whose contextmenu puts an item
// that acts on mouseup right under the pointer gets the right click
// (delivered: contextmenu reached the element) but the release that lands
// on the item is stopped there, as a click's miss is: the item does
// nothing nobody judged.
func TestRightClickReleaseGuarded(t *testing.T) {
	t.Parallel()
	tab := browsertest.Tab(t)
	navigate(t, tab, browsertest.Site(t)+"/widgets/tasks")
	if err := tab.Evaluate(testCtx(t), `document.getElementById('probe').addEventListener('contextmenu', e => {
		const m = document.createElement('div');
		m.textContent = 'Delete';
		m.style.cssText = 'position:fixed;background:#fff;width:80px;height:30px;left:' + (e.clientX - 10) + 'px;top:' + (e.clientY - 10) + 'px';
		m.addEventListener('mouseup', () => { document.getElementById('log').textContent = 'Deleted by the release'; });
		m.addEventListener('auxclick', () => { document.getElementById('log').textContent = 'Deleted by the auxclick'; });
		document.body.append(m);
	}); true`, nil); err != nil {
		t.Fatal(err)
	}
	n := nodeOf(t, tab, "button", "Probe")
	in, err := tab.Inspect(testCtx(t), n, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := tab.ClickElementWith(testCtx(t), n, in.X, in.Y, browser.Mouse{Button: "right"}, nil); err != nil {
		t.Errorf("right click: %v", err)
	}
	var log string
	if err := tab.Evaluate(testCtx(t), `document.getElementById('log').textContent`, &log); err != nil {
		t.Fatal(err)
	}
	if log != "No action yet" {
		t.Errorf("the menu put under the pointer acted: %q", log)
	}
}
