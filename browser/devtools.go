package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/chaperone-mcp/chaperone/devtools"
)

// The developer's view (docs/architecture.md, "Packages"): the console
// messages, uncaught exceptions and network requests of a tab's pages and
// their frames go to a devtools.Feed, as plain values, when one watches.
// chromedp enables Runtime, Log and Network on every target it attaches to,
// so nothing is enabled here: the events already arrive, and only a
// session that asked for the developer's view (--caps devtools) keeps them.

// devtoolsFeed is what a Context feeds; nil feeds nothing.
type devtoolsFeed struct{ feed devtools.Feed }

// Watch feeds f every console message, uncaught exception, browser log
// entry and network request of the tab's pages and of their out-of-process
// frames from now on (nil stops).
func (t *Context) Watch(f devtools.Feed) {
	if f == nil {
		t.watch.Store(nil)
		return
	}
	t.watch.Store(&devtoolsFeed{feed: f})
}

// PageID names the current page as the developer's view keys it.
func (t *Context) PageID() string {
	p, _ := t.page()
	return string(p.id)
}

// devtools hands one event of the target from (a page, or a frame of page)
// to the feed, if one watches. It runs in chromedp's event loop and must
// not block or call the browser.
func (t *Context) devtools(page, from target.ID, ev any) {
	w := t.watch.Load()
	if w == nil {
		return
	}
	f, pg := w.feed, string(page)
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		m := devtools.Message{Page: pg, Kind: devtools.KindConsole, Level: devtools.Level(string(ev.Type)),
			Text: argsText(ev.Args), Time: msTime(float64(ev.Timestamp))}
		if ev.StackTrace != nil && len(ev.StackTrace.CallFrames) > 0 {
			top := ev.StackTrace.CallFrames[0]
			m.URL, m.Line = top.URL, top.LineNumber+1
		}
		f.Message(m)
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		if d == nil {
			return
		}
		m := devtools.Message{Page: pg, Kind: devtools.KindException, Level: "error",
			Text: exceptionText(d), URL: d.URL, Line: d.LineNumber + 1, Time: msTime(float64(ev.Timestamp))}
		f.Message(m)
	case *cdplog.EventEntryAdded:
		e := ev.Entry
		if e == nil {
			return
		}
		m := devtools.Message{Page: pg, Kind: devtools.KindBrowser, Level: devtools.Level(string(e.Level)),
			Text: e.Text, URL: e.URL, Line: e.LineNumber, Time: msTime(float64(e.Timestamp))}
		f.Message(m)
	case *network.EventRequestWillBeSent:
		if ev.Request == nil {
			return
		}
		r := devtools.Request{Key: devtools.Key{Target: string(from), ID: string(ev.RequestID)}, Page: pg,
			Method: ev.Request.Method, URL: ev.Request.URL + ev.Request.URLFragment, Type: strings.ToLower(string(ev.Type)),
			Headers: headers(ev.Request.Headers), HasPostData: ev.Request.HasPostData, Mono: float64(ev.Timestamp)}
		r.Start = time.Now()
		if ev.WallTime != 0 {
			r.Start = time.UnixMilli(int64(float64(ev.WallTime) * 1000))
		}
		for _, e := range ev.Request.PostDataEntries {
			r.PostData = append(r.PostData, e.Bytes...)
		}
		f.RequestWillBeSent(r)
	case *network.EventResponseReceived:
		if ev.Response == nil {
			return
		}
		f.ResponseReceived(devtools.Key{Target: string(from), ID: string(ev.RequestID)}, devtools.Response{
			Status: ev.Response.Status, StatusText: ev.Response.StatusText, MIMEType: ev.Response.MimeType,
			Headers: headers(ev.Response.Headers)})
	case *network.EventLoadingFinished:
		f.LoadingFinished(devtools.Key{Target: string(from), ID: string(ev.RequestID)}, int64(ev.EncodedDataLength), float64(ev.Timestamp))
	case *network.EventLoadingFailed:
		why := ev.ErrorText
		if ev.BlockedReason != "" {
			why += " (blocked: " + string(ev.BlockedReason) + ")"
		}
		if ev.Canceled {
			why += " (cancelled)"
		}
		f.LoadingFailed(devtools.Key{Target: string(from), ID: string(ev.RequestID)}, why, float64(ev.Timestamp))
	}
}

// msTime is a time in milliseconds since the epoch.
func msTime(ms float64) time.Time {
	if ms == 0 {
		return time.Now()
	}
	return time.UnixMilli(int64(ms))
}

// argsText is a console call's arguments as one line of text, each as the
// console shows it: a string as it is, other values as JSON or as the
// browser describes them.
func argsText(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		parts = append(parts, objectText(a))
	}
	return strings.Join(parts, " ")
}

// objectText is one value as the console shows it.
func objectText(a *runtime.RemoteObject) string {
	if a == nil {
		return ""
	}
	if len(a.Value) > 0 {
		var s string
		if a.Type == runtime.RemoteObjectTypeString && json.Unmarshal(a.Value, &s) == nil {
			return s
		}
		return string(a.Value)
	}
	if a.UnserializableValue != "" {
		return string(a.UnserializableValue)
	}
	if a.Description != "" {
		return a.Description
	}
	return string(a.Type)
}

// exceptionText is an uncaught exception's message and stack.
func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception == nil {
		return d.Text
	}
	if d.Exception.Description != "" {
		return d.Text + " " + d.Exception.Description
	}
	return d.Text + " " + objectText(d.Exception)
}

// headers turns the browser's headers into strings.
func headers(h network.Headers) map[string]string {
	if len(h) == 0 {
		return nil
	}
	out := make(map[string]string, len(h))
	for k, v := range h {
		out[k] = fmt.Sprint(v)
	}
	return out
}

// ErrNoBody is returned by Bodies for a request whose target is gone.
var ErrNoBody = errors.New("the page or frame that made the request is gone")

// Bodies fetches what the browser still holds of the bodies of the request
// k (a devtools.Key): the request's (Network.getRequestPostData) when it has
// one, and the response's (Network.getResponseBody). Only ever called when
// the agent asks for one request's body.
func (t *Context) Bodies(ctx context.Context, k devtools.Key, request bool) (devtools.Bodies, error) {
	base := t.targetContext(target.ID(k.Target))
	if base == nil {
		return devtools.Bodies{}, ErrNoBody
	}
	var b devtools.Bodies
	var notes []string
	id := network.RequestID(k.ID)
	if request {
		c, cancel := within(ctx, base, defaultCallTimeout)
		res, err := chromedp.Call(c, network.GetRequestPostData, network.GetRequestPostDataParams{RequestID: id})
		cancel()
		if err != nil {
			notes = append(notes, "The request body is no longer held by the browser.")
		} else {
			b.Request = res.PostData
		}
	}
	c, cancel := within(ctx, base, defaultCallTimeout)
	res, err := chromedp.Call(c, network.GetResponseBody, network.GetResponseBodyParams{RequestID: id})
	cancel()
	if err != nil {
		notes = append(notes, "No response body: the request has none, has not finished, or the browser no longer holds it.")
	} else {
		b.Response, b.ResponseBinary = res.Body, res.Base64encoded
	}
	b.Note = strings.Join(notes, " ")
	return b, nil
}

// targetContext is the chromedp context of a page of the tab or of one of
// its out-of-process frames, or nil.
func (t *Context) targetContext(id target.ID) context.Context {
	t.mu.Lock()
	pages := append([]*tabPage(nil), t.pages.list...)
	t.mu.Unlock()
	for _, p := range pages {
		if p.ctx == nil {
			continue
		}
		if p.id == id {
			return p.live
		}
		if f := p.frameSet().byTargetOf(id); f != nil {
			return f.ctx
		}
	}
	return nil
}
