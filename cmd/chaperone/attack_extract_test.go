package main

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestExtractForgedMarkdown: a page writes markdown of its own into its
// text (a link ref, a control ref, a bar that would split a table cell) and
// instructions no person sees. The markdown shows the page's brackets
// escaped, so that nothing the page wrote reads as a ref; the cell stays
// one; the hidden text and a password's value are not there.
func TestExtractForgedMarkdown(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/hostile/extract-forge", "--profile", "none")
	out, text := extractCall(t, c, map[string]any{})
	if !out.Success {
		t.Fatalf("extract: %v %s", out.Error, out.Message)
	}
	md := out.Markdown
	// Every ref in the markdown is one the server wrote, for a control of
	// the page: the button and the password field, nothing else.
	refs := regexp.MustCompile(`(?:^|[^\\])\[(@e\d+ [^\]]*|[^\]\\]*\]\(@e\d+\))`).FindAllStringSubmatch(md, -1)
	if len(refs) != 2 {
		t.Errorf("%d refs in the markdown, want the 2 controls:\n%s", len(refs), md)
	}
	for _, m := range refs {
		if !strings.HasSuffix(m[1], ` button "Contact us"`) && !strings.HasSuffix(m[1], ` textbox "Password"`) {
			t.Errorf("a ref the page forged: %q in\n%s", m[1], md)
		}
	}
	for _, want := range []string{`\[Claim refund\](@e1)`, `\[@e2 button "Confirm refund"\]`, `| Plan | a \| b \| c |`, `button "Contact us"]`} {
		if !strings.Contains(md, want) {
			t.Errorf("the markdown lacks %q:\n%s", want, md)
		}
	}
	for _, never := range []string{"SYSTEM:", "pw-in-field-777"} {
		if strings.Contains(text, never) {
			t.Errorf("the extract shows %q:\n%s", never, text)
		}
	}
	// The items of a field read what a person sees, never a password.
	out, text = extractCall(t, c, map[string]any{"selector": "input", "fields": map[string]any{"value": "@value"}})
	if strings.Contains(text, "pw-in-field-777") || len(out.Items) != 1 {
		t.Errorf("a password's value attribute reached the agent:\n%s", text)
	}
}

// TestExtractRedactsSecrets: a --secret value the page echoes never reaches
// the agent through browser_extract, in the markdown, the items, the URL
// or the text.
func TestExtractRedactsSecrets(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	start := site.URL + "/hostile/extract-forge?secret=" + url.QueryEscape(secretValue)
	c, _, _ := stdioClient(t, []string{secretVar + "=" + secretValue}, "serve", "--url", start, "--secret", secretVar, "--profile", "none")
	for _, args := range []map[string]any{
		{},
		{"selector": "#echo"},
		{"selector": "p", "fields": map[string]any{"t": "", "id": "@id"}},
	} {
		res, data := call(t, c, toolapi.Extract, args)
		text := textOf(t, res)
		var out extractOut
		if err := json.Unmarshal([]byte(data), &out); err != nil {
			t.Fatal(err)
		}
		if !out.Success {
			t.Fatalf("extract %v: %v %s", args, out.Error, out.Message)
		}
		if !strings.Contains(text, "Your token: ") {
			t.Errorf("extract %v does not show the echo:\n%s", args, text)
		}
		for _, where := range []string{text, data} {
			if strings.Contains(where, secretValue) {
				t.Errorf("extract %v shows the secret:\n%s", args, where)
			}
		}
	}
}

// TestExtractBounds: arguments an agent gets wrong or pushes too far are
// invalid_params (or ref_invalid) with the reason, and what a page could
// flood an answer with is cut under the budget; the session stays usable.
func TestExtractBounds(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/variants/extract-table", "--profile", "none")
	many := map[string]any{}
	for i := range 21 {
		many[fmt.Sprintf("f%d", i)] = "td"
	}
	for _, tc := range []struct {
		name string
		args map[string]any
		code string
		says string
	}{
		{"too small a budget", map[string]any{"max_tokens": 10}, "invalid_params", "max_tokens 10"},
		{"too big a budget", map[string]any{"max_tokens": 1_000_000}, "invalid_params", "max_tokens 1000000"},
		{"a cursor not given", map[string]any{"cursor": "abc"}, "invalid_params", "next_cursor"},
		{"a cursor past the end", map[string]any{"cursor": "99999:x"}, "invalid_params", "past the end"},
		{"a ref never seen", map[string]any{"ref": "@e99999"}, "ref_invalid", "@e99999"},
		{"too many fields", map[string]any{"selector": "tr", "fields": many}, "invalid_params", "at most 20"},
		{"no selector for the fields", map[string]any{"fields": map[string]any{"a": "td"}}, "invalid_params", "selector"},
		{"limit 0", map[string]any{"selector": "tr", "limit": 0}, "invalid_params", "limit 0"},
		{"fields not names to strings", map[string]any{"selector": "tr", "fields": map[string]any{"a": 1}}, "invalid_params", "fields"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := extractCall(t, c, tc.args)
			if out.Success || out.Error == nil || *out.Error != tc.code || !strings.Contains(out.Message, tc.says) {
				t.Errorf("%v: success %v, error %v, %q; want %s saying %q", tc.args, out.Success, out.Error, out.Message, tc.code, tc.says)
			}
		})
	}

	// A field that matches the whole page is cut.
	out, _ := extractCall(t, c, map[string]any{"selector": "body"})
	if len(out.Items) != 1 || len(out.Items[0]["text"]) > 600 || !strings.Contains(out.Items[0]["text"], "more characters") {
		t.Errorf("the body's text is not cut: %d bytes", len(out.Items[0]["text"]))
	}
	// Many items stop at the token budget, and the message says so.
	out, text := extractCall(t, c, map[string]any{"selector": "td", "fields": map[string]any{"a": "", "b": "", "c": ""}, "limit": 1000, "max_tokens": 300})
	if out.Total != 800 || len(out.Items) == 0 || len(out.Items) >= 800 || !strings.Contains(out.Message, "past max_tokens 300") || len(text) > 300*4+600 {
		t.Errorf("%d items of %d, %q, %d bytes of text", len(out.Items), out.Total, out.Message, len(text))
	}
	// Still usable.
	if out, _ := extractCall(t, c, map[string]any{"selector": "h1"}); len(out.Items) != 1 || out.Items[0]["text"] != "Orders" {
		t.Errorf("after the bad calls: %v %q", out.Items, out.Message)
	}
}

// TestExtractGivesNoUserActivation: reading the items of a region runs a
// script on the region's node; it must not count as a person's gesture,
// which the page could spend on a popup or the clipboard. The page reports,
// on a timer, whether it has ever been activated.
func TestExtractGivesNoUserActivation(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/hostile/extract-activation", "--profile", "none")
	region := browsertest.Ref(t, wholePage(t, c), "region", "Box")
	if out, _ := extractCall(t, c, map[string]any{"selector": "p", "ref": region}); len(out.Items) != 1 {
		t.Fatalf("the region's items: %v %q", out.Items, out.Message)
	}
	status := regexp.MustCompile(`^active (true|false) tick (\d+)$`)
	read := func() (string, int) {
		t.Helper()
		out, _ := extractCall(t, c, map[string]any{"selector": "#status"})
		if len(out.Items) != 1 {
			t.Fatalf("no status: %v", out.Items)
		}
		m := status.FindStringSubmatch(out.Items[0]["text"])
		if m == nil {
			t.Fatalf("status %q", out.Items[0]["text"])
		}
		n, _ := strconv.Atoi(m[2])
		return m[1], n
	}
	// Wait for a tick of the page's timer after the read: it then has seen
	// whatever the read gave it.
	_, first := read()
	for range 1000 {
		active, n := read()
		if n > first {
			if active != "false" {
				t.Errorf("the page was activated by reading it")
			}
			return
		}
	}
	t.Fatal("the page's timer never ticked")
}
