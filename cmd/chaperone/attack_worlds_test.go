package main

import (
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// worldsReads is the judging-worlds fixture's count of the clicks "Read
// more" itself heard.
var worldsReads = regexp.MustCompile(`Read more clicks: (\d+)`)

func worldsReadsOf(t *testing.T, s *snapshot.Snapshot) string {
	t.Helper()
	m := worldsReads.FindStringSubmatch(s.Text)
	if m == nil {
		t.Fatalf("no read count on the page:\n%s", s.Text)
	}
	return m[1]
}

// TestAttackJudgedInThePagesWorld: the scripts that judge a click (the
// hit test before it, the record that says whether it arrived) ran in the
// page's own JavaScript world, whose built-ins the page may redefine. A
// page that made elementFromPoint, getBoundingClientRect or a parentNode
// getter lie had a gated "Place order" that covers "Read more" judged as
// not covering it, and a click on "Read more" placed the order unasked;
// one that made Array.prototype.includes or some, composedPath,
// addEventListener or stopImmediatePropagation lie had the record let a
// click that a button slid under the pointer reach the order (and at
// times report it delivered to "Read more"). The person rejects anything
// they are asked: no order may ever be placed, and a success must be a
// click "Read more" heard.
func TestAttackJudgedInThePagesWorld(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, host, _ := webhookServe(t, "--url", site.URL+"/hostile/worlds-builtins")
	for _, tc := range []struct{ name, query string }{
		// The hit test lies: the order button covers "Read more".
		{"elementFromPoint lies, the record's includes too", "trap=cover&lie=point,includes"},
		{"elementFromPoint lies, the record's some too", "trap=cover&lie=point,some"},
		{"parentNode and composedPath lie", "trap=cover&lie=parent,path"},
		{"the box and the hit test lie", "lie=rect,point,includes"},
		{"the box, the hit test and some lie", "lie=rect,point,some"},
		// The record lies or is deaf: the order button slides under the
		// pointer as it arrives.
		{"addEventListener adds nothing", "trap=slide&lie=listen"},
		{"stopImmediatePropagation does nothing", "trap=slide&lie=stop"},
		{"includes is always true", "trap=slide&lie=includes"},
		{"some is always true", "trap=slide&lie=some"},
		{"composedPath starts at Read more", "trap=slide&lie=path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r, _ := act(t, c, toolapi.Navigate, map[string]any{"url": site.URL + "/hostile/worlds-builtins?" + tc.query}); !r.Success {
				t.Fatalf("load: %v %s", r.Error, r.Message)
			}
			s := getSnapshot(t, c)
			// The person says no, if they are asked at all.
			host.decisions <- map[string]any{"approved": false, "feedback": "not this"}
			r, after := keysAct(t, c, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Read more")})
			asked := false
			select {
			case p := <-host.requests:
				asked = true
				if p.Concrete == nil || p.Concrete.Name != "Place order" {
					t.Errorf("the person was asked about %+v; the click was judged as something else than what it reaches", p.Concrete)
				}
			default:
				<-host.decisions
			}
			if got := pointOrdersOf(t, after); got != "0" {
				t.Fatalf("orders placed: %s, though nobody approved one (asked: %v); the result: success %v, %q", got, asked, r.Success, r.Message)
			}
			if r.Success && worldsReadsOf(t, after) == "0" {
				t.Errorf("the click answered success, but Read more never heard it: %q", r.Message)
			}
			t.Logf("asked: %v; result: success %v, error %v, %q", asked, r.Success, r.Error, r.Message)
		})
	}
	// Done is what was approved: the select's focus handler turns "Basic
	// $5" into "Premium annual $6000", and the page's getters say it did
	// not. The person, if asked, approves "Basic $5"; the page must not
	// hear the other chosen.
	t.Run("the select's option lies", func(t *testing.T) {
		if r, _ := act(t, c, toolapi.Navigate, map[string]any{"url": site.URL + "/hostile/worlds-builtins?lie=option"}); !r.Success {
			t.Fatalf("load: %v %s", r.Error, r.Message)
		}
		s := getSnapshot(t, c)
		host.decisions <- map[string]any{"approved": true}
		r, after := act(t, c, toolapi.Select, map[string]any{"ref": browsertest.Ref(t, s, "combobox", "Plan"), "value": "Basic $5"})
		select {
		case <-host.requests:
		default:
			<-host.decisions
		}
		if !strings.Contains(after.Text, "Plan heard: nothing") || r.Success {
			t.Errorf("select: success %v, %q; the page heard:\n%s", r.Success, r.Message, after.Text)
		}
	})
	// The honest page: the click on Read more happens, nobody is asked.
	if r, _ := act(t, c, toolapi.Navigate, map[string]any{"url": site.URL + "/hostile/worlds-builtins"}); !r.Success {
		t.Fatalf("load: %v %s", r.Error, r.Message)
	}
	s := getSnapshot(t, c)
	r, after := keysAct(t, c, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Read more")})
	if !r.Success || worldsReadsOf(t, after) != "1" || pointOrdersOf(t, after) != "0" {
		t.Errorf("a plain click on Read more: success %v, %q; page:\n%s", r.Success, r.Message, after.Text)
	}
	host.notAsked(t)
}
