package checkpoint_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/checkpoint/checkpointtest"
	"github.com/chaperone-mcp/chaperone/internal/weburl"
)

func TestSite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url, want string
	}{
		{"https://shop.example.co.uk:8443/cart?x=1", "https://example.co.uk"},
		{"HTTPS://WWW.Example.COM./", "https://example.com"},
		{"http://example.com", "http://example.com"}, // the scheme counts
		{"https://*.example.com", "https://example.com"},
		{"http://127.0.0.1:8080/x", "http://127.0.0.1"},
		{"http://localhost:9/x", "http://localhost"},
		{"http://a.b.localhost/", "http://localhost"}, // every name under localhost is localhost
		// Read as the browser reads them, not as net/url does.
		{"http:localhost:9/x", "http://localhost"},
		{"http:/localhost:9/x", "http://localhost"},
		{`http:\\localhost:9/x`, "http://localhost"},
		{"http://lo%63al\thost:9/", "http://localhost"},
		{"http://0x7f000001/", "http://127.0.0.1"},
		{"http://\u0430pple.com/", "http://xn--pple-43d.com"},
		{"http://[::1]:80/", "http://[::1]"},
		{"http://[::ffff:127.0.0.1]/", "http://127.0.0.1"},
		{"https://alice.github.io/", "https://alice.github.io"}, // github.io is a public suffix
		{"https://github.io/", "https://github.io"},
		{"http://intranet/", "http://intranet"},
	}
	for _, tt := range tests {
		got, err := checkpoint.Site(tt.url)
		if err != nil || got != tt.want {
			t.Errorf("Site(%q) = %q, %v; want %q", tt.url, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "/relative", "about:blank", "data:text/plain,hi", "http://"} {
		if got, err := checkpoint.Site(bad); err == nil {
			t.Errorf("Site(%q) = %q, want an error", bad, got)
		}
	}
}

func TestCarriesData(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url  string
		want bool
	}{
		{"https://example.com", false},
		{"https://example.com/", false},
		{"https://www.example.com/", false},
		{"http://localhost/", false},
		{"http://localhost:8080/", true}, // a port of its own is two bytes of data
		{"http://localhost:80/", false},  // the default port is no choice
		{"http://zq9x-e.localhost/", true},
		{"http://www.localhost/", false},
		{"http://localhost./", true}, // sent as written: a bit of its own
		{"http://www.localhost./", true},
		{"http://[::1]/", false},
		{"http://[0:0::1]:80/", false},  // one address, however written
		{"https://example.com/?", true}, // anything beyond a bare visit
		{"http:localhost:8080/hit?leak=1", true},
		{"http:localhost/", false},
		{"http://example.com/x/..", false}, // the browser requests /
		{"https://example.com/x", true},
		{"https://example.com/?q=1", true},
		{"https://example.com/#alice@mail.example", true},
		{"https://example.com/%2F", true},
		{"https://alice:secret@example.com/", true},
		{"https://alice-at-mail-com.example.com/", true},
		{"https://www.alice.example.com/", true},
		{"http://127.0.0.1/", false},
		{"http://127.0.0.1:9/", true},
		{"http://127.0.0.1:9/x", true},
		{"about:blank", true}, // opaque, yet it reaches no site: see Sends
		{"data:text/plain,secret", true},
		{"http://[::1", true}, // unparseable: nothing says it carries nothing
	}
	for _, tt := range tests {
		if got := checkpoint.CarriesData(tt.url); got != tt.want {
			t.Errorf("CarriesData(%q) = %v, want %v", tt.url, got, tt.want)
		}
	}
}

func TestWriteSetSends(t *testing.T) {
	t.Parallel()
	w, err := checkpoint.NewWriteSet("http://127.0.0.1:8080/start?x", "https://*.shop.example", "", "https://partner.example.org")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		url  string
		site string // "" when nothing is sent outside the write set
	}{
		{"http://127.0.0.1:9999/x?email=a@b.c", ""}, // same site, any port
		{"http://localhost:8080/x?email=a@b.c", "http://localhost"},
		{"http://localhost/", ""},                       // a bare visit carries nothing
		{"http://localhost", ""},                        // nor without its slash
		{"http://localhost:23153/", "http://localhost"}, // a port is data
		{"http://zq9x-e.localhost:8080/", "http://localhost"},
		{"http://zq9x-e.localhost/", "http://localhost"}, // a label is data
		// Spellings net/url reads without a host.
		{"http:localhost:8080/hit?leak=1", "http://localhost"},
		{"http:/localhost:8080/hit?leak=1", "http://localhost"},
		{`http:\\localhost:8080/hit?leak=1`, "http://localhost"},
		{"http://127.0.0.1:8080/redirect?to=http://%09localhost:8080/hit?leak=1", "http://localhost"},
		{"http://127.0.0.1:8080/redirect?to=http:%2F%2F%09localhost:8080/hit?leak=1", "http://localhost"},
		{"http://127.0.0.1:8080/redirect?to=http:localhost:8080/hit?leak=1", "http://localhost"},
		{"http://127.0.0.1:8080/redirect?to=http%3A%5C%5Clocal%0Ahost:8080/hit?leak=1", "http://localhost"},
		{"http://127.0.0.1:8080/redirect?to=ht%09tp://localhost:8080/hit?leak=1", "http://localhost"},
		{"http://127.0.0.1:8080/redirect?to=http://\u0430pple.com/?leak=1", "http://xn--pple-43d.com"},
		{"https://api.shop.example/q?x", ""},
		{"http://api.shop.example/q?x", "http://shop.example"}, // another scheme, another site
		{"https://cdn.example.org/x", ""},                      // partner.example.org's site is example.org
		{"https://example.net/x", "https://example.net"},
		{"https://evil.test/p", "https://evil.test"},
		{"https://evil.test/#frag", "https://evil.test"},
		{"https://data.evil.test/", "https://evil.test"},
		{"about:blank", ""},
		// Data leaves through a URL inside the URL: a same-site redirect,
		// a page that links to its query.
		{"http://127.0.0.1:8080/redirect?to=" + url.QueryEscape("http://localhost:8080/x?email=a@b.c"), "http://localhost"},
		{"http://127.0.0.1:8080/redirect?to=" + url.QueryEscape(url.QueryEscape("https://evil.test/?e=a@b.c")), "https://evil.test"},
		{"http://127.0.0.1:8080/offsite?to=//evil.test/a", "http://evil.test"},                                               // the scheme of the URL it is in
		{"http://127.0.0.1:8080/redirect?to=" + url.QueryEscape("http://evil.test/?e=1") + "&junk=%zz%", "http://evil.test"}, // a stray % hides nothing
		{`http://127.0.0.1:8080/go?u=https:\\evil.test\a`, "https://evil.test"},
		{"http://127.0.0.1:8080/offsite#https://evil.test/?e=1", "https://evil.test"},
		{"http://127.0.0.1:8080/redirect?to=" + url.QueryEscape("http://127.0.0.1:1/r?to="+url.QueryEscape("http://evil.test/p")), "http://evil.test"},
		{"http://127.0.0.1:8080/redirect?to=" + url.QueryEscape("https://evil.test/"), ""}, // a bare origin still
		{"http://127.0.0.1:8080/redirect?to=" + url.QueryEscape("https://api.shop.example/x"), ""},
		// A document the agent writes can send anything anywhere.
		{"data:text/html,<img src=x>", "data:"},
		{"javascript:fetch('/x')", "javascript:"},
		{"file:///tmp/x", ""},
		// One the browser's reading refuses says nothing of where it goes.
		{"http://local host:8080/x?leak=1", "(a URL that cannot be read as a browser reads it)"},
		{"https://[::1/x", "(a URL that cannot be read as a browser reads it)"},
	}
	for _, tt := range tests {
		site, ok := w.Sends(tt.url)
		if ok != (tt.site != "") || site != tt.site {
			t.Errorf("Sends(%q) = %q, %v; want %q", tt.url, site, ok, tt.site)
		}
	}
	// Through a chain of same-site redirects, each hop taking one layer
	// of encoding off or passing the rest on as it is: however many hops,
	// the data that reaches the other site is found, or the URL counts as
	// sending.
	leak := "http://localhost:9/hit?leak=1"
	for hops := 1; hops <= 12; hops++ {
		encoded, plain := leak, leak
		for range hops {
			encoded = "/redirect?to=" + url.QueryEscape(encoded)
			plain = "http://127.0.0.1:8080/redirect?to=" + plain
		}
		for _, u := range []string{"http://127.0.0.1:8080" + encoded, plain} {
			site, ok := w.Sends(u)
			if !ok {
				t.Errorf("%d redirects: Sends(%q) lets the data out", hops, u)
			}
			// Up to eight layers of encoding, the site is named.
			if hops <= 8 && site != "http://localhost" {
				t.Errorf("%d redirects: Sends(%q) names %q, want http://localhost", hops, u, site)
			}
		}
	}
	// A bare visit to an IPv6 address carries nothing; a scheme-relative
	// URL inside takes the scheme of the URL it is in.
	for _, tt := range []struct{ url, site string }{
		{"http://[::1]/", ""},
		{"http://[::1]:81/", "http://[::1]"},
		{"http://127.0.0.1:8080/redirect?to=/\\localhost:9/x", "http://localhost"},
		{"http://127.0.0.1:8080/redirect?to=%2F%2Flocalhost:9/x", "http://localhost"},
	} {
		site, ok := w.Sends(tt.url)
		if ok != (tt.site != "") || site != tt.site {
			t.Errorf("Sends(%q) = %q, %v; want %q", tt.url, site, ok, tt.site)
		}
	}
	if !w.Contains("https://x.partner.example.org") || w.Contains("https://localhost") {
		t.Errorf("Contains is wrong for %s", w)
	}
	if _, err := checkpoint.NewWriteSet("not a url"); err == nil {
		t.Error("NewWriteSet accepted an entry with no site")
	}
	// A URL stuffed with URLs is not looked through for ever: past the
	// budget it counts as sending.
	if _, ok := w.Sends("http://127.0.0.1/x?" + strings.Repeat("a=//127.0.0.1/y&", 200)); !ok {
		t.Error("a URL with hundreds of URLs inside is let go")
	}
	var none checkpoint.WriteSet
	if _, ok := none.Sends("http://127.0.0.1/x"); !ok {
		t.Error("the empty write set lets data out")
	}
}

// AuthorizeSend asks the person, naming the site and showing the URL in
// full, records the decision, refuses in a dry run, and is covered by an
// approval of the very same action only.
func TestAuthorizeSend(t *testing.T) {
	t.Parallel()
	const dest = "http://localhost:8080/x?email=alice%40mail.example"
	w, _ := checkpoint.NewWriteSet("http://127.0.0.1:8080")
	a := checkpoint.Action{Verb: checkpoint.VerbNavigate, Value: dest}
	tests := []struct {
		name     string
		dryRun   bool
		answer   checkpoint.Decision
		approved bool
		asked    int
	}{
		{"approved", false, checkpoint.Decision{Approved: true, Channel: checkpoint.ChannelWebhook}, true, 1},
		{"rejected", false, checkpoint.Decision{Feedback: "no", Channel: checkpoint.ChannelWebhook}, false, 1},
		{"dry run", true, checkpoint.Decision{Approved: true, Channel: checkpoint.ChannelWebhook}, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &checkpointtest.Person{Answer: tt.answer}
			rec := &sendRecorder{}
			g := checkpoint.NewGate(nil, p, checkpoint.Options{DryRun: tt.dryRun, Audit: rec})
			d, err := g.AuthorizeSend(context.Background(), nil, a, "http://localhost", w)
			if err != nil || d.Approved != tt.approved || d.RequestID == "" {
				t.Fatalf("decision = %+v, %v", d, err)
			}
			if got := len(p.Requests()); got != tt.asked {
				t.Fatalf("asked %d times, want %d", got, tt.asked)
			}
			if len(rec.decisions) != 1 {
				t.Fatalf("%d decisions recorded, want 1", len(rec.decisions))
			}
			if tt.asked == 0 {
				return
			}
			r := p.Requests()[0]
			text := r.Prompt() + "\n" + strings.Join(r.Lines(), "\n")
			for _, want := range []string{dest, "to http://localhost, a site outside", "http://127.0.0.1"} {
				if !strings.Contains(text, want) {
					t.Errorf("the person is not shown %q:\n%s", want, text)
				}
			}
		})
	}
}

type sendRecorder struct{ decisions []checkpoint.Decision }

func (r *sendRecorder) Approval(_ checkpoint.Request, d checkpoint.Decision) error {
	r.decisions = append(r.decisions, d)
	return nil
}

// FuzzWriteSetSends: no URL the agent writes makes Sends panic, and a URL
// that the browser reads as reaching a site outside the write set with
// data (in any spelling: no slashes, backslashes, tabs, a port, a label) is
// always caught.
func FuzzWriteSetSends(f *testing.F) {
	for _, s := range []string{"http://localhost:1/x?e=a", "http://127.0.0.1/redirect?to=http%253A%252F%252Fevil.test%252Fx",
		"https://a.b.c.example.co.uk/%zz", "data:,x", "http://[::1/", `https:\\evil.test\x`, "//evil.test/x",
		"http:localhost:8080/hit?leak=1", "http:/localhost:8080/hit?leak=1", `http:\\localhost:8080/hit?leak=1`,
		"http://127.0.0.1:8080/redirect?to=http://%09localhost:8080/hit?leak=1", "http://localhost:23153/",
		"http://zq9x-e.localhost:8080/", "http://127.0.0.1/r?to=http:%2F%2F\u0430pple.com/?e=1"} {
		f.Add(s)
	}
	w, err := checkpoint.NewWriteSet("http://127.0.0.1")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		site, ok := w.Sends(raw)
		if ok && site == "" {
			t.Fatalf("Sends(%q) sends to no site", raw)
		}
		u, err := weburl.Parse(raw)
		if err != nil || u.Opaque || u.Host == "" || !checkpoint.CarriesData(raw) {
			return
		}
		if s, err := checkpoint.Site(raw); err == nil && s != "http://127.0.0.1" && !ok {
			t.Fatalf("Sends(%q) lets data go to %s (the browser reads %s)", raw, s, u.Href())
		}
	})
}
