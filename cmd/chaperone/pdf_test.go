package main

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// pdfNote is what a snapshot of the guide says of it.
const pdfNote = "This page is a PDF of 3 pages: browser_extract reads its text, page by page."

// TestPDFReadsPageByPage opens the guide by its link: the action's snapshot
// and get_snapshot say the page is a PDF of three pages, and
// browser_extract reads every line of it, in order, a heading per page,
// across several calls at a small budget; a selector on a PDF is
// invalid_params.
func TestPDFReadsPageByPage(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/variants/documents", "--profile", "none")
	r, s := click(t, c, browsertest.Ref(t, getSnapshot(t, c), "link", "Member guide (PDF)"))
	if !r.Success || !strings.HasSuffix(s.Page.URL, "/files/guide.pdf") {
		t.Fatalf("click the guide's link: success %v, %q, at %s", r.Success, r.Message, s.Page.URL)
	}
	if !slices.Contains(s.Notes, pdfNote) {
		t.Errorf("the click's snapshot does not say it is a PDF: %q", s.Notes)
	}
	if s := getSnapshot(t, c); !slices.Contains(s.Notes, pdfNote) {
		t.Errorf("get_snapshot does not say it is a PDF: %q", s.Notes)
	}

	pages := extractAll(t, c, map[string]any{"max_tokens": 100})
	if len(pages) < 3 {
		t.Errorf("%d calls at 100 tokens, want the guide cut over several", len(pages))
	}
	var want []string
	for i, p := range fixtures.GuidePages() {
		want = append(want, "## Page "+string(rune('1'+i)))
		want = append(want, strings.Split(p, "\n")...)
	}
	var got []string
	for _, p := range pages {
		got = append(got, strings.Split(strings.TrimSpace(p), "\n")...)
	}
	got = slices.DeleteFunc(got, func(l string) bool { return l == "" })
	if !slices.Equal(got, want) {
		t.Errorf("the guide read as\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	out, text := extractCall(t, c, map[string]any{})
	if !out.Success || !strings.Contains(out.Message, "This page is a PDF of 3 pages.") || !strings.Contains(out.Message, "Pages 1–3: the end.") || !strings.Contains(text, "Reference code: GUIDE-REF-4417.") {
		t.Errorf("one call at the default budget: success %v, %q:\n%s", out.Success, out.Message, text)
	}

	out, _ = extractCall(t, c, map[string]any{"selector": "p"})
	if out.Success || out.Error == nil || *out.Error != string(toolapi.InvalidParams) || !strings.Contains(out.Message, "PDF") {
		t.Errorf("a selector on a PDF: success %v, error %v, %q", out.Success, out.Error, out.Message)
	}
}

// TestPDFBehindASignIn reads a PDF the server gives only with the session's
// cookie: the bytes are fetched through the browser, which sends it. The
// same address without the cookie is the server's refusal, a text page, and
// no PDF is announced.
func TestPDFBehindASignIn(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/files/guide.pdf?cookie=sid", "--profile", "none")
	if s := getSnapshot(t, c); slices.Contains(s.Notes, pdfNote) || !strings.Contains(s.Text, "sign in first") {
		t.Errorf("without the cookie: notes %q, text %q", s.Notes, s.Text)
	}
	navigate := func(url string) *snapshot.Snapshot {
		t.Helper()
		r, s := act(t, c, toolapi.Navigate, map[string]any{"url": url})
		if !r.Success {
			t.Fatalf("navigate %s: %v %q", url, r.Error, r.Message)
		}
		return s
	}
	navigate(site.URL + "/variants/signin?as=ada")
	if s := navigate(site.URL + "/files/guide.pdf?cookie=sid"); !slices.Contains(s.Notes, pdfNote) {
		t.Errorf("signed in, the snapshot does not say it is a PDF: %q", s.Notes)
	}
	out, _ := extractCall(t, c, map[string]any{})
	if !out.Success || !strings.Contains(out.Markdown, "## Page 3\nPage three: refunds and help.") {
		t.Errorf("signed in: success %v, %q:\n%s", out.Success, out.Message, out.Markdown)
	}
}
