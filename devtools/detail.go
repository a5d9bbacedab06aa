package devtools

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bodies are what the browser gave of a request's bodies when asked.
type Bodies struct {
	// Request is the request's body; Response the response's.
	Request, Response []byte
	// ResponseBinary says the response body is not text (an image).
	ResponseBinary bool
	// Note says why a body the request has is not there ("the browser no
	// longer holds it").
	Note string
}

// bodyRead bounds how much of a body is masked; bodyShown how many
// characters of that are shown. Masking reads far past what is shown, so
// that a secret the cut would halve is whole when it is masked.
const (
	bodyRead  = 64 << 10
	bodyShown = 4000
)

// Detail is what browser_network answers for one request with body: its
// line, its headers (never the credentials: hidden), and its bodies,
// masked and bounded.
type Detail struct {
	Success         bool         `json:"success"`
	Request         RequestEntry `json:"request"`
	StatusText      string       `json:"status_text,omitempty"`
	MIMEType        string       `json:"mime_type,omitempty"`
	RequestHeaders  []Header     `json:"request_headers,omitempty"`
	ResponseHeaders []Header     `json:"response_headers,omitempty"`
	RequestBody     *Body        `json:"request_body,omitempty"`
	ResponseBody    *Body        `json:"response_body,omitempty"`
	Note            string       `json:"note,omitempty"`
}

// Header is one header as shown.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Body is a body as shown: its size, and its text (masked, cut).
type Body struct {
	Size   int    `json:"size"`
	Text   string `json:"text,omitempty"`
	Binary bool   `json:"binary,omitempty"`
}

// hidden is what a credential header shows.
const hidden = "(hidden)"

// credential reports headers whose values are credentials, never shown:
// Authorization and Cookie, and the like by name.
func credential(name string) bool {
	switch name {
	case "authorization", "proxy-authorization", "cookie", "set-cookie", "set-cookie2":
		return true
	}
	for _, w := range []string{"token", "secret", "api-key", "apikey", "auth", "session", "csrf", "xsrf", "password"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// Describe is the detail of r, with the bodies b, masked by q.Mask.
func Describe(q Query, r Request, b Bodies) Detail {
	q = q.withDefaults()
	d := Detail{Success: true, Note: b.Note}
	e := RequestEntry{ID: r.ID(), Method: q.show(r.Method, 20), URL: q.show(r.URL, 1000), Type: r.Type,
		Failure: r.Failure, Size: r.Size, HasBody: r.HasPostData, Pending: r.End.IsZero()}
	if !r.End.IsZero() {
		e.Millis = max(r.End.Sub(r.Start).Milliseconds(), 0)
	}
	d.RequestHeaders = showHeaders(q, r.Headers)
	if r.Response != nil {
		e.Status = r.Response.Status
		d.StatusText, d.MIMEType = q.show(r.Response.StatusText, 100), q.show(r.Response.MIMEType, 100)
		d.ResponseHeaders = showHeaders(q, r.Response.Headers)
	}
	d.Request = e
	if b.Request != nil {
		d.RequestBody = showBody(q, b.Request, false)
	}
	if b.Response != nil {
		d.ResponseBody = showBody(q, b.Response, b.ResponseBinary)
	}
	return d
}

// showHeaders is h sorted by name, credentials hidden, the rest masked.
func showHeaders(q Query, h map[string]string) []Header {
	var out []Header
	for _, name := range slices.Sorted(maps.Keys(h)) {
		v := hidden
		if !credential(name) {
			v = q.show(h[name], 300)
		}
		out = append(out, Header{Name: q.show(name, 100), Value: v})
	}
	return out
}

// showBody is a body as shown: masked over bodyRead bytes, then cut. Its
// size is the masked text's, so that it tells nothing of a secret's length
// (a binary body's is its own).
func showBody(q Query, raw []byte, binary bool) *Body {
	b := &Body{Size: len(raw), Binary: binary}
	if binary || !utf8.Valid(raw[:validPrefix(raw)]) {
		b.Binary = true
		return b
	}
	masked := q.Mask(cut(string(raw), bodyRead))
	b.Size = len(masked) + max(len(raw)-bodyRead, 0)
	b.Text = q.show(masked, bodyShown)
	return b
}

// validPrefix is how much of raw to check for text: its start.
func validPrefix(raw []byte) int {
	n := min(len(raw), 1024)
	for n > 0 && n < len(raw) && !utf8.RuneStart(raw[n]) {
		n--
	}
	return n
}

// Render is the detail as the model reads it; the bodies come last, quoted.
func (d Detail) Render() string {
	var b strings.Builder
	e := d.Request
	fmt.Fprintf(&b, "%s %s %s %s%s\n", e.ID, e.Method, strconv.Quote(e.URL), e.Type, untrusted)
	switch {
	case e.Failure != "":
		fmt.Fprintf(&b, "failed: %s\n", strconv.Quote(e.Failure))
	case e.Status != 0:
		fmt.Fprintf(&b, "status: %d %s, %s, %s\n", e.Status, strconv.Quote(d.StatusText), strconv.Quote(d.MIMEType), bytesText(e.Size))
	default:
		b.WriteString("pending\n")
	}
	headers := func(what string, hs []Header) {
		if len(hs) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s headers:", what)
		for _, h := range hs {
			fmt.Fprintf(&b, " %s: %s;", strconv.Quote(h.Name), strconv.Quote(h.Value))
		}
		b.WriteByte('\n')
	}
	headers("request", d.RequestHeaders)
	headers("response", d.ResponseHeaders)
	body := func(what string, bd *Body) {
		switch {
		case bd == nil:
		case bd.Binary:
			fmt.Fprintf(&b, "%s body: %s, not text\n", what, bytesText(int64(bd.Size)))
		default:
			fmt.Fprintf(&b, "%s body (%s): %s\n", what, bytesText(int64(bd.Size)), strconv.Quote(bd.Text))
		}
	}
	body("request", d.RequestBody)
	body("response", d.ResponseBody)
	if d.Note != "" {
		b.WriteString(d.Note + "\n")
	}
	return b.String()
}
