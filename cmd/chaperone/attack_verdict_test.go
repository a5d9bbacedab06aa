package main

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// verdictSuccess is what the verdict profile's success indicators look for.
const verdictSuccess = "Membership cancelled"

// verdictProfile writes a profile whose success is the text or a heading
// "Membership cancelled", whose failure is "could not", and that allows
// origins, and returns its file name.
func verdictProfile(t *testing.T, origins ...string) string {
	t.Helper()
	p := map[string]any{
		"name":            "verdict",
		"allowed_origins": origins,
		"success_indicators": []any{
			map[string]any{"text_contains": verdictSuccess},
			map[string]any{"element": map[string]any{"role": "heading", "name_contains": verdictSuccess}},
		},
		"failure_indicators": []any{map[string]any{"text_contains": "could not"}},
	}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "verdict.json")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// verdictSites serves the fixture site on loopback and returns it under
// two names, which are two sites to the browser: 127.0.0.1 and localhost.
func verdictSites(t *testing.T) (site, other string) {
	t.Helper()
	srv := httptest.NewServer(fixtures.Site())
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return srv.URL, "http://localhost:" + u.Port()
}

// verdictGo navigates to u and, when want is set, waits until the agent's
// snapshot shows it: a frame loads after its page, and a verdict taken
// before would prove nothing.
func verdictGo(t *testing.T, c *client.Client, u, want string) {
	t.Helper()
	if r, _ := act(t, c, toolapi.Navigate, map[string]any{"url": u}); !r.Success {
		t.Fatalf("navigate to %s: %+v", u, r)
	}
	if want == "" {
		return
	}
	for range 100 {
		if strings.Contains(wholePage(t, c).Text, want) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s never showed %q to the agent", u, want)
}

// TestVerdictCountsOnlyWhatAPersonSees reverses reproduction 6 of issue 22:
// complete_task(success) was acknowledged on success text that no person
// sees (transparent, collapsed, off the page, white on white, clipped), on
// a success shown only by a cross-site frame of an origin the profile does
// not allow, and on a search page that echoes the agent's query. Each is
// refused now, while a success a person does see (below the fold, in a
// same-origin frame, in a frame of an allowed origin, or aria-hidden but
// drawn) is still acknowledged, and a failure counts even where nobody
// sees it.
func TestVerdictCountsOnlyWhatAPersonSees(t *testing.T) {
	t.Parallel()
	site, other := verdictSites(t)
	hidden := site + "/hostile/verdict-hidden?trick="
	cases := []struct {
		name string
		path string
		// wait is text the agent's snapshot must show before the verdict.
		wait string
		ok   bool
	}{
		// What no person sees.
		{"opacity 0", hidden + "opacity", "", false},
		{"height 0, overflow hidden", hidden + "collapsed", "", false},
		{"left -9999px", hidden + "offscreen", "", false},
		{"below the fold of a page that does not scroll", hidden + "locked", "", false},
		{"1 px white on white", hidden + "white", "", false},
		{"large white on white", hidden + "white-large", "", false},
		{"near-white on white", hidden + "faint", "", false},
		{"visibility hidden", hidden + "invisible", "", false},
		{"filter opacity(0)", hidden + "filtered", "", false},
		{"transparent text fill", hidden + "unfilled", "", false},
		{"transparent colour", hidden + "transparent", "", false},
		{"under an opaque box", hidden + "covered", "", false},
		{"a name only in aria-label", hidden + "aria-label", "", false},
		{"a name only in an image's alt", hidden + "alt", "", false},
		{"clip-path inset(50%)", hidden + "clipped", "", false},
		{"visually hidden 1 px box", hidden + "sr-only", "", false},
		{"a cross-site frame of an origin not allowed", site + "/hostile/verdict-frame?site=other", verdictSuccess, false},
		{"a frame 1 px high", site + "/hostile/verdict-frame?size=tiny", verdictSuccess, false},
		{"a search page echoing the query", site + "/hostile/verdict-search?q=membership+cancelled", "", false},
		{"a fragment echoed", site + "/hostile/verdict-search#membership%20cancelled", "", false},
		{"a failure nobody sees", site + "/hostile/verdict-hidden?fail=hidden", "", false},
		// What a person does see.
		{"shown", hidden, "", true},
		{"aria-hidden but drawn", hidden + "aria-hidden", "", true},
		{"below the fold", site + "/hostile/verdict-below", "", true},
		{"a same-origin frame", site + "/hostile/verdict-frame", verdictSuccess, true},
	}
	c, _, _ := stdioClient(t, nil, "serve", "--profile", verdictProfile(t, site), "--url", site+"/hostile/verdict-below",
		"--allowed-origins-browse", other)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			verdictGo(t, c, tc.path, tc.wait)
			r := complete(t, c, "success")
			if r.Acknowledged != tc.ok {
				t.Errorf("complete_task(success) on %s: %+v; want acknowledged %v", tc.path, r, tc.ok)
			}
		})
	}
}

// TestVerdictFrameOfAnAllowedOrigin: a success a cross-site frame shows
// counts when the profile allows the frame's origin too.
func TestVerdictFrameOfAnAllowedOrigin(t *testing.T) {
	t.Parallel()
	site, other := verdictSites(t)
	c, _, _ := stdioClient(t, nil, "serve", "--profile", verdictProfile(t, site, other), "--url", site+"/hostile/verdict-below")
	verdictGo(t, c, site+"/hostile/verdict-frame?site=other", verdictSuccess)
	if r := complete(t, c, "success"); !r.Acknowledged {
		t.Errorf("success in a frame of an allowed origin refused: %+v", r)
	}
}

// TestVerdictIgnoresWhatTheAgentTyped: a page that shows back what the
// agent typed (a live preview) proves nothing, whether typed by
// browser_fill or key by key; what a page says in its own words still
// counts, though the agent typed the phrase within something longer.
func TestVerdictIgnoresWhatTheAgentTyped(t *testing.T) {
	t.Parallel()
	site, _ := verdictSites(t)
	typed := site + "/hostile/verdict-typed"
	t.Run("fill", func(t *testing.T) {
		t.Parallel()
		c, _, _ := stdioClient(t, nil, "serve", "--profile", verdictProfile(t, site), "--url", typed)
		field := browsertest.Labelled(t, getSnapshot(t, c), "Display name")
		const words = verdictSuccess + ", says Ada"
		if r, s := act(t, c, toolapi.Fill, map[string]any{"ref": field, "value": words}); !r.Success || !strings.Contains(s.Text, words) {
			t.Fatalf("fill: %+v; the preview shows %q", r, s.Text)
		}
		if r := complete(t, c, "success"); r.Acknowledged {
			t.Errorf("the agent's own text acknowledged as success: %+v", r)
		}
		verdictGo(t, c, site+"/hostile/verdict-below", "")
		if r := complete(t, c, "success"); !r.Acknowledged {
			t.Errorf("a success the page shows by itself refused after typing: %+v", r)
		}
	})
	t.Run("keys", func(t *testing.T) {
		t.Parallel()
		c, _, _ := stdioClient(t, nil, "serve", "--profile", verdictProfile(t, site), "--url", typed)
		field := browsertest.Labelled(t, getSnapshot(t, c), "Display name")
		if r, _ := click(t, c, field); !r.Success {
			t.Fatalf("click the field: %+v", r)
		}
		var s = getSnapshot(t, c)
		for _, ch := range verdictSuccess {
			key := string(ch)
			if ch == ' ' {
				key = "Space"
			}
			var r actionResult
			if r, s = act(t, c, toolapi.PressKey, map[string]any{"key": key}); !r.Success {
				t.Fatalf("press %s: %+v", key, r)
			}
		}
		if !strings.Contains(s.Text, verdictSuccess) {
			t.Fatalf("the preview shows %q", s.Text)
		}
		if r := complete(t, c, "success"); r.Acknowledged {
			t.Errorf("the agent's own keys acknowledged as success: %+v", r)
		}
	})
}

// TestVerdictFailureTheAgentTyped: a field's value counts as failure text
// where the page put it (TestVerdictJudgesPixels), but not where the agent
// typed it: feedback that says "could not" is no failure of the task.
func TestVerdictFailureTheAgentTyped(t *testing.T) {
	t.Parallel()
	site, _ := verdictSites(t)
	c, _, _ := stdioClient(t, nil, "serve", "--profile", verdictProfile(t, site), "--url", site+"/hostile/verdict-pixels?fail=feedback")
	field := browsertest.Ref(t, getSnapshot(t, c), "textbox", "Feedback")
	if r, _ := act(t, c, toolapi.Fill, map[string]any{"ref": field, "value": "I could not find the button at first."}); !r.Success {
		t.Fatalf("fill: %+v", r)
	}
	if r := complete(t, c, "success"); !r.Acknowledged {
		t.Errorf("the agent's own feedback taken for a failure: %+v", r)
	}
}

// TestVerdictURLTheAgentWrote: a success indicator on the URL holds where
// the task led, not on a URL the agent navigated to itself (a fooled agent
// told to "open /done and report success").
func TestVerdictURLTheAgentWrote(t *testing.T) {
	t.Parallel()
	site, _ := verdictSites(t)
	data, err := json.Marshal(map[string]any{
		"name": "done-url", "allowed_origins": []string{site},
		"success_indicators": []any{map[string]any{"url_contains": "/hostile/verdict-below"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	profile := filepath.Join(t.TempDir(), "done-url.json")
	if err := os.WriteFile(profile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	c, _, _ := stdioClient(t, nil, "serve", "--profile", profile, "--url", site+"/hostile/verdict-below")
	if r := complete(t, c, "success"); !r.Acknowledged {
		t.Errorf("the session's own start page refused: %+v", r)
	}
	verdictGo(t, c, site+"/hostile/verdict-hidden", "")
	verdictGo(t, c, site+"/hostile/verdict-below", "")
	if r := complete(t, c, "success"); r.Acknowledged {
		t.Errorf("a URL the agent navigated to acknowledged as success: %+v", r)
	}
}

// TestVerdictJudgesPixels reverses reproduction 7 of issue 27:
// complete_task(success) was acknowledged on a success heading hidden by
// paint alone (a clip path's shape, a filter, a blend mode, a mask, a
// transform, zoom), which a list of CSS properties does not catch, and on a
// page whose only failure text is CSS generated content. The success text
// now counts only where making it transparent changes the pixels of its
// box, in the page and in a cross-site frame alike; a failure counts
// wherever the page draws it, ::before and ::after included. A success a
// person sees, in the page or in a cross-site frame of an allowed origin,
// is still acknowledged, so nothing passes by refusing everything.
func TestVerdictJudgesPixels(t *testing.T) {
	t.Parallel()
	site, other := verdictSites(t)
	pixels := site + "/hostile/verdict-pixels?trick="
	cases := []struct {
		name string
		path string
		// wait is text the agent's snapshot must show before the verdict.
		wait string
		ok   bool
	}{
		// Success headings no person sees.
		{"clip-path circle(0)", pixels + "circle", "", false},
		{"clip-path polygon", pixels + "polygon", "", false},
		{"clip-path path", pixels + "path", "", false},
		{"filter contrast(0)", pixels + "contrast", "", false},
		{"filter blur(12px)", pixels + "blur", "", false},
		{"filter brightness(100)", pixels + "bright", "", false},
		{"an SVG filter that erases", pixels + "svg-filter", "", false},
		{"mix-blend-mode screen", pixels + "screen", "", false},
		{"mix-blend-mode lighten", pixels + "lighten", "", false},
		{"a transparent mask-image", pixels + "mask", "", false},
		{"a transparent mask shorthand", pixels + "mask-short", "", false},
		{"transform scale(0.02)", pixels + "scale", "", false},
		{"transform scaleY(0.02)", pixels + "scale-y", "", false},
		{"zoom 0.05", pixels + "zoom", "", false},
		{"behind a backdrop-filter", pixels + "backdrop", "", false},
		{"under a sibling's outline", pixels + "outline", "", false},
		{"under a sibling's box-shadow", pixels + "shadow", "", false},
		{"under a sibling's border", pixels + "border", "", false},
		{"SVG text with fill none", pixels + "fill-none", "", false},
		{"SVG text filled white on white", pixels + "fill-white", "", false},
		{"z-index -1, under its card's background", pixels + "under-card", "", false},
		{"cut to an ellipsis", pixels + "ellipsis", "", false},
		{"a transparent ::first-line", pixels + "first-line", "", false},
		{"clipped, drawn again only while the page sees a look", pixels + "watch", "", false},
		{"clipped below the fold, shown after a scroll no person began", pixels + "scroll-watch", "", false},
		{"a transparent ::first-line, a copy below a page that does not scroll", pixels + "locked-copy", "", false},
		// Tricks the capture's rules already refused, kept as they were.
		{"clip-path rect(0 0 0 0)", pixels + "rect", "", false},
		{"clip-path xywh(0 0 0 0)", pixels + "xywh", "", false},
		{"black on a background image of black", pixels + "dark-image", "", false},
		{"letter-spacing -1em", pixels + "squeezed", "", false},
		{"turned edge-on", pixels + "edge-on", "", false},
		{"font-size 0 but ::first-letter", pixels + "first-letter", "", false},
		{"transparent text fill", pixels + "text-fill", "", false},
		{"white text through background-clip", pixels + "gradient-text", "", false},
		{"content-visibility hidden", pixels + "content-visibility", "", false},
		{"a cross-site frame of an allowed origin, clipped", site + "/hostile/verdict-frame?site=other&trick=circle", verdictSuccess, false},
		{"a cross-site frame of an allowed origin, blurred", site + "/hostile/verdict-frame?site=other&trick=blur", verdictSuccess, false},
		{"a cross-site frame of an allowed origin, scaled", site + "/hostile/verdict-frame?site=other&trick=scale", verdictSuccess, false},
		// Failures only CSS writes, beside a success a person sees.
		{"a failure in ::before", site + "/hostile/verdict-pixels?fail=before", "", false},
		{"a failure in ::after", site + "/hostile/verdict-pixels?fail=after", "", false},
		{"a failure split across ::before and text", site + "/hostile/verdict-pixels?fail=split", "", false},
		{"a failure in an invisible ::after", site + "/hostile/verdict-pixels?fail=hidden", "", false},
		// What a person does see.
		{"shown", site + "/hostile/verdict-pixels", "", true},
		{"shown below the fold", site + "/hostile/verdict-below", "", true},
		{"shown, beside a failure template hidden by visibility", site + "/hostile/verdict-pixels?fail=template", "", true},
		{"a failure as a read-only field's value", site + "/hostile/verdict-pixels?fail=readonly", "", false},
		{"a failure as a read-only textarea's value", site + "/hostile/verdict-pixels?fail=output-field", "", false},
		{"a field the page filled with could not", site + "/hostile/verdict-pixels?fail=field", "", false},
		{"a failure in a closed details", site + "/hostile/verdict-pixels?fail=details", "", false},
		{"a failure hidden from assistive technology", site + "/hostile/verdict-pixels?fail=aria-hidden", "", false},
		{"shown, beside a failure in a noscript, which a browser that runs scripts never shows", site + "/hostile/verdict-pixels?fail=noscript", "", true},
		{"shown in a cross-site frame of an allowed origin", site + "/hostile/verdict-frame?site=other", verdictSuccess, true},
	}
	c, _, _ := stdioClient(t, nil, "serve", "--profile", verdictProfile(t, site, other), "--url", site+"/hostile/verdict-below")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			verdictGo(t, c, tc.path, tc.wait)
			r := complete(t, c, "success")
			if r.Acknowledged != tc.ok {
				t.Errorf("complete_task(success) on %s: %+v; want acknowledged %v", tc.path, r, tc.ok)
			}
		})
	}
}
