package browser_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// TestDrawnHoldsClosedDetails: the text a judged capture's layout draws,
// which failure indicators are matched against, holds what a closed
// <details> keeps beyond its summary, which a person reads with one click,
// and still leaves out a template's and a noscript's.
func TestDrawnHoldsClosedDetails(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		body string
		want bool
	}{
		"closed details":   {`<details><summary>More</summary><p>We could not cancel.</p></details>`, true},
		"nested closed":    {`<details open><summary>A</summary><details><summary>B</summary>We could not cancel.</details></details>`, true},
		"open details":     {`<details open><summary>More</summary><p>We could not cancel.</p></details>`, true},
		"template":         {`<template><p>We could not cancel.</p></template>`, false},
		"noscript":         {`<noscript><p>We could not cancel.</p></noscript>`, false},
		"a closed summary": {`<details><summary>Fine</summary></details>`, false},
	}
	mux := http.NewServeMux()
	for name, c := range cases {
		mux.HandleFunc("/"+strings.ReplaceAll(name, " ", "-"), func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`<!doctype html><body><h1>Account</h1>` + c.body))
		})
	}
	base := browsertest.Serve(t, mux)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tab := browsertest.Tab(t)
			navigate(t, tab, base+"/"+strings.ReplaceAll(name, " ", "-"))
			cap := captureOf(t, tab, browser.CaptureOptions{Judged: true})
			s, _, _ := snapshot.Build(cap, snapshot.Options{MaxElements: 100_000, TokenBudget: 1 << 30, TextBudget: 1 << 30}, 0)
			got := strings.Contains(strings.Join(s.Seen.Drawn, " "), "could not cancel")
			if got != c.want {
				t.Errorf("Drawn of %s = %q; holds the failure %v, want %v", name, s.Seen.Drawn, got, c.want)
			}
		})
	}
}
