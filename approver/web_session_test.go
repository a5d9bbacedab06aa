package approver

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Each session's view lists, shows and decides only that session's
// requests: a capability for one session is nothing for another (issue
// #22, invariant 1).
func TestWebConsoleViewsAreScopedToTheirSession(t *testing.T) {
	t.Parallel()
	w, urls := startWeb(t)
	alice, bob := testRequest("req-alice"), testRequest("req-bob")
	alice.Session, bob.Session = "alice-session", "bob-session"
	aliceDone := approveAsync(t.Context(), w, alice)
	aliceURL := <-urls
	bobDone := approveAsync(t.Context(), w, bob)
	bobURL := <-urls
	if aliceURL == bobURL || aliceURL != viewURL(t, w, "alice-session") || bobURL != viewURL(t, w, "bob-session") {
		t.Fatalf("views: alice %s, bob %s", aliceURL, bobURL)
	}
	if _, body, _ := get(t, aliceURL+"api/pending"); !strings.Contains(body, "req-alice") || strings.Contains(body, "req-bob") {
		t.Errorf("alice's view lists %s", body)
	}
	if _, body, _ := get(t, aliceURL); !strings.Contains(body, "req-alice") || strings.Contains(body, "req-bob") {
		t.Errorf("alice's page shows bob's request:\n%s", body)
	}
	if code, _, _ := get(t, aliceURL+"api/approvals/req-bob/screenshot"); code != http.StatusNotFound {
		t.Errorf("bob's screenshot through alice's view: %d", code)
	}
	u, _ := url.Parse(aliceURL)
	base := u.Scheme + "://" + u.Host
	// Every capability alice could come by: her own view, the session ids,
	// the request id, and no capability at all.
	for _, prefix := range []string{aliceURL, base + "/alice-session/", base + "/bob-session/", base + "/req-bob/", base + "/", base + "//"} {
		resp, err := http.Post(prefix+"api/approvals/req-bob", "application/json", strings.NewReader(`{"approved":true}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("POST %sapi/approvals/req-bob: %d, want 404", prefix, resp.StatusCode)
		}
	}
	select {
	case r := <-bobDone:
		t.Fatalf("bob's request was decided through alice's view: %+v", r)
	default:
	}
	// Each view decides its own.
	for _, c := range []struct {
		view, id string
		done     <-chan result
	}{{bobURL, "req-bob", bobDone}, {aliceURL, "req-alice", aliceDone}} {
		resp, err := http.Post(c.view+"api/approvals/"+c.id, "application/json", strings.NewReader(`{"approved":true}`))
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("own decision for %s: %v %v", c.id, resp, err)
		}
		resp.Body.Close()
		if r := <-c.done; !r.d.Approved || r.err != nil {
			t.Errorf("%s: %+v", c.id, r)
		}
	}
}

// A browser request that does not come from the console's own page is
// refused: a page that learnt a capability can neither read nor decide,
// and a name rebound to the console's address gets nothing.
func TestWebConsoleRefusesForeignBrowserRequests(t *testing.T) {
	t.Parallel()
	w, urls := startWeb(t)
	done := approveAsync(t.Context(), w, testRequest("req-1"))
	view := <-urls
	u, _ := url.Parse(view)
	for _, c := range []struct {
		name, method, path string
		header             map[string]string
		want               int
	}{
		{"a fetch from another port (same-site)", "GET", "api/pending", map[string]string{"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"}, 403},
		{"an image on another site", "GET", "api/approvals/req-1/screenshot", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image"}, 403},
		{"a frame on another site", "GET", "", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "iframe"}, 403},
		{"a form post from another port", "POST", "api/approvals/req-1", map[string]string{"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}, 403},
		{"a post with a foreign Origin", "POST", "api/approvals/req-1", map[string]string{"Origin": "http://127.0.0.1:1"}, 403},
		{"a rebound name", "POST", "api/approvals/req-1", map[string]string{"Host": "evil.example:" + u.Port()}, 403},
		{"a rebound name, reading", "GET", "api/pending", map[string]string{"Host": "evil.example:" + u.Port()}, 403},
		{"the console on another port", "GET", "api/pending", map[string]string{"Host": "127.0.0.1:1"}, 403},
		{"a link from another site, to the page", "GET", "", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}, 200},
		{"the person opening it", "GET", "", map[string]string{"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}, 200},
		{"the page's own fetch", "GET", "api/pending", map[string]string{"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"}, 200},
		{"localhost by name", "GET", "api/pending", map[string]string{"Host": "localhost:" + u.Port()}, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			var body *strings.Reader
			if c.method == "POST" {
				body = strings.NewReader(`{"approved":true}`)
			} else {
				body = strings.NewReader("")
			}
			req, _ := http.NewRequest(c.method, view+c.path, body)
			req.Header.Set("Content-Type", "application/json")
			for k, v := range c.header {
				if k == "Host" {
					req.Host = v
					continue
				}
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.want {
				t.Errorf("%s %s: %d, want %d", c.method, c.path, resp.StatusCode, c.want)
			}
		})
	}
	select {
	case r := <-done:
		t.Fatalf("decided by a refused request: %+v", r)
	default:
	}
}
