package main

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
)

// TestExtractFieldsByRoleAndName reads plans whose markup has no classes to
// select values by: fields given as a role and name, in the object and the
// short form, beside a CSS one, find the heading, the text a label names
// (in one paragraph, a <dt>/<dd> pair, an aria-label), links by a name
// they hold (their text or their href), and a checkbox's state; a field
// that finds nothing is empty.
func TestExtractFieldsByRoleAndName(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/variants/extract-roles", "--profile", "none")
	fields := map[string]any{
		"plan":    map[string]any{"role": "heading"},
		"css":     "h2",
		"price":   map[string]any{"role": "text", "name": "Price"},
		"screens": `text "Screens"`,
		"quality": `text "quality"`,
		"rating":  map[string]any{"role": "text", "name": "Rating"},
		"details": `link "Details"@href`,
		"choose":  map[string]any{"role": "link", "name": "choose", "attr": "href"},
		"label":   `link "Choose"`,
		"compare": `checkbox ""`,
		"missing": `button "Buy"`,
	}
	out, text := extractCall(t, c, map[string]any{"selector": "li.plan", "fields": fields})
	if !out.Success || len(out.Items) != 3 {
		t.Fatalf("success %v, %d items, %q", out.Success, len(out.Items), out.Message)
	}
	want := []map[string]string{
		{"plan": "Basic", "css": "Basic", "price": "$8.99 a month", "screens": "1", "quality": "HD", "rating": "4.1",
			"details": site.URL + "/variants/extract-roles?plan=basic#details", "choose": site.URL + "/account?plan=basic",
			"label": "Choose Basic", "compare": "false", "missing": ""},
		{"plan": "Standard", "css": "Standard", "price": "$13.99 a month", "screens": "2", "quality": "Full HD", "rating": "4.5",
			"details": site.URL + "/variants/extract-roles?plan=standard#details", "choose": site.URL + "/account?plan=standard",
			"label": "Choose Standard", "compare": "true", "missing": ""},
		{"plan": "Premium", "css": "Premium", "price": "$19.99 a month", "screens": "4", "quality": "4K", "rating": "4.8",
			"details": site.URL + "/variants/extract-roles?plan=premium#details", "choose": site.URL + "/account?plan=premium",
			"label": "Choose Premium", "compare": "false", "missing": ""},
	}
	for i, w := range want {
		for k, v := range w {
			if got := out.Items[i][k]; got != v {
				t.Errorf("item %d %s = %q, want %q", i+1, k, got, v)
			}
		}
	}
	if !strings.Contains(text, "| choose | compare | css | details | label | missing | plan | price | quality | rating | screens |\n") ||
		!strings.Contains(text, " | Choose Standard |  | Standard | $13.99 a month | Full HD | 4.5 | 2 |\n") {
		t.Errorf("the text does not show the items:\n%s", text)
	}

	for _, bad := range []struct {
		fields map[string]any
		says   string
	}{
		{map[string]any{"x": map[string]any{"role": "nope"}}, `unknown role "nope"`},
		{map[string]any{"x": `nope "Price"`}, `unknown role "nope"`},
		{map[string]any{"x": map[string]any{"name": "Price"}}, "needs a role"},
		{map[string]any{"x": map[string]any{"role": "text", "label": "Price"}}, "fields: each is a CSS selector"},
		{map[string]any{"x": 5}, "fields: each is a CSS selector"},
		{map[string]any{"x": `text "Pri\q"`}, "not a valid quoted string"},
	} {
		out, _ := extractCall(t, c, map[string]any{"selector": "li.plan", "fields": bad.fields})
		if out.Success || out.Error == nil || *out.Error != "invalid_params" || !strings.Contains(out.Message, bad.says) {
			t.Errorf("fields %v: success %v, error %v, %q; want invalid_params saying %q", bad.fields, out.Success, out.Error, out.Message, bad.says)
		}
	}
}
