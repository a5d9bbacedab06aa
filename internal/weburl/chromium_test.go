package weburl_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/internal/weburl"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// The differential test: generated spellings of URLs, read by Parse and by
// real Chromium. Wherever Parse accepts a spelling, Chromium must read it
// to the same href, and read that href back unchanged; a spelling Parse
// refuses is counted (the server refuses it too) and never a disagreement.

// parts are the pieces spellings are made of: each kind of trick a reader
// may read differently.
var parts = struct {
	scheme, slashes, userinfo, host, port, path, query, fragment []string
}{
	scheme:  []string{"http:", "https:", "HTTP:", "hTtPs:", "ht\ttp:", "h\nttp:", "ws:", "wss:", "ftp:", " http:", "\x01http:"},
	slashes: []string{"//", "", "/", "///", `\\`, `\`, `/\`, `\/`, "\t//", "/\n/", "////", " //"},
	userinfo: []string{"", "", "", "user@", "user:pass@", "u%40x@", ":@", "a@b@", "@", "us er:p w@", "ü:ß@",
		"user:@", "a:b:c@", "%00@", "x%2540@"},
	host: []string{
		"example.com", "EXAMPLE.com", "example.com.", "ex%61mple.com", "ex%2Eample.com", "www.example.com",
		"xn--pple-43d.com", "\u0430pple.com", "b\u00fccher.example", "\uff25\uff38\uff21\uff2d\uff30\uff2c\uff25.com",
		"127.0.0.1", "2130706433", "0x7f000001", "0177.0.0.1", "127.1", "127.0.1", "0x7f.1", "0X7F.0.0.1",
		"127.0.0.1.", "017700000001", "0x7f.0x0.0x0.0x1", "127.000.000.001", "127.0.0.0x1",
		"169.254.169.254", "2852039166", "0xa9fea9fe", "0251.0376.0251.0376", "169.254.43518", "169.16689662",
		"[::1]", "[::ffff:127.0.0.1]", "[0:0:0:0:0:0:0:1]", "[::ffff:7f00:1]", "[::FFFF:A9FE:A9FE]",
		"[fd00:ec2::254]", "[1:0:0:2:0:0:0:3]", "[::]", "[1::]", "[0001:0002::]", "[::127.0.0.1]",
		"[fe80::1%25eth0]", "[::1", "::1]", "[12345::]",
		"localhost", "LOCALHOST", "localhost.", "lo%63alhost", "\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54",
		"a.localhost", "zq9x-e.localhost", "1.2.3.4.5", "256.0.0.1", "0x100000000", "4294967296", "1.2.3.256",
		"exa mple.com", "ex<ample.com", "ex%00ample.com", "a..b.com", "xn--zz.com", "_srv.example.com",
		"ex\u200dample.com", "\u4f8b\u3048.jp", "\u00df.de", "fa\u00df.de", "x.\uff43\uff4f\uff4d",
		"127\u30020\u30020\u30021", "ex%ample.com", "example.com%2F", "ex!ample.com", "ex*ample.com",
		"a-.b.com", "-a.b.com", "ab--cd.com", "\u0661\u0662\u0663.com", "x\u0301.com", "\u2488.com",
		"exam\u00adple.com", "EXAMPLE.COM", "e%C3%BC.com", "%E4%BE%8B.jp", "1.2.3", "0x", "09.1.1.1",
		"0.0.0.0", "0", "example.0x1", "example.123", "123.example", "x.y.z.1e", "metadata.google.internal",
		"999999999999999999999", "0x7f.1.", "XN--PPLE-43D.com", "\U0001F600.com", "a\u05d0.com", "\u05d0\u05d1.com",
		"localhost\uff1a80", "\u03c2.gr", "\u00c4PPLE.com", strings.Repeat("a", 70) + ".com",
		strings.Repeat("abcdefghi.", 30) + "com", "xn--a.com", "xn--.com", "a.xn--", "%2e%2e", "..", ".", "a%2Eb.com",
		"127.0.0.1%2e", "%30x7f.1", "0x7f%2e1", "\u200b.com", "a\u3002b\uff0ec\uff61d",
	},
	port: []string{"", "", "", ":", ":80", ":0080", ":8080", ":65535", ":65536", ":-1", ":8a", ":443", ":00000000000000000443", ":0", ":21"},
	path: []string{"", "/", "/a/b", "/a/../b", "/a/./b", "/%2e%2e/x", "/x/..%2fpriv", "/x/%2E./y", `\a\..\b`,
		"/a b", "/\u00fc", "/%41%7e%2d", "/{}|^`", "/\"<>", "/x/../private", "/..", "/.", "/a/b/..", "/a/%2e",
		"/a//b", "/a/.%2E/c", "/%zz", "/%2f", "/a;b=c", "/\u0000", "/\u007f", "/a\u00a0b", "/~user", "/+$,!*'()",
		"/a\\b/../c", "/x/.%2e/%2e./y", "/%2E", "/\U0001F600"},
	query: []string{"", "", "?", "?a=b", "?to=http://%09localhost/x", "?q='\"<> \u00fc", "?%zz", "?a=b&c=d",
		"?{}|^`\\", "?\u0000x", "?a=%2", "??", "?to=http:\\\\evil.example/"},
	fragment: []string{"", "", "#", "#x y", "#\u00fc`'", "#a#b", "#%zz", "#{}|^\"<>", "#\u0000"},
}

// spellings returns n generated spellings and the hand-written ones, each
// once.
func spellings(n int) []string {
	r := rand.New(rand.NewPCG(27, 2026))
	pick := func(list []string) string { return list[r.IntN(len(list))] }
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, s := range handWritten {
		add(s)
	}
	for len(out) < n {
		add(pick(parts.scheme) + pick(parts.slashes) + pick(parts.userinfo) + pick(parts.host) +
			pick(parts.port) + pick(parts.path) + pick(parts.query) + pick(parts.fragment))
	}
	return out
}

// handWritten are spellings of the reproductions and the other
// schemes, read whole.
var handWritten = []string{
	"http:localhost:23153/hit?leak=abc", "http:/localhost:23153/hit?leak=abc", `http:\\localhost:23153/hit?leak=abc`,
	"http://127.0.0.1:8080/redirect?to=http://%09localhost:9/hit?leak=x",
	"https:example.com", "https:/\\example.com/x", "HTTP://EXAMPLE.COM:80/", "http://example.com:443/",
	"https://example.com:443/", "ws://example.com:80/", "ftp://example.com:21/x",
	"about:blank", "about:srcdoc", "ABOUT:BLANK", "data:text/html,<b>hi</b>", "javascript:alert(1)",
	"mailto:a@b.com", "blob:https://a.com/1-2-3", "view-source:http://a.com/", "chrome://settings",
	"file:///etc/passwd", "file://localhost/etc/passwd", "file:/etc/passwd", "file:etc/passwd",
	"file://host.example/share/x", "file:///a/../b", "FILE:///x?y#z",
	"http://example.com/\u0430pple?q=\u0430pple#\u0430pple", "http://[::ffff:169.254.169.254]/",
	"http://user:pass@example.com:8080/a/b?c=d#e", "http://example.com#frag", "http://example.com?#",
}

// chromiumHref is what new URL(s) gives in Chromium: its href, or "" when
// it throws.
type chromiumHref struct {
	Href     string `json:"href"`
	Protocol string `json:"protocol"`
	Throws   bool   `json:"throws"`
}

// chromiumRead evaluates new URL(s) for every input in one call.
func chromiumRead(t *testing.T, tab evaluator, inputs []string) []chromiumHref {
	t.Helper()
	return chromiumReadAgainst(t, tab, inputs, "")
}

type evaluator interface {
	Evaluate(context.Context, string, any) error
}

// chromiumReadAgainst evaluates new URL(s, base) for every input in one
// call; base "" means none.
func chromiumReadAgainst(t *testing.T, tab evaluator, inputs []string, base string) []chromiumHref {
	t.Helper()
	list, err := json.Marshal(inputs)
	if err != nil {
		t.Fatal(err)
	}
	baseArg := "undefined"
	if base != "" {
		b, _ := json.Marshal(base)
		baseArg = string(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out []chromiumHref
	expr := `(` + string(list) + `).map(s => { try { const u = new URL(s, ` + baseArg + `); return {href: u.href, protocol: u.protocol}; } catch (e) { return {throws: true}; } })`
	if err := tab.Evaluate(ctx, expr, &out); err != nil {
		t.Fatalf("evaluating new URL for %d spellings: %v", len(inputs), err)
	}
	if len(out) != len(inputs) {
		t.Fatalf("Chromium read %d of %d spellings", len(out), len(inputs))
	}
	return out
}

// disagreement says how Parse's reading of s differs from Chromium's, or
// "".
func disagreement(s string, ours *weburl.URL, err error, theirs chromiumHref) string {
	switch {
	case err != nil:
		return ""
	case theirs.Throws:
		return fmt.Sprintf("%q: Parse reads %s, Chromium throws", s, ours.Href())
	case ours.Opaque:
		if theirs.Protocol != ours.Scheme+":" {
			return fmt.Sprintf("%q: Parse reads scheme %s, Chromium %s", s, ours.Scheme, theirs.Protocol)
		}
	case theirs.Href != ours.Href():
		return fmt.Sprintf("%q: Parse reads %s, Chromium %s", s, ours.Href(), theirs.Href)
	}
	return ""
}

func TestChromiumReadsURLsAsParse(t *testing.T) {
	inputs := spellings(6000)
	tab := browsertest.Tab(t)
	theirs := chromiumRead(t, tab, inputs)
	var hrefs []string
	refused, failures := 0, 0
	for i, s := range inputs {
		ours, err := weburl.Parse(s)
		if err != nil {
			refused++
			continue
		}
		hrefs = append(hrefs, ours.Href())
		if d := disagreement(s, ours, err, theirs[i]); d != "" {
			failures++
			if failures <= 40 {
				t.Error(d)
			}
		}
	}
	// The href the server hands Chromium is read back unchanged.
	again := chromiumRead(t, tab, hrefs)
	for i, h := range hrefs {
		ours, err := weburl.Parse(h)
		if err != nil {
			t.Errorf("Parse refuses its own href %q: %v", h, err)
			continue
		}
		if ours.Href() != h {
			t.Errorf("Parse(%q).Href() = %q, not a fixed point", h, ours.Href())
		}
		if d := disagreement(h, ours, nil, again[i]); d != "" {
			failures++
			if failures <= 40 {
				t.Error("the canonical href: " + d)
			}
		}
	}
	t.Logf("%d spellings read by Parse and by Chromium: %d accepted (and their hrefs read back), %d refused by Parse, %d disagreements",
		len(inputs), len(hrefs), refused, failures)
}

// Relative references (a URL without a scheme, read against the current
// page, as browser_navigate reads one) are resolved as Chromium resolves
// them.
func TestChromiumResolvesAsParseRef(t *testing.T) {
	const baseHref = "http://127.0.0.1:8080/a/b/c?q=1#f"
	base, err := weburl.Parse(baseHref)
	if err != nil {
		t.Fatal(err)
	}
	starts := []string{"", "/", "//", `\\`, `\`, "./", "../", "../../../../", "/./", "%2e%2e/", ".%2E/", "x/../", "\t/", " "}
	middles := []string{"", "x", "x/y", "..", ".", "%2e", "a b", "\u00fc", "{}|^", "evil.example/p", "127.1:9/x", "user@host", "0x7f000001:8080"}
	ends := []string{"", "?", "?a=b", "#", "#h", "?to=http://%09localhost/x", "/", "/.."}
	r := rand.New(rand.NewPCG(1, 27))
	pick := func(list []string) string { return list[r.IntN(len(list))] }
	seen := map[string]bool{}
	var inputs []string
	for range 4000 {
		s := pick(starts) + pick(middles) + pick(ends)
		if !seen[s] {
			seen[s] = true
			inputs = append(inputs, s)
		}
	}
	theirs := chromiumReadAgainst(t, browsertest.Tab(t), inputs, baseHref)
	failures, refused := 0, 0
	for i, s := range inputs {
		ours, err := weburl.ParseRef(s, base)
		if err != nil {
			refused++
			continue
		}
		if d := disagreement(s, ours, nil, theirs[i]); d != "" {
			failures++
			if failures <= 40 {
				t.Error("against " + baseHref + ": " + d)
			}
		}
	}
	t.Logf("%d relative spellings resolved by ParseRef and by Chromium: %d refused by ParseRef, %d disagreements", len(inputs), refused, failures)
}

// What Chromium requests when it navigates: real navigations to a loopback
// server, each spelling's request compared with Parse's href.
func TestChromiumRequestsWhatParseReads(t *testing.T) {
	var mu sync.Mutex
	var got []string // "host request-target" of each request
	base := rawServer(t, func(host, target string) {
		mu.Lock()
		defer mu.Unlock()
		if target != "/favicon.ico" {
			got = append(got, host+" "+target)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	port := u.Port()
	hosts := []string{"127.0.0.1", "2130706433", "0x7f000001", "0177.0.0.1", "127.1", "127.0.1", "0x7f.1",
		"127.0.0.1.", "017700000001", "127.000.000.001", "\uff11\uff12\uff17.0.0.1", "127\u30020\u30020\u30021",
		"%31%32%37.0.0.1", "127.0.0.0x1"}
	r := rand.New(rand.NewPCG(9, 27))
	pick := func(list []string) string { return list[r.IntN(len(list))] }
	var inputs []string
	for _, h := range hosts {
		inputs = append(inputs, "http:"+h+":"+port+"/hit?leak=1", "http:/"+h+":"+port+"/x/../private", `http:\\`+h+":"+port+`\a\..\b`)
	}
	for len(inputs) < 150 {
		inputs = append(inputs, pick([]string{"http:", "HTTP:", "ht\ttp:"})+pick(parts.slashes)+pick([]string{"", "user:pw@"})+
			pick(hosts)+":"+pick([]string{port, "0" + port, "00" + port})+pick(parts.path)+pick(parts.query)+pick(parts.fragment))
	}
	tab := browsertest.Tab(t)
	navigated, failures := 0, 0
	previous := ""
	for _, s := range inputs {
		ours, err := weburl.Parse(s)
		if err != nil {
			continue
		}
		if ours.Host != "127.0.0.1" {
			// Only loopback is ever navigated to: a spelling read as any
			// other host is a disagreement to report, not a place to go.
			t.Errorf("%q: Parse reads host %q, not the loopback server's; not navigated", s, ours.Host)
			continue
		}
		// From the same URL (user information aside), a fragment is a
		// navigation within the document: no request.
		u := *ours
		u.HasFragment, u.Fragment, u.Username, u.Password = false, "", "", ""
		if ours.HasFragment && u.Href() == previous {
			continue
		}
		previous = u.Href()
		mu.Lock()
		got = got[:0]
		mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = tab.Go(ctx, s)
		cancel()
		if err != nil {
			t.Errorf("navigating to %q: %v", s, err)
			continue
		}
		navigated++
		want := ours.Host + ":" + ours.EffectivePort() + " " + ours.Path
		if ours.HasQuery {
			want += "?" + ours.Query
		}
		mu.Lock()
		requests := append([]string(nil), got...)
		mu.Unlock()
		if len(requests) == 0 || requests[0] != want {
			failures++
			t.Errorf("%q: Parse reads %s, so Chromium should request %q; it requested %q", s, ours.Href(), want, requests)
		}
	}
	if navigated < 100 {
		t.Errorf("only %d of %d spellings were navigated to", navigated, len(inputs))
	}
	t.Logf("%d navigations: the request Chromium sent compared with Parse's reading, %d disagreements", navigated, failures)
}

// FuzzChromiumAgrees is the long run of the differential test: any input
// Parse accepts, Chromium reads to the same href. Its seed corpus
// (testdata/fuzz/FuzzChromiumAgrees) runs as a plain test.
func FuzzChromiumAgrees(f *testing.F) {
	for _, s := range handWritten {
		f.Add(s)
	}
	tab := browsertest.Tab(f)
	f.Fuzz(func(t *testing.T, s string) {
		ours, err := weburl.Parse(s)
		if err != nil {
			return
		}
		if !isASCII(ours.Href()) {
			t.Fatalf("Parse(%q).Href() = %q holds non-ASCII", s, ours.Href())
		}
		theirs := chromiumRead(t, tab, []string{s})
		if d := disagreement(s, ours, nil, theirs[0]); d != "" {
			t.Fatal(d)
		}
	})
}

// rawServer serves a tiny page on loopback and reports each request's Host
// header and request target exactly as sent (net/http refuses some, such
// as /%zz, before a handler sees them).
func rawServer(t *testing.T, seen func(host, target string)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				r := bufio.NewReader(io.LimitReader(c, 64<<10))
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				fields := strings.Fields(line)
				host := ""
				for {
					h, err := r.ReadString('\n')
					if err != nil || strings.TrimSpace(h) == "" {
						break
					}
					if name, value, ok := strings.Cut(h, ":"); ok && strings.EqualFold(name, "host") {
						host = strings.TrimSpace(value)
					}
				}
				if len(fields) == 3 {
					seen(host, fields[1])
				}
				const page = "<title>ok</title>"
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nCache-Control: no-store\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(page), page)
			}()
		}
	}()
	return "http://" + l.Addr().String()
}

func isASCII(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r >= 0x80 }) < 0
}
