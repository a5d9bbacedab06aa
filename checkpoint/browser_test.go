package checkpoint_test

import (
	"context"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// TestDemoProfileOnTheDemoSite evaluates the demo profile on real snapshots
// of every page of the embedded demo site: the checkpoint holds on /finish
// only, success on /cancelled only, failure on /error only.
func TestDemoProfileOnTheDemoSite(t *testing.T) {
	p, err := checkpoint.LoadProfile("demo")
	if err != nil {
		t.Fatal(err)
	}
	site := browsertest.Site(t)
	p, err = p.WithDemoSite(site)
	if err != nil {
		t.Fatal(err)
	}
	g := checkpoint.NewGate(p, nil, checkpoint.Options{})
	tab := browsertest.Tab(t)
	for _, c := range []struct {
		path                         string
		checkpoint, success, failure bool
	}{
		{"/account", false, false, false},
		{"/retention", false, false, false},
		{"/survey", false, false, false},
		{"/finish", true, false, false},
		{"/cancelled", false, true, false},
		{"/help", false, false, false},
		{"/error", false, false, true},
	} {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		if err := tab.Navigate(ctx, site+c.path); err != nil {
			t.Fatal(err)
		}
		page, err := tab.Capture(ctx, browser.CaptureOptions{Screenshot: true})
		cancel()
		if err != nil {
			t.Fatalf("capture %s: %v", c.path, err)
		}
		s, _, _ := snapshot.Build(page, snapshot.Options{}, 0)
		_, cp := g.Checkpoint(s)
		ok, msg := g.Verify(s)
		failed := len(g.Failures(s)) > 0
		if cp != c.checkpoint || ok != c.success || failed != c.failure {
			t.Errorf("%s (%q): checkpoint=%v success=%v (%s) failure=%v; want %v %v %v",
				c.path, s.Page.Title, cp, ok, msg, failed, c.checkpoint, c.success, c.failure)
		}
	}
	if p.StartURL != site+"/account" {
		t.Errorf("start URL %s", p.StartURL)
	}
}
