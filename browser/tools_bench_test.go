package browser_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/tools"
	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/domsnapshot"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// The tool benchmarks live here, beside the raw protocol they are measured
// against: only this package's tests may speak CDP directly.

// rawSnapshot is the floor of a snapshot: the raw accessibility-tree call
// and a raw screenshot of the size and format the tool sends by default,
// one after the other. It returns the image.
func rawSnapshot(b *testing.B, tab *browser.Context) []byte {
	b.Helper()
	ax := cdp.Command[accessibility.GetFullAXTreeParams, browser.RawForTest]{Method: accessibility.CommandGetFullAXTree}
	if _, err := browser.CallForTest(b.Context(), tab, ax, accessibility.GetFullAXTreeParams{}); err != nil {
		b.Fatal(err)
	}
	const w, h = 1280, 720 // browser.Options' default viewport, at the top of the page
	img, err := browser.CallForTest(b.Context(), tab, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format: page.CaptureScreenshotFormatPng,
		Clip: &page.Viewport{Width: w, Height: h,
			Scale: browser.ScreenshotScale(w, h, browser.DefaultImageTokens)},
		CaptureBeyondViewport: new(false),
	})
	if err != nil {
		b.Fatal(err)
	}
	return img.Data
}

type rawMap = map[string]any

var (
	rawMouse    = cdp.Command[rawMap, json.RawMessage]{Method: "Input.dispatchMouseEvent"}
	rawEvaluate = cdp.Command[rawMap, json.RawMessage]{Method: "Runtime.evaluate"}
	rawInsert   = cdp.Command[rawMap, json.RawMessage]{Method: "Input.insertText"}
	rawKey      = cdp.Command[rawMap, json.RawMessage]{Method: "Input.dispatchKeyEvent"}
)

func raw(b *testing.B, tab *browser.Context, cmd cdp.Command[rawMap, json.RawMessage], params rawMap) {
	b.Helper()
	if _, err := browser.CallForTest(b.Context(), tab, cmd, params); err != nil {
		b.Fatal(err)
	}
}

// rawClick is the floor of a click: the three mouse events a person's click
// makes.
func rawClick(b *testing.B, tab *browser.Context, x, y float64) {
	for _, typ := range []string{"mouseMoved", "mousePressed", "mouseReleased"} {
		p := rawMap{"type": typ, "x": x, "y": y, "button": "left", "clickCount": 1}
		if typ == "mouseMoved" {
			p["button"] = "none"
		}
		raw(b, tab, rawMouse, p)
	}
}

func callTool(b *testing.B, s *tools.Session, name string, args any) tools.Output {
	b.Helper()
	data, _ := json.Marshal(args)
	out, err := s.Call(b.Context(), name, data)
	if err != nil {
		b.Fatal(err)
	}
	if r, ok := out.Value.(toolapi.ActionResult); ok && !r.Success {
		b.Fatalf("%s: %s: %s", name, *r.Error, r.Message)
	}
	return out
}

func lastSnapshot(out tools.Output) *snapshot.Snapshot {
	switch v := out.Value.(type) {
	case *snapshot.Snapshot:
		return v
	case toolapi.ActionResult:
		return v.Snapshot
	}
	return nil
}

// ratioReport accumulates the tool's time and the floor's time over the
// same iterations.
type ratioReport struct{ tool, floor time.Duration }

func (r *ratioReport) report(b *testing.B) {
	n := float64(b.N)
	b.ReportMetric(float64(r.tool.Microseconds())/n/1000, "tool-ms")
	b.ReportMetric(float64(r.floor.Microseconds())/n/1000, "floor-ms")
	b.ReportMetric(float64(r.tool)/float64(r.floor), "ratio")
}

// BenchmarkGetSnapshot measures get_snapshot on every demo page beside the
// floor in the same loop, with the snapshot's sizes: element-JSON tokens and
// page-text tokens (estimated as bytes/4) and image bytes.
func BenchmarkGetSnapshot(b *testing.B) {
	site := browsertest.Site(b)
	tab := browsertest.Tab(b)
	s := tools.NewSession(tab, tools.Config{})
	for _, path := range []string{"/account", "/retention", "/survey", "/finish", "/cancelled",
		"/variants/form", "/variants/widgets", "/variants/modal", "/variants/long", "/variants/iframe",
		"/variants/shadow", "/variants/large"} {
		b.Run(path[1:], func(b *testing.B) {
			if err := tab.Navigate(b.Context(), site+path); err != nil {
				b.Fatal(err)
			}
			var r ratioReport
			var snap *snapshot.Snapshot
			for b.Loop() {
				start := time.Now()
				rawSnapshot(b, tab)
				mid := time.Now()
				snap = lastSnapshot(callTool(b, s, "get_snapshot", rawMap{}))
				r.floor += mid.Sub(start)
				r.tool += time.Since(mid)
			}
			r.report(b)
			elems, _ := json.Marshal(snap.Elements)
			b.ReportMetric(float64(len(elems))/4, "elem-tokens")
			b.ReportMetric(float64(len(snap.Text))/4, "text-tokens")
			if snap.Screenshot != nil {
				b.ReportMetric(float64(len(snap.Screenshot.Data)), "img-bytes")
			}
			b.ReportMetric(float64(len(snap.Elements)), "elements")
		})
	}
}

// BenchmarkActions measures each action from the call to its fresh snapshot
// beside the floor: the raw input events plus the raw snapshot calls on the
// same page in the same loop. The post-action wait (what the tool waits
// after the input for the page to settle) is reported on its own line as
// wait-ms: the part of the tool's time the floor never spends.
func BenchmarkActions(b *testing.B) {
	site := browsertest.Site(b)
	tab := browsertest.Tab(b)
	for _, bc := range []struct {
		name, path string
		// role and elem pick the element acted on, if any, in the last
		// snapshot.
		role, elem string
		// tool runs the action on e through the session; floor does the
		// same input with raw protocol calls.
		tool  func(b *testing.B, s *tools.Session, e snapshot.Element) tools.Output
		floor func(b *testing.B, e snapshot.Element)
	}{
		{"click", "/account", "button", "Change plan",
			func(b *testing.B, s *tools.Session, e snapshot.Element) tools.Output {
				return callTool(b, s, "browser_click", rawMap{"ref": e.Ref})
			},
			func(b *testing.B, e snapshot.Element) {
				rawClick(b, tab, e.BBox.X+e.BBox.Width/2, e.BBox.Y+e.BBox.Height/2)
			}},
		{"fill", "/survey", "textbox", "Anything else you'd like to tell us?",
			func(b *testing.B, s *tools.Session, e snapshot.Element) tools.Output {
				return callTool(b, s, "browser_fill", rawMap{"ref": e.Ref, "value": "Too many price rises."})
			},
			func(b *testing.B, e snapshot.Element) {
				raw(b, tab, rawEvaluate, rawMap{"expression": `document.querySelector('#comments').focus(); document.querySelector('#comments').select()`})
				raw(b, tab, rawInsert, rawMap{"text": "Too many price rises."})
			}},
		{"select", "/survey", "combobox", "How long were you a member?",
			func(b *testing.B, s *tools.Session, e snapshot.Element) tools.Output {
				return callTool(b, s, "browser_select", rawMap{"ref": e.Ref, "value": "1 to 3 years"})
			},
			func(b *testing.B, e snapshot.Element) {
				raw(b, tab, rawEvaluate, rawMap{"expression": `(() => { const s = document.querySelector('#tenure'); s.value = '1to3'; s.dispatchEvent(new Event('input', {bubbles: true})); s.dispatchEvent(new Event('change', {bubbles: true})); })()`})
			}},
		{"select several", "/variants/selects", "listbox", "Favourite genres",
			func(b *testing.B, s *tools.Session, e snapshot.Element) tools.Output {
				return callTool(b, s, "browser_select", rawMap{"ref": e.Ref, "value": []string{"drama", "horror"}})
			},
			func(b *testing.B, e snapshot.Element) {
				raw(b, tab, rawEvaluate, rawMap{"expression": `(() => { const s = document.querySelector('#genres'); for (const o of s.options) o.selected = o.value === 'drama' || o.value === 'horror'; s.dispatchEvent(new Event('input', {bubbles: true})); s.dispatchEvent(new Event('change', {bubbles: true})); })()`})
			}},
		{"combobox", "/variants/selects", "combobox", "Streaming plan",
			func(b *testing.B, s *tools.Session, e snapshot.Element) tools.Output {
				return callTool(b, s, "browser_select", rawMap{"ref": e.Ref, "value": "Standard"})
			},
			func(b *testing.B, e snapshot.Element) {
				// Open it, find the option, click it: what a person does.
				rawClick(b, tab, e.BBox.X+e.BBox.Width/2, e.BBox.Y+e.BBox.Height/2)
				res, err := browser.CallForTest(b.Context(), tab, rawEvaluate, rawMap{"returnByValue": true,
					"expression": `(() => { const r = [...document.querySelectorAll('#plan-list [role=option]')].find(o => o.textContent === 'Standard').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`})
				var at struct {
					Result struct{ Value [2]float64 } `json:"result"`
				}
				if err != nil || json.Unmarshal(res, &at) != nil {
					b.Fatalf("find the option: %v %s", err, res)
				}
				rawClick(b, tab, at.Result.Value[0], at.Result.Value[1])
			}},
		{"scroll", "/variants/long", "", "",
			func(b *testing.B, s *tools.Session, e snapshot.Element) tools.Output {
				return callTool(b, s, "browser_scroll", rawMap{"direction": "down", "amount": 200})
			},
			func(b *testing.B, e snapshot.Element) {
				raw(b, tab, rawMouse, rawMap{"type": "mouseWheel", "x": 640, "y": 300, "deltaX": 0, "deltaY": 200})
			}},
		{"press_key", "/variants/keys", "textbox", "Nickname",
			func(b *testing.B, s *tools.Session, e snapshot.Element) tools.Output {
				return callTool(b, s, "browser_press_key", rawMap{"key": "End", "ref": e.Ref})
			},
			func(b *testing.B, e snapshot.Element) {
				raw(b, tab, rawEvaluate, rawMap{"expression": `document.querySelector('#nickname').focus()`})
				for _, typ := range []string{"rawKeyDown", "keyUp"} {
					raw(b, tab, rawKey, rawMap{"type": typ, "key": "End", "code": "End", "windowsVirtualKeyCode": 35})
				}
			}},
		{"hover", "/variants/hover", "button", "Account menu",
			func(b *testing.B, s *tools.Session, e snapshot.Element) tools.Output {
				return callTool(b, s, "browser_hover", rawMap{"ref": e.Ref})
			},
			func(b *testing.B, e snapshot.Element) {
				raw(b, tab, rawMouse, rawMap{"type": "mouseMoved", "x": e.BBox.X + e.BBox.Width/2, "y": e.BBox.Y + e.BBox.Height/2, "button": "none"})
			}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var waited time.Duration
			s := tools.NewSession(tab, tools.Config{Caps: []string{toolapi.CapAll}})
			if err := tab.Navigate(b.Context(), site+bc.path); err != nil {
				b.Fatal(err)
			}
			snap := lastSnapshot(callTool(b, s, "get_snapshot", rawMap{"viewport_only": false}))
			var r ratioReport
			for b.Loop() {
				if bc.name == "scroll" {
					// Stay away from the bottom so every wheel turn scrolls.
					b.StopTimer()
					callTool(b, s, "browser_scroll", rawMap{"direction": "top"})
					b.StartTimer()
				}
				var e snapshot.Element
				if bc.role != "" {
					var ok bool
					if e, ok = snap.Find(bc.role, bc.elem); !ok {
						b.Fatalf("no %s %q on %s", bc.role, bc.elem, snap.Page.URL)
					}
				}
				start := time.Now()
				bc.floor(b, e)
				rawSnapshot(b, tab)
				mid := time.Now()
				out := bc.tool(b, s, e)
				r.floor += mid.Sub(start)
				r.tool += time.Since(mid)
				snap = lastSnapshot(out)
				waited += measuredWait(b, tab)
			}
			r.report(b)
			b.ReportMetric(float64(waited.Microseconds())/float64(b.N)/1000, "wait-ms")
		})
	}
}

// measuredWait is what the post-action wait adds on the page as it is now,
// with nothing happening: a settle that captures, less a plain capture.
func measuredWait(b *testing.B, tab *browser.Context) time.Duration {
	b.Helper()
	b.StopTimer()
	defer b.StartTimer()
	ctx, cancel := context.WithTimeout(b.Context(), 5*time.Second)
	defer cancel()
	opts := browser.CaptureOptions{Screenshot: true}
	start := time.Now()
	out, err := tab.Settle(ctx, func(context.Context) error { return nil },
		browser.Wait{Quiet: 50 * time.Millisecond, Limit: 2 * time.Second, Capture: &opts})
	if err != nil {
		b.Fatal(err)
	}
	settled := time.Since(start)
	if out.Capture == nil {
		b.Fatal("a quiet page's capture was not kept")
	}
	start = time.Now()
	if _, err := tab.Capture(ctx, opts); err != nil {
		b.Fatal(err)
	}
	return settled - time.Since(start)
}

// frameSession attaches a chromedp context of its own to the tab's one
// cross-site iframe, detached when the benchmark ends.
func frameSession(b *testing.B, tab *browser.Context) context.Context {
	b.Helper()
	c, cancel := browser.TabContextForTest(b.Context(), tab)
	b.Cleanup(cancel)
	infos, err := chromedp.Targets(c)
	if err != nil {
		b.Fatal(err)
	}
	for _, info := range infos {
		if info.Type == "iframe" {
			fc, fcancel := chromedp.NewContext(c, chromedp.WithTargetID(info.TargetID), chromedp.WithDetachOnCancel())
			b.Cleanup(fcancel)
			if err := chromedp.Do(fc); err != nil {
				b.Fatal(err)
			}
			return fc
		}
	}
	b.Fatal("no cross-site iframe")
	return nil
}

// rawFrame is the floor of an out-of-process frame's part of a capture:
// its raw accessibility tree and DOM snapshot, one after the other.
func rawFrame(b *testing.B, frame context.Context) {
	b.Helper()
	ax := cdp.Command[accessibility.GetFullAXTreeParams, browser.RawForTest]{Method: accessibility.CommandGetFullAXTree}
	if _, err := chromedp.Call(frame, ax, accessibility.GetFullAXTreeParams{}); err != nil {
		b.Fatal(err)
	}
	snap := cdp.Command[domsnapshot.CaptureSnapshotParams, browser.RawForTest]{Method: domsnapshot.CommandCaptureSnapshot}
	if _, err := chromedp.Call(frame, snap, domsnapshot.CaptureSnapshotParams{ComputedStyles: capture.Styles()}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkClickToNewPage measures a click on a link to a new page, from the
// call to the result's snapshot, beside the floor: the raw click, a wait for
// the new document's DOMContentLoaded, and the raw snapshot calls. One new
// page holds an image that takes 6 s, the other none: the tool waits for
// neither the image nor the load event, only for the document to be
// interactive and quiet.
func BenchmarkClickToNewPage(b *testing.B) {
	site := browsertest.Site(b)
	tab := browsertest.Tab(b)
	s := tools.NewSession(tab, tools.Config{})
	for _, bc := range []struct{ name, link string }{
		{"slow-subresource", "Slow page"},
		{"plain", "Plain page"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var r ratioReport
			for b.Loop() {
				b.StopTimer()
				if err := tab.Navigate(b.Context(), site+"/variants/links"); err != nil {
					b.Fatal(err)
				}
				link, ok := lastSnapshot(callTool(b, s, "get_snapshot", rawMap{})).Find("link", bc.link)
				if !ok {
					b.Fatalf("no link %q", bc.link)
				}
				b.StartTimer()
				start := time.Now()
				rawClickToNewPage(b, tab, link.BBox.X+link.BBox.Width/2, link.BBox.Y+link.BBox.Height/2)
				rawSnapshot(b, tab)
				r.floor += time.Since(start)

				b.StopTimer()
				if err := tab.Navigate(b.Context(), site+"/variants/links"); err != nil {
					b.Fatal(err)
				}
				link, _ = lastSnapshot(callTool(b, s, "get_snapshot", rawMap{})).Find("link", bc.link)
				b.StartTimer()
				start = time.Now()
				out := callTool(b, s, "browser_click", rawMap{"ref": link.Ref})
				r.tool += time.Since(start)
				if snap := lastSnapshot(out); snap.Page.URL == site+"/variants/links" {
					b.Fatalf("the click stayed on %s", snap.Page.URL)
				}
			}
			r.report(b)
		})
	}
}

// rawClickToNewPage is the floor of a click that loads a new page: the raw
// click, then the new document's DOMContentLoaded.
func rawClickToNewPage(b *testing.B, tab *browser.Context, x, y float64) {
	b.Helper()
	c, cancel := browser.TabContextForTest(b.Context(), tab)
	defer cancel()
	ready := chromedp.Events(c, page.DomContentEventFired)
	rawClick(b, tab, x, y)
	for _, err := range ready {
		if err != nil {
			b.Fatal(err)
		}
		break
	}
}
