package tools

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/urlpolicy"
)

// fakeClock is a clock whose sleeps move it on at once.
type fakeClock struct {
	t     time.Time
	slept []time.Duration
	// cancel makes a sleep end as if its context were cancelled.
	cancel bool
}

func (c *fakeClock) now() time.Time { return c.t }

func (c *fakeClock) sleep(ctx context.Context, d time.Duration) error {
	if c.cancel {
		c.t = c.t.Add(d / 2)
		return context.Canceled
	}
	c.slept = append(c.slept, d)
	c.t = c.t.Add(d)
	return nil
}

func TestAdmitSpacesActions(t *testing.T) {
	t.Parallel()
	c := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	p := polite{now: c.now, sleep: c.sleep}
	gap := 5 * time.Second
	steps := []struct {
		after time.Duration // since the previous admit returned
		want  time.Duration // the wait
	}{
		{0, 0}, // the first action never waits
		{time.Second, 4 * time.Second},
		{0, 5 * time.Second},  // right after: a whole gap
		{10 * time.Second, 0}, // long after: none
		{5 * time.Second, 0},  // exactly a gap after: none
	}
	for i, st := range steps {
		c.t = c.t.Add(st.after)
		got, err := p.admit(context.Background(), gap)
		if err != nil || got != st.want {
			t.Errorf("step %d: admit waited %v, %v; want %v", i, got, err, st.want)
		}
	}
}

func TestPacedSaysItWaitedAndCountsOnlyActions(t *testing.T) {
	t.Parallel()
	c := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := NewSession(nil, Config{MaxActionsPerMinute: 12})
	s.polite.now, s.polite.sleep = c.now, c.sleep
	ran := 0
	run := func(context.Context) Output {
		ran++
		return Output{Value: toolapi.ActionResult{Success: true, Message: "Clicked."}}
	}
	first := s.paced(context.Background(), false, run)
	if msg := first.Value.(toolapi.ActionResult).Message; msg != "Clicked." {
		t.Errorf("the first action's message is %q, want it unchanged", msg)
	}
	c.t = c.t.Add(time.Second)
	// Reading the page is no action: it neither waits nor counts.
	s.paced(context.Background(), true, run)
	if len(c.slept) != 0 {
		t.Fatalf("a read-only call waited %v", c.slept)
	}
	second := s.paced(context.Background(), false, run)
	msg := second.Value.(toolapi.ActionResult).Message
	if !strings.HasPrefix(msg, "Clicked. ") || !strings.Contains(msg, "Waited 4.0 s first") || !strings.Contains(msg, "at most 12 actions a minute") {
		t.Errorf("the waiting action's message is %q, want it to say it waited 4.0 s for 12 actions a minute", msg)
	}
	if ran != 3 {
		t.Errorf("%d calls ran, want 3", ran)
	}
}

func TestPacedCancelledWhileWaitingDoesNothing(t *testing.T) {
	t.Parallel()
	c := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := NewSession(nil, Config{MaxActionsPerMinute: 1})
	s.polite.now, s.polite.sleep = c.now, c.sleep
	ran := 0
	run := func(context.Context) Output { ran++; return Output{Value: toolapi.ActionResult{Success: true}} }
	s.paced(context.Background(), false, run)
	last := s.polite.last
	c.cancel = true
	out := s.paced(context.Background(), false, run)
	r := out.Value.(toolapi.ActionResult)
	if ran != 1 || r.Success || r.Error == nil || *r.Error != toolapi.Timeout || !strings.Contains(r.Message, "cancelled") || !strings.Contains(r.Message, "nothing was done") {
		t.Errorf("cancelled wait: ran %d times, result %+v; want one run and a timeout that says nothing was done", ran, r)
	}
	if !s.polite.last.Equal(last) {
		t.Error("a cancelled call counted as an action")
	}
}

func TestPacedWaitEndsWithItsContext(t *testing.T) {
	t.Parallel()
	s := NewSession(nil, Config{MaxActionsPerMinute: 1})
	run := func(context.Context) Output { return Output{Value: toolapi.ActionResult{Success: true}} }
	s.paced(context.Background(), false, run)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Output)
	go func() { done <- s.paced(ctx, false, run) }()
	cancel()
	// The real clock would wait a minute: the call ends with its context.
	out := <-done
	if r := out.Value.(toolapi.ActionResult); r.Success {
		t.Errorf("a call cancelled while waiting ran: %+v", r)
	}
}

// robotsSite serves body as /robots.txt with status, and counts requests.
func robotsSite(t *testing.T, status int, body string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		n.Add(1)
		if ua := r.Header.Get("User-Agent"); ua != robotsAgent {
			t.Errorf("robots.txt fetched as %q, want %q", ua, robotsAgent)
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestRobotsAllow(t *testing.T) {
	t.Parallel()
	const body = "User-agent: *\nDisallow: /\n\nUser-agent: Chaperone\nDisallow: /private\nAllow: /private/help\n"
	tests := []struct {
		name    string
		status  int
		body    string
		path    string
		allowed bool
		says    string
	}{
		{"own group allows", 200, body, "/public?q=1", true, ""},
		{"own group disallows", 200, body, "/private/account", false, `says "Disallow: /private" for /private/account`},
		{"longer allow", 200, body, "/private/help", true, ""},
		// What the server reads: decoded, slashes merged, dot segments gone.
		{"escaped slashes", 200, body, "/public%2F..%2Fprivate%2Faccount", false, `says "Disallow: /private" for /private/account`},
		{"a double slash", 200, body, "//private/account", false, `says "Disallow: /private"`},
		{"an escaped dot segment", 200, body, "/public/..%2Fprivate", false, `says "Disallow: /private" for /private`},
		{"an escaped slash, allowed", 200, body, "/public%2Fprivate", true, ""},
		{"no robots.txt", 404, "", "/anything", true, ""},
		{"server error disallows all", 503, "", "/anything", false, "could not be read (status 503)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, fetched := robotsSite(t, tc.status, tc.body)
			s := NewSession(nil, Config{RespectRobots: true})
			for range 2 {
				err := s.robotsAllow(context.Background(), srv.URL+tc.path)
				if tc.allowed != (err == nil) {
					t.Fatalf("robotsAllow(%s) = %v, want allowed %v", tc.path, err, tc.allowed)
				}
				if err != nil {
					p := asProblem(err)
					if p.code != toolapi.ActionFailed || !strings.Contains(p.msg, "robots.txt disallows it") || !strings.Contains(p.msg, tc.says) {
						t.Errorf("refusal is %s %q; want action_failed saying robots.txt disallows it and %q", p.code, p.msg, tc.says)
					}
				}
			}
			if n := fetched.Load(); n != 1 {
				t.Errorf("robots.txt fetched %d times for two URLs of one origin, want once", n)
			}
		})
	}
}

func TestRobotsOffFetchesNothing(t *testing.T) {
	t.Parallel()
	srv, fetched := robotsSite(t, 200, "User-agent: *\nDisallow: /\n")
	s := NewSession(nil, Config{})
	if err := s.robotsAllow(context.Background(), srv.URL+"/x"); err != nil || fetched.Load() != 0 {
		t.Errorf("without RespectRobots: %v, %d fetches; want nil and none", err, fetched.Load())
	}
}

// TestRobotsFetchHonoursThePolicy checks that robots.txt is never fetched
// from an address the URL policy refuses: not directly, and not at the end
// of a redirect.
func TestRobotsFetchHonoursThePolicy(t *testing.T) {
	t.Parallel()
	reserved, fetched := robotsSite(t, 200, "User-agent: *\nAllow: /\n")
	redirect := httptest.NewServer(http.RedirectHandler(reserved.URL+"/robots.txt", http.StatusFound))
	t.Cleanup(redirect.Close)
	policy, err := urlpolicy.Policy{}.WithReserved(strings.TrimPrefix(reserved.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	s := NewSession(nil, Config{RespectRobots: true, URLPolicy: policy})
	for _, u := range []string{reserved.URL + "/page", redirect.URL + "/page"} {
		err := s.robotsAllow(context.Background(), u)
		if err == nil || !strings.Contains(err.Error(), "could not be read") {
			t.Errorf("robotsAllow(%s) = %v, want a refusal: its robots.txt could not be read", u, err)
		}
	}
	if n := fetched.Load(); n != 0 {
		t.Errorf("the reserved address served robots.txt %d times, want never", n)
	}
}
