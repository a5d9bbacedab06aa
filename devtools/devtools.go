// Package devtools is the developer's view of a session's pages: their
// console messages, uncaught exceptions and network requests, kept in
// bounded rings as the browser reports them, and read back by the tools
// browser_console and browser_network (docs/architecture.md, "Packages").
//
// It is pure code: the browser core feeds it plain values (Feed) and knows
// nothing of how they are kept or shown; it knows nothing of CDP. Every
// string a page controls is bounded when it comes in, and masked by the
// session's redactor (Query.Mask) and cut again when it goes out, so that a
// page that floods its console or sends a huge body costs a bounded amount
// of memory and of the agent's tokens.
package devtools

import (
	"sync"
	"time"
	"unicode/utf8"
)

// Limits bound what a Log keeps. The zero value of a field takes its default.
type Limits struct {
	// Messages and Requests are how many of each the rings hold (500
	// each): older ones are dropped, and counted.
	Messages, Requests int
	// Text bounds a message's text and an exception's stack as kept
	// (8,192 bytes); what is shown is cut shorter (Query.Text).
	Text int
	// PostData bounds a request body kept from the request itself
	// (16,384 bytes); a longer one is not kept, and is fetched again when
	// asked for.
	PostData int
	// Headers bounds the headers kept per request and response (32, each
	// value cut to 500 bytes). With the defaults a log holds at most about
	// 4 MB of messages and 20 MB of requests, whatever the page sends.
	Headers int
}

func (l Limits) withDefaults() Limits {
	if l.Messages <= 0 {
		l.Messages = 500
	}
	if l.Requests <= 0 {
		l.Requests = 500
	}
	if l.Text <= 0 {
		l.Text = 8192
	}
	if l.PostData <= 0 {
		l.PostData = 16384
	}
	if l.Headers <= 0 {
		l.Headers = 32
	}
	return l
}

// Feed is what the browser core calls as a page's events arrive: events in.
// Every method is called in the order of the page's events and must not
// block; *Log implements it.
type Feed interface {
	// Message is a console call, an uncaught exception or a browser log
	// entry.
	Message(Message)
	// RequestWillBeSent starts a request (or a redirect's next hop, with
	// the same Key).
	RequestWillBeSent(Request)
	// ResponseReceived gives a request its response.
	ResponseReceived(Key, Response)
	// LoadingFinished ends a request with the bytes received, at the
	// browser's monotonic time (seconds, the clock of Request.Mono).
	LoadingFinished(k Key, size int64, at float64)
	// LoadingFailed ends a request that failed, saying why.
	LoadingFailed(k Key, reason string, at float64)
}

// Key names a request as the browser does: the target that reported it (a
// page or an out-of-process frame) and the browser's request id there.
type Key struct {
	Target, ID string
}

// Message kinds (Message.Kind).
const (
	KindConsole   = "console"   // console.log and the like
	KindException = "exception" // an uncaught exception or rejection
	KindBrowser   = "browser"   // the browser's own log (a failed load, a CSP violation)
)

// Message is one console message, uncaught exception or browser log entry.
type Message struct {
	// Seq orders the log's messages; set by the Log.
	Seq uint64 `json:"-"`
	// Page is the page (tab) it came from, whatever frame logged it.
	Page string `json:"-"`
	// Kind is KindConsole, KindException or KindBrowser.
	Kind string `json:"kind"`
	// Level is debug, info, warning or error (Level).
	Level string `json:"level"`
	// Text is what was logged; for an exception its message and stack.
	Text string `json:"text"`
	// URL and Line are where it was logged (Line 1-based, 0 unknown).
	URL  string `json:"url,omitempty"`
	Line int64  `json:"line,omitempty"`
	// Time is when it was logged.
	Time time.Time `json:"time"`
}

// Request is one network request as it stands.
type Request struct {
	// Seq orders the requests; Updated is the Log's count when the
	// request last changed (since-last-call reads it). Both set by the Log.
	Seq, Updated uint64 `json:"-"`
	// Key names it in the browser; Page is the page it belongs to.
	Key  Key    `json:"-"`
	Page string `json:"-"`
	// Method, URL and Type (document, fetch, xhr, script, image, …).
	Method string `json:"method"`
	URL    string `json:"url"`
	Type   string `json:"type,omitempty"`
	// Headers are the request's headers as sent (bounded).
	Headers map[string]string `json:"-"`
	// HasPostData says the request has a body; PostData is what of it the
	// browser reported inline (bounded), which may be nil even then.
	HasPostData bool   `json:"has_body,omitempty"`
	PostData    []byte `json:"-"`
	// Start is when it was sent, Mono the same on the browser's monotonic
	// clock (seconds); End when it finished or failed (zero while it
	// runs).
	Start time.Time `json:"-"`
	Mono  float64   `json:"-"`
	End   time.Time `json:"-"`
	// Response is its response, once one came.
	Response *Response `json:"-"`
	// Size is the bytes received, once it finished.
	Size int64 `json:"size,omitempty"`
	// Failure is why it failed ("net::ERR_CONNECTION_REFUSED"), if it did.
	Failure string `json:"failure,omitempty"`
	// Redirects counts the hops that led to URL.
	Redirects int `json:"redirects,omitempty"`
}

// Response is a request's response.
type Response struct {
	Status     int64             `json:"status"`
	StatusText string            `json:"status_text,omitempty"`
	MIMEType   string            `json:"mime_type,omitempty"`
	Headers    map[string]string `json:"-"`
}

// Log keeps one session's messages and requests, from every page of it,
// in bounded rings. Its methods are safe for concurrent use.
type Log struct {
	limits Limits

	mu       sync.Mutex
	seq      uint64
	messages ring[Message]
	requests ring[*Request]
	// byKey finds a request still in the ring by its key.
	byKey map[Key]*Request
	// readMessages and readRequests are, per page, the Log's count when
	// the agent last read it: what came after is new.
	readMessages, readRequests map[string]uint64
}

// New returns an empty log bounded by limits.
func New(limits Limits) *Log {
	limits = limits.withDefaults()
	return &Log{
		limits:       limits,
		messages:     newRing[Message](limits.Messages),
		requests:     newRing[*Request](limits.Requests),
		byKey:        map[Key]*Request{},
		readMessages: map[string]uint64{},
		readRequests: map[string]uint64{},
	}
}

// Message keeps m, its text and URL cut to the log's bounds.
func (l *Log) Message(m Message) {
	m.Text = cut(m.Text, l.limits.Text)
	m.URL = cut(m.URL, urlKept)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	m.Seq = l.seq
	l.messages.push(m)
}

// RequestWillBeSent keeps r; a request already known by its key is a
// redirect, whose next hop replaces it.
func (l *Log) RequestWillBeSent(r Request) {
	r.URL = cut(r.URL, urlKept)
	r.Headers = l.headers(r.Headers)
	if len(r.PostData) > l.limits.PostData {
		// Fetched again whole when asked for (Session: body).
		r.PostData = nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	if old := l.byKey[r.Key]; old != nil {
		old.URL, old.Method, old.Headers = r.URL, r.Method, r.Headers
		old.HasPostData, old.PostData = r.HasPostData, r.PostData
		old.Response, old.Redirects = nil, old.Redirects+1
		old.Start, old.Mono = r.Start, r.Mono
		old.Updated = l.seq
		return
	}
	r.Seq, r.Updated = l.seq, l.seq
	p := &r
	if gone, ok := l.requests.push(p); ok {
		delete(l.byKey, gone.Key)
	}
	l.byKey[r.Key] = p
}

// ResponseReceived gives the request of k its response.
func (l *Log) ResponseReceived(k Key, resp Response) {
	resp.Headers = l.headers(resp.Headers)
	resp.StatusText = cut(resp.StatusText, 100)
	resp.MIMEType = cut(resp.MIMEType, 100)
	l.update(k, func(r *Request) { r.Response = &resp })
}

// LoadingFinished ends the request of k.
func (l *Log) LoadingFinished(k Key, size int64, at float64) {
	l.update(k, func(r *Request) { r.Size, r.End = size, r.at(at) })
}

// LoadingFailed ends the request of k with a failure.
func (l *Log) LoadingFailed(k Key, reason string, at float64) {
	l.update(k, func(r *Request) { r.Failure, r.End = cut(reason, 200), r.at(at) })
}

// at is the time of the browser's monotonic time mono, read from when r
// was sent.
func (r *Request) at(mono float64) time.Time {
	d := time.Duration((mono - r.Mono) * float64(time.Second))
	return r.Start.Add(max(d, 0))
}

// update changes the request of k, if the ring still holds it.
func (l *Log) update(k Key, change func(*Request)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.byKey[k]
	if r == nil {
		return
	}
	l.seq++
	change(r)
	r.Updated = l.seq
}

// headers returns h bounded in count and size, names in lower case.
func (l *Log) headers(h map[string]string) map[string]string {
	if len(h) == 0 {
		return nil
	}
	out := make(map[string]string, min(len(h), l.limits.Headers))
	for k, v := range h {
		if len(out) == l.limits.Headers {
			break
		}
		out[cut(lower(k), 100)] = cut(v, 500)
	}
	return out
}

// Request returns a copy of the request of page whose short id (Request.ID)
// is id, if the ring still holds it.
func (l *Log) Request(page, id string) (Request, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.requests.all() {
		if r.Page == page && r.ID() == id {
			return r.copy(), true
		}
	}
	return Request{}, false
}

// copy is a copy of r that shares nothing that changes.
func (r *Request) copy() Request {
	c := *r
	if r.Response != nil {
		resp := *r.Response
		c.Response = &resp
	}
	return c
}

// urlKept bounds a URL as kept; what is shown is cut shorter.
const urlKept = 4096

// cut returns s cut to at most n bytes, on a character's boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// lower is strings.ToLower for ASCII header names.
func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
