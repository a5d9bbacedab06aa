package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// consentProfile writes a profile whose consent is consent and returns its
// path.
func consentProfile(t *testing.T, consent string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "consent.json")
	if err := os.WriteFile(path, []byte(`{"name":"consent test","consent":"`+consent+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// navigateTo opens url and returns the result and its snapshot.
func navigateTo(t *testing.T, c *client.Client, url string) (actionResult, *snapshot.Snapshot) {
	t.Helper()
	r, s := act(t, c, toolapi.Navigate, map[string]any{"url": url})
	if !r.Success {
		t.Fatalf("navigate %s: %v %q", url, r.Error, r.Message)
	}
	return r, s
}

// TestConsentAnsweredAsTheProfileSays opens each platform's banner in one
// session per policy: the session clicks the banner's reject (or accept)
// button itself, the page records that answer, and the navigation's
// message says what was done.
func TestConsentAnsweredAsTheProfileSays(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	for _, policy := range []string{"reject", "accept"} {
		t.Run(policy, func(t *testing.T) {
			c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/variants/documents", "--profile", consentProfile(t, policy))
			for _, p := range fixtures.ConsentBanners {
				r, s := navigateTo(t, c, site.URL+p.Path)
				button, done := p.Reject, "rejected"
				if policy == "accept" {
					button, done = p.Accept, "accepted"
				}
				want := "A " + p.Platform + ` cookie banner asked about cookies: ` + done + ` them with its button "` + button + `" (profile consent: ` + policy + `).`
				if !strings.Contains(r.Message, want) {
					t.Errorf("%s: the message %q does not say %q", p.Platform, r.Message, want)
				}
				if !strings.Contains(s.Text, "Consent: "+done) {
					t.Errorf("%s: the page says %q, want Consent: %s", p.Platform, s.Text, done)
				}
			}
		})
	}
}

// TestConsentLeftAlone: with no consent in the profile the banner is the
// agent's to see and answer; a banner that wears a platform's ids on
// buttons that say something else is never clicked, whatever the profile.
func TestConsentLeftAlone(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	for _, tc := range []struct {
		name, profile, path string
	}{
		{"no profile", "none", "/consent/onetrust"},
		{"default profile", "default", "/consent/cookiebot"},
		{"consent leave", "leave", "/consent/didomi"},
		{"lookalike, consent reject", "reject", "/consent/lookalike"},
		{"lookalike, consent accept", "accept", "/consent/lookalike"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			profile := tc.profile
			if profile != "none" && profile != "default" {
				profile = consentProfile(t, profile)
			}
			c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/variants/documents", "--profile", profile)
			r, s := navigateTo(t, c, site.URL+tc.path)
			if strings.Contains(r.Message, "cookie banner") || !strings.Contains(s.Text, "Consent: none") {
				t.Errorf("message %q, page %q: want the banner left alone", r.Message, s.Text)
			}
		})
	}
}

// TestConsentOnTheStartPage: the start page's banner is answered before the
// first get_snapshot, whose notes say so.
func TestConsentOnTheStartPage(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/consent/didomi", "--profile", consentProfile(t, "reject"))
	s := getSnapshot(t, c)
	if !slices.ContainsFunc(s.Notes, func(n string) bool {
		return strings.Contains(n, "A Didomi cookie banner asked about cookies: rejected them")
	}) ||
		!strings.Contains(s.Text, "Consent: rejected") {
		t.Errorf("notes %q, page %q", s.Notes, s.Text)
	}
	// Answered once: the next snapshot says nothing more of it.
	if s := getSnapshot(t, c); slices.ContainsFunc(s.Notes, func(n string) bool { return strings.Contains(n, "cookie banner") }) {
		t.Errorf("the banner is reported again: %q", s.Notes)
	}
}

// TestConsentAsk puts the banner to the person (MCP elicitation here): they
// see its text and its accept button; an approval accepts the cookies, a
// rejection refuses them.
func TestConsentAsk(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	for _, tc := range []struct {
		name    string
		approve bool
		done    string
		button  string
	}{
		{"approved", true, "accepted", "Accept All Cookies"},
		{"rejected", false, "rejected", "Reject All"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := &user{answer: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"approve": tc.approve}}, asked: make(chan string, 4)}
			c := elicitingClient(t, u, "serve", "--url", site.URL+"/variants/documents", "--profile", consentProfile(t, "ask"), "--approver", "elicitation")
			r, s := navigateTo(t, c, site.URL+"/consent/onetrust")
			select {
			case q := <-u.asked:
				if !strings.Contains(q, `click button "Accept All Cookies"`) || !strings.Contains(q, "We and our partners use cookies") || !strings.Contains(q, "OneTrust") {
					t.Errorf("the person is asked:\n%s", q)
				}
			default:
				t.Fatal("no person was asked")
			}
			want := `A OneTrust cookie banner asked about cookies: ` + tc.done + ` them with its button "` + tc.button + `" (profile consent: ask).`
			if !strings.Contains(r.Message, want) || !strings.Contains(s.Text, "Consent: "+tc.done) {
				t.Errorf("message %q, page %q; want %q", r.Message, s.Text, want)
			}
		})
	}
}

// TestConsentNeverPassesTheGate: on a page the profile makes a checkpoint,
// the server does not click a banner's button for the agent, whatever its
// words: a checkpoint's clicks are a person's, and a hostile page could
// dress any control as "Reject All". The banner is left, and the message
// says why.
func TestConsentNeverPassesTheGate(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	path := filepath.Join(t.TempDir(), "consent.json")
	profile := `{"name":"consent checkpoint","consent":"reject",` +
		`"checkpoints":[{"name":"banner page","any":[{"url_contains":"/consent/onetrust"}]}]}`
	if err := os.WriteFile(path, []byte(profile), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/variants/documents", "--profile", path)
	r, s := navigateTo(t, c, site.URL+"/consent/onetrust")
	if !strings.Contains(r.Message, `is a step the profile has a person approve (banner page), so it was left for you`) {
		t.Errorf("message %q: want the banner left for a person", r.Message)
	}
	if !strings.Contains(s.Text, "Consent: none") {
		t.Errorf("the page says %q: the server answered a banner on a checkpoint page", s.Text)
	}
}
