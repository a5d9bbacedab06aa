package main

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/tools"
)

// TestExtractForgedMarkdown: a page writes markdown of its own into its
// text (a link ref, a control ref, a bar that would split a table cell) and
// instructions no person sees. The markdown shows the page's brackets
// escaped, so that nothing the page wrote reads as a ref; the cell stays
// one; the hidden text and a password's value are not there.
func TestExtractForgedMarkdown(t *testing.T) {
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
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	start := site.URL + "/hostile/extract-forge?secret=" + url.QueryEscape(secretValue)
	c, _, _ := stdioClient(t, []string{secretVar + "=" + secretValue}, "serve", "--url", start, "--secret", secretVar, "--profile", "none")
	for _, args := range []map[string]any{
		{},
		{"selector": "#echo"},
		{"selector": "p", "fields": map[string]any{"t": "", "id": "@id"}},
	} {
		res, data := call(t, c, tools.Extract, args)
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
