package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// leakSite serves the fixture site on 127.0.0.1 and remembers every request
// it receives, by host and URI, so a test can tell whether data reached it.
// The same server is the other site as localhost: 127.0.0.1 and localhost
// are different sites.
type leakSite struct {
	URL, Other string

	mu   sync.Mutex
	seen []string
}

func leakServeSite(t *testing.T) *leakSite {
	t.Helper()
	s := &leakSite{}
	site := fixtures.Site()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen = append(s.seen, r.Host+r.URL.RequestURI())
		s.mu.Unlock()
		// An open redirect whose target no reading of the URL can see:
		// it is base64 in the path.
		if enc, ok := strings.CutPrefix(r.URL.Path, "/go/"); ok {
			to, err := base64.RawURLEncoding.DecodeString(enc)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			http.Redirect(w, r, string(to), http.StatusFound)
			return
		}
		site.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	s.Other = strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	return s
}

// saw reports whether a request whose host and URI contain part arrived.
func (s *leakSite) saw(part string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.ContainsFunc(s.seen, func(u string) bool { return strings.Contains(u, part) })
}

// leakNavigate calls browser_navigate to u and returns its result.
func leakNavigate(t *testing.T, c *client.Client, u string) actionResult {
	t.Helper()
	r, _ := act(t, c, toolapi.Navigate, map[string]any{"url": u})
	return r
}

// leakRejected fails the test unless r is a person's rejection that left
// the page where it was.
func leakRejected(t *testing.T, c *client.Client, r actionResult, stayAt string) {
	t.Helper()
	if r.Success || r.Error == nil || *r.Error != string(toolapi.HumanRejected) {
		t.Fatalf("rejected navigation: success %v error %v %q; want human_rejected", r.Success, r.Error, r.Message)
	}
	if s := getSnapshot(t, c); s.Page.URL != stayAt {
		t.Fatalf("after the rejection the page is %s, want it to stay at %s", s.Page.URL, stayAt)
	}
}

// TestLeakByComposedURL reverses issue 23's "browser_navigate to another
// site with data in the query goes out without anyone asked": a page tells
// the agent to open the other site with the member's email in the query.
// A URL the agent composes that sends data to a site outside the write set
// asks the person, who sees the URL in full and the site named; rejected,
// the request never leaves. A bare origin, a URL of the start site and a
// link the page holds are not asked about; an approval lets the navigation
// go, and the audit log ties it to that approval.
func TestLeakByComposedURL(t *testing.T) {
	t.Parallel()
	site := leakServeSite(t)
	start := site.URL + "/hostile/leak-note"
	auditDir := filepath.Join(t.TempDir(), "audit")
	c, host, _ := webhookServe(t, "--url", start, "--caps", "tabs", "--audit-dir", auditDir)
	getSnapshot(t, c)

	t.Run("composed URL with data to another site", func(t *testing.T) {
		dest := site.Other + "/help?email=" + url.QueryEscape("alice@example.com")
		host.decisions <- map[string]any{"approved": false, "feedback": "never send my email there"}
		r := leakNavigate(t, c, dest)
		asked := host.asked(t)
		shown := asked.Prompt + "\n" + strings.Join(asked.Lines, "\n")
		otherSite := "http://localhost"
		for _, want := range []string{dest, "to " + otherSite + ", a site outside", "http://127.0.0.1"} {
			if !strings.Contains(shown, want) {
				t.Errorf("the person is not shown %q:\n%s", want, shown)
			}
		}
		if asked.Concrete == nil || asked.Concrete.Verb != "navigate" || asked.Concrete.Value != dest {
			t.Errorf("the person approves %+v, want navigate %s", asked.Concrete, dest)
		}
		leakRejected(t, c, r, start)
		if site.saw("email=alice") {
			t.Fatal("the email reached the other site although the person said no")
		}
	})

	t.Run("through the start site's open redirect", func(t *testing.T) {
		dest := site.URL + "/redirect?to=" + url.QueryEscape(site.Other+"/help?email=alice%40example.com")
		host.decisions <- map[string]any{"approved": false}
		r := leakNavigate(t, c, dest)
		if asked := host.asked(t); !strings.Contains(strings.Join(asked.Lines, "\n"), "http://localhost, a site outside") {
			t.Errorf("the person is not told where the data goes: %q", asked.Lines)
		}
		leakRejected(t, c, r, start)
		if site.saw("email=alice") {
			t.Fatal("the email reached the other site through the redirect")
		}
	})

	t.Run("new tab", func(t *testing.T) {
		dest := site.Other + "/help?email=alice%40example.com"
		host.decisions <- map[string]any{"approved": false}
		_, text := call(t, c, toolapi.Tabs, map[string]any{"action": "new", "url": dest})
		host.asked(t)
		var r actionResult
		if err := json.Unmarshal([]byte(text), &r); err != nil {
			t.Fatal(err)
		}
		if r.Success || r.Error == nil || *r.Error != string(toolapi.HumanRejected) {
			t.Fatalf("rejected new tab: %s", text)
		}
		_, list := call(t, c, toolapi.Tabs, map[string]any{"action": "list"})
		if !strings.Contains(list, "Tabs (1)") || site.saw("email=alice") {
			t.Fatalf("the rejected tab opened anyway: %s", list)
		}
	})

	// Nothing of these is asked about: a queued decision would be taken by
	// a question, so none is queued, and a question would fail the call.
	for _, tt := range []struct{ name, url string }{
		{"the start site with data", site.URL + "/help?q=plans"},
		{"back to the hostile page", start},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if r := leakNavigate(t, c, tt.url); !r.Success {
				t.Fatalf("navigate %s: %v %q", tt.url, r.Error, r.Message)
			}
			host.notAsked(t)
		})
	}

	t.Run("a link the page holds", func(t *testing.T) {
		s := getSnapshot(t, c)
		r, after := click(t, c, browsertest.Ref(t, s, "link", "Partner offers"))
		if !r.Success || !strings.HasPrefix(after.Page.URL, site.Other+"/help?ref=leak-note") {
			t.Fatalf("click the partner link: %v %q, at %s", r.Error, r.Message, after.Page.URL)
		}
		host.notAsked(t)
	})

	t.Run("approved", func(t *testing.T) {
		dest := site.Other + "/help?email=bob%40example.com"
		host.decisions <- map[string]any{"approved": true}
		r := leakNavigate(t, c, dest)
		approval := host.asked(t)
		if !r.Success || !site.saw("email=bob") {
			t.Fatalf("approved navigation: %v %q", r.Error, r.Message)
		}
		var found bool
		for deadline := time.Now().Add(10 * time.Second); !found && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			for _, ev := range auditEvents(t, auditDir) {
				found = found || (ev["tool"] == toolapi.Navigate && ev["result"] == "ok" && ev["approval_id"] == approval.ID)
			}
		}
		if !found {
			t.Errorf("no audited navigation names approval %s", approval.ID)
		}
	})
}

// TestLeakByURLSpellings reverses issue 27's "data leaves by URLs Go reads
// differently from Chromium" and "ports and .localhost labels carry data":
// each URL below reaches the other site (localhost) in Chromium's reading,
// with data in its query, its port or a label of its host, though net/url
// reads most without a host at all. The person is asked, the prompt naming
// localhost; rejected, the other site receives nothing.
func TestLeakByURLSpellings(t *testing.T) {
	t.Parallel()
	site := leakServeSite(t)
	start := site.URL + "/hostile/leak-note"
	c, host, _ := webhookServe(t, "--url", start, "--caps", "tabs")
	getSnapshot(t, c)
	other := strings.TrimPrefix(site.Other, "http://") // localhost:PORT
	port := other[strings.LastIndexByte(other, ':')+1:]
	redirect := site.URL + "/redirect?to="
	tests := []struct {
		name, url string
		// mark is what the other site would see of the data.
		mark string
		tab  bool
	}{
		{"http: without slashes", "http:" + other + "/hit?leak=s1", "leak=s1", false},
		{"http: with one slash", "http:/" + other + "/hit?leak=s2", "leak=s2", false},
		{"http: with backslashes", `http:\\` + other + "/hit?leak=s3", "leak=s3", false},
		{"a tab in the host of a URL in an open redirect", redirect + "http://%09" + other + "/hit?leak=s4", "leak=s4", false},
		{"a port of its own", site.Other + "/", other, false},
		{"a label under localhost", "http://zq9x-e.localhost:" + port + "/", "zq9x-e", false},
		// Of our own: other spellings of the same tricks.
		{"a new tab without slashes", "http:" + other + "/hit?leak=s5", "leak=s5", true},
		{"slash and backslash", `HTTP:/\` + other + "/hit?leak=s6", "leak=s6", false},
		{"a tab in the scheme", "ht\ttp://" + other + "/hit?leak=s7", "leak=s7", false},
		{"a newline in the host", "http://local\nhost:" + port + "/hit?leak=s8", "leak=s8", false},
		{"full-width letters", "http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54:" + port + "/hit?leak=s9", "leak=s9", false},
		{"no slashes inside a redirect", redirect + "http:" + other + "/hit%3Fleak=s10", "leak=s10", false},
		{"backslashes inside a redirect", redirect + url.QueryEscape(`http:\\`+other+"/hit?leak=s11"), "leak=s11", false},
		{"a tab in the scheme inside a redirect", redirect + "ht%09tp://" + other + "/hit%3Fleak=s12", "leak=s12", false},
		{"a newline in the host inside a redirect", redirect + "http://local%0Ahost:" + port + "/hit%3Fleak=s13", "leak=s13", false},
		{"a port inside a redirect", redirect + url.QueryEscape(site.Other+"/"), other, false},
		{"a label inside a redirect", redirect + url.QueryEscape("http://a1b2.localhost:"+port+"/"), "a1b2", false},
		// Through a chain of the start site's redirects, each taking one
		// layer of encoding off, or passing the rest on as it is.
		{"four redirects, each decoding", chainRedirects(site.URL, site.Other+"/hit?leak=s15", 4, true), "leak=s15", false},
		{"six redirects, nothing encoded", chainRedirects(site.URL, site.Other+"/hit?leak=s16", 6, false), "leak=s16", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			host.decisions <- map[string]any{"approved": false}
			var r actionResult
			if tt.tab {
				_, text := call(t, c, toolapi.Tabs, map[string]any{"action": "new", "url": tt.url})
				if err := json.Unmarshal([]byte(text), &r); err != nil {
					t.Fatal(err)
				}
			} else {
				r = leakNavigate(t, c, tt.url)
			}
			// The call has returned: a person asked has been asked by now.
			select {
			case asked := <-host.requests:
				if shown := strings.Join(asked.Lines, "\n"); !strings.Contains(shown, "http://localhost, a site outside") {
					t.Errorf("the person is not told the data goes to http://localhost:\n%s", shown)
				}
			default:
				<-host.decisions // the answer nobody asked for
				t.Errorf("nobody was asked: success %v error %v %q", r.Success, r.Error, r.Message)
			}
			if r.Success || r.Error == nil || *r.Error != string(toolapi.HumanRejected) {
				t.Fatalf("rejected: success %v error %v %q; want human_rejected", r.Success, r.Error, r.Message)
			}
			if site.saw(tt.mark) {
				t.Fatalf("the other site received %q although the person said no", tt.mark)
			}
		})
	}

	t.Run("approved, Chromium goes where the person was shown", func(t *testing.T) {
		host.decisions <- map[string]any{"approved": true}
		r := leakNavigate(t, c, `http:\\`+other+"/help?leak=ok")
		asked := host.asked(t)
		want := site.Other + "/help?leak=ok"
		if asked.Concrete == nil || asked.Concrete.Value != want {
			t.Errorf("the person approves %+v, want navigate %s", asked.Concrete, want)
		}
		if !r.Success || !site.saw(other+"/help?leak=ok") {
			t.Fatalf("approved navigation: %v %q", r.Error, r.Message)
		}
	})

	t.Run("a URL the browser reads differently is refused", func(t *testing.T) {
		r := leakNavigate(t, c, "http://local host:"+port+"/hit?leak=s14")
		if r.Success || r.Error == nil || *r.Error != string(toolapi.InvalidParams) || !strings.Contains(r.Message, "cannot be read the way the browser reads it") {
			t.Fatalf("result: %v %q; want invalid_params saying the URL cannot be read as the browser reads it", r.Error, r.Message)
		}
		host.notAsked(t)
	})
}

// TestLeakThroughRedirect: a server redirect of a URL the agent composed
// is judged as that URL. A same-site open redirect that hides its target
// (base64 in the path) passes the agent's data to another site; no reading
// of the URL sees it, so the interceptor judges the hop before Chromium
// sends it: refused, the other site receives nothing, and the agent is
// told to open that URL itself. A redirect within the write set, and one to
// the very site a person allowed the URL to send to, go ahead.
func TestLeakThroughRedirect(t *testing.T) {
	t.Parallel()
	site := leakServeSite(t)
	start := site.URL + "/hostile/leak-note"
	c, host, _ := webhookServe(t, "--url", start, "--caps", "tabs")
	getSnapshot(t, c)
	hidden := func(to string) string { return site.URL + "/go/" + base64.RawURLEncoding.EncodeToString([]byte(to)) }
	for _, tt := range []struct {
		name, url, mark string
		tab             bool
	}{
		{"navigate", hidden(site.Other + "/hit?leak=r1"), "leak=r1", false},
		{"new tab", hidden(site.Other + "/hit?leak=r2"), "leak=r2", true},
		{"a label of the other site", hidden("http://r3x.localhost:" + site.Other[strings.LastIndexByte(site.Other, ':')+1:] + "/"), "r3x", false},
		{"two hops", hidden(hidden(site.Other + "/hit?leak=r4")), "leak=r4", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r actionResult
			if tt.tab {
				_, text := call(t, c, toolapi.Tabs, map[string]any{"action": "new", "url": tt.url})
				if err := json.Unmarshal([]byte(text), &r); err != nil {
					t.Fatal(err)
				}
			} else {
				r = leakNavigate(t, c, tt.url)
			}
			host.notAsked(t)
			if r.Success || r.Error == nil || *r.Error != string(toolapi.ActionFailed) || !strings.Contains(r.Message, "http://localhost, a site outside") {
				t.Errorf("result: success %v error %v %q; want action_failed naming http://localhost", r.Success, r.Error, r.Message)
			}
			if site.saw(tt.mark) {
				t.Fatalf("the other site received %q through the redirect", tt.mark)
			}
			if tt.tab {
				call(t, c, toolapi.Tabs, map[string]any{"action": "close"})
			}
		})
	}
	t.Run("within the write set", func(t *testing.T) {
		r := leakNavigate(t, c, hidden(site.URL+"/help?q=r5"))
		host.notAsked(t)
		if !r.Success || !site.saw("/help?q=r5") {
			t.Fatalf("a redirect within the start site: %v %q", r.Error, r.Message)
		}
	})
	t.Run("to the site a person allowed", func(t *testing.T) {
		host.decisions <- map[string]any{"approved": true}
		r := leakNavigate(t, c, site.Other+"/go/"+base64.RawURLEncoding.EncodeToString([]byte(site.Other+"/help?q=r6")))
		host.asked(t)
		if !r.Success || !site.saw(strings.TrimPrefix(site.Other, "http://")+"/help?q=r6") {
			t.Fatalf("approved, redirected within the approved site: %v %q", r.Error, r.Message)
		}
	})
}

// chainRedirects is a URL of the fixture site at base that reaches dest
// through hops of its open redirect: each hop's target a path encoded once
// more (each hop decodes one layer), or the whole URL written as it is.
func chainRedirects(base, dest string, hops int, encode bool) string {
	for range hops {
		if encode {
			dest = "/redirect?to=" + url.QueryEscape(dest)
		} else {
			dest = base + "/redirect?to=" + dest
		}
	}
	if encode {
		return base + dest
	}
	return dest
}

// TestLeakShowsTheRealHost reverses issue 27's "a nested URL's host is
// shown to the person in Unicode": the host of a URL inside the URL, as of
// the URL itself, is shown in punycode, the host the browser connects to,
// never a look-alike (аpple.com with a Cyrillic а).
func TestLeakShowsTheRealHost(t *testing.T) {
	t.Parallel()
	site := leakServeSite(t)
	start := site.URL + "/hostile/leak-note"
	auditDir := filepath.Join(t.TempDir(), "audit")
	c, host, stderr := webhookServe(t, "--url", start, "--audit-dir", auditDir)
	getSnapshot(t, c)
	const lookalike, real = "\u0430pple.com", "xn--pple-43d.com"
	for _, dest := range []string{
		site.URL + "/redirect?to=http://" + lookalike + "/login?e=alice",
		site.URL + "/redirect?to=" + url.QueryEscape("https://"+lookalike+"/login?e=alice"),
		"https://" + lookalike + "/login?e=alice",
	} {
		host.decisions <- map[string]any{"approved": false}
		r := leakNavigate(t, c, dest)
		asked := host.asked(t)
		shown := asked.Prompt + "\n" + strings.Join(asked.Lines, "\n")
		if !strings.Contains(shown, real) || strings.Contains(shown, "\u0430") {
			t.Errorf("navigate %s: the person is not shown the real host %s:\n%s", dest, real, shown)
		}
		if asked.Site != "" && strings.Contains(asked.Site, "\u0430") {
			t.Errorf("the request names site %q in Unicode", asked.Site)
		}
		if r.Success {
			t.Fatalf("navigate %s went ahead although the person said no", dest)
		}
	}
	// The agent's own words name the look-alike: the webhook's payload,
	// raw fields and all, names the real host.
	done := channelAsk(c, map[string]any{"action": "Sign in at https://" + lookalike + "/login", "reason": "the page at //" + lookalike + " says so"})
	host.decisions <- map[string]any{"approved": false}
	asked := host.asked(t)
	raw, _ := json.Marshal(asked)
	if strings.Contains(string(raw), "\u0430") || !strings.Contains(asked.Action, real) || !strings.Contains(asked.Reason, real) {
		t.Errorf("the webhook's payload names the Unicode host: %s", raw)
	}
	<-done
	if strings.Contains(stderr.String(), "\u0430") {
		t.Errorf("the log shows the Unicode host:\n%s", stderr.String())
	}
	// The audit log, where the agent's arguments are written as it sent
	// them, names the real host too.
	var found bool
	for deadline := time.Now().Add(10 * time.Second); !found && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for _, ev := range auditEvents(t, auditDir) {
			found = found || ev["tool"] == toolapi.RequestApproval
		}
	}
	for _, ev := range auditEvents(t, auditDir) {
		if line, _ := json.Marshal(ev); strings.Contains(string(line), "\u0430") {
			t.Errorf("the audit log names the Unicode host: %s", line)
		}
	}
	if !found {
		t.Error("no request_human_approval call in the audit log")
	}
}

// TestLogShowsTheRealHost: every log line names a URL's real host, the
// operator's start URL and the agent's arguments written in Unicode
// included, not only the lines that say what a person is asked.
func TestLogShowsTheRealHost(t *testing.T) {
	t.Parallel()
	site := leakServeSite(t)
	port := site.URL[strings.LastIndexByte(site.URL, ':')+1:]
	const wide = "\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54" // localhost in full-width letters
	c, _, stderr := stdioClient(t, nil, "serve", "--url", "http://"+wide+":"+port+"/hostile/leak-note", "--profile", "none", "--log-level", "debug")
	getSnapshot(t, c)
	leakNavigate(t, c, "http://"+wide+":"+port+"/help?q=1")
	log := stderr.String()
	if strings.Contains(log, wide) || !strings.Contains(log, "localhost:"+port) {
		t.Errorf("the log names the host in Unicode:\n%s", log)
	}
}

// TestLeakWriteSet: --write-origins and a profile's allowed_origins widen
// the write set, and --profile none turns the rule off with the rest; a
// site still outside is asked about.
func TestLeakWriteSet(t *testing.T) {
	t.Parallel()
	site := leakServeSite(t)
	start := site.URL + "/hostile/leak-note"
	profile := filepath.Join(t.TempDir(), "leak.json")
	data, _ := json.Marshal(map[string]any{"name": "leak", "start_url": start, "allowed_origins": []string{site.URL, site.Other}})
	if err := os.WriteFile(profile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		asked bool
	}{
		{"--write-origins names the site", []string{"--write-origins", site.Other}, false},
		{"--write-origins names another", []string{"--write-origins", "https://partner.example"}, true},
		{"the profile's allowed_origins name it", []string{"--profile", profile}, false},
		{"--profile none", []string{"--profile", "none"}, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dest := fmt.Sprintf("%s/help?email=alice%%40example.com&case=%d", site.Other, i)
			c, host, _ := webhookServe(t, append([]string{"--url", start}, tt.args...)...)
			if tt.asked {
				host.decisions <- map[string]any{"approved": false}
			}
			r := leakNavigate(t, c, dest)
			if !tt.asked {
				host.notAsked(t)
				if !r.Success || !site.saw(fmt.Sprintf("case=%d", i)) {
					t.Fatalf("navigate: %v %q", r.Error, r.Message)
				}
				return
			}
			host.asked(t)
			leakRejected(t, c, r, start)
		})
	}
}

// leakModel is a Messages API that answers every request with one call of
// tool and counts the requests: a model that goes nowhere, as a model a page
// has confused does.
type leakModel struct {
	tool string
	mu   sync.Mutex
	n    int
}

func (m *leakModel) requests() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.n
}

func (m *leakModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/messages" {
		http.NotFound(w, r)
		return
	}
	m.mu.Lock()
	m.n++
	n := m.n
	m.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant", "model": "claude-sonnet-5-5",
		"content":     []map[string]any{{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", n), "name": m.tool, "input": map[string]any{}}},
		"stop_reason": "tool_use", "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 1000, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	})
}

// TestLeakNoProgressRunAsksThePerson reverses issue 23's "a model that only
// calls get_snapshot burns 20 turns": through the built binary, chaperone
// run with a model that calls nothing else reflects after three such calls,
// asks the person after six, and stops when the person says stop: seven
// model calls, not twenty.
func TestLeakNoProgressRunAsksThePerson(t *testing.T) {
	t.Parallel()
	site := leakServeSite(t)
	model := &leakModel{tool: toolapi.GetSnapshot}
	api := httptest.NewServer(model)
	t.Cleanup(api.Close)
	host, hookURL := newApprovalHost(t, webhookToken)
	host.decisions <- map[string]any{"approved": false, "feedback": "stop, it is going nowhere"}

	out := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(bin, "run", "--goal", "Read the plan name", "--url", site.URL+"/hostile/leak-note",
		"--approver", "webhook", "--webhook-url", hookURL, "--out", out)
	cmd.Env = append(os.Environ(), lentBrowser(t), actionBudget, "ANTHROPIC_API_KEY=sk-test", "ANTHROPIC_BASE_URL="+api.URL, "CHAPERONE_WEBHOOK_TOKEN="+webhookToken)
	output, _ := cmd.CombinedOutput()

	asked := host.asked(t)
	if !strings.Contains(asked.Prompt, "stuck") || !strings.Contains(asked.Words, "no progress") {
		t.Errorf("the person is asked %q about %q; want the stuck question naming the calls that made no progress", asked.Prompt, asked.Words)
	}
	if n := model.requests(); n != 1+2*3 {
		t.Errorf("the model was called %d times, want 7: reflect after 3 calls that go nowhere, ask after 6\n%s", n, output)
	}
	if !strings.Contains(string(output), "stop, it is going nowhere") {
		t.Errorf("the run does not end with the person's word:\n%s", output)
	}
}

// A --write-origins entry that names no site stops the command at start,
// saying which flag is wrong.
func TestLeakWriteOriginsFlagRefusesNoSite(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(bin, "serve", "--write-origins", "https://ok.example,no-site-here").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--write-origins") || !strings.Contains(string(out), "no-site-here") {
		t.Fatalf("serve with a bad --write-origins: %v\n%s", err, out)
	}
}
