package tools

import (
	"fmt"
	"sync"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// formCheck judges, at the interceptor, the document requests the input of
// c causes, as Chromium is about to send them: the gate judged where a form
// goes (checkpoint.Action.SubmitsTo) before the input, but the page's
// keypress, click or submit handler can still rewrite the form's action,
// formaction or target, submit another form, or send the page elsewhere,
// after that last look. So a form's request (any document sent with a body
// or another method than GET, whichever action caused it; for an action
// judged to submit a form, any document request up to the first that
// navigates the page, the form's or a handler's stand-in for it, and the
// hops of their redirects) that sends data
// to a site outside the write set other than the one the gate judged (and a
// person allowed) is refused. A GET form's URL nesting another site's URL
// with data counts, as for a URL the agent composed (WriteSet.Sends): a form
// sent to the site's open redirect. A link the page holds stays ungated:
// a click judged not to submit is checked only for a form's POST. With no
// profile the write set's rule is off, and so is this check.
func (s *Session) formCheck(c *call) func(browser.Document) error {
	if s.gate.Profile() == nil {
		return nil
	}
	judged := ""
	if c.submits {
		judged, _ = checkpoint.Site(c.submitsTo)
	}
	judge := s.formJudge(c, s.writeSet(), judged)
	// The form's own request is the first that navigates the page, or one
	// before it (a frame or a window the form targets); after the first
	// let go, the frames of the page it loads are that page's own: only the
	// redirects of the page's navigation are still the form's.
	var mu sync.Mutex
	sent := false
	return func(d browser.Document) error {
		posted := d.HasBody || (d.Method != "" && d.Method != "GET")
		mu.Lock()
		after := sent && !(d.Redirect && d.Main)
		mu.Unlock()
		if !posted && (!c.submits || after) {
			return nil
		}
		err := judge(d, posted)
		if err == nil && d.Main {
			mu.Lock()
			sent = true
			mu.Unlock()
		}
		return err
	}
}

// formJudge is formCheck's judgement of one request, posted when it
// carries a form's body.
func (s *Session) formJudge(c *call, w checkpoint.WriteSet, judged string) func(d browser.Document, posted bool) error {
	return func(d browser.Document, posted bool) error {
		site, sends := w.Sends(d.URL)
		if !sends && posted && !w.Contains(d.URL) {
			// A body is data, whatever the URL holds.
			site, _ = checkpoint.Site(d.URL)
			sends = true
		}
		if !sends || (judged != "" && site == judged) {
			return nil
		}
		where := "no form of this page"
		if c.submits {
			where = c.submitsTo
		}
		return fmt.Errorf("the page sent the form somewhere other than where it was judged to go (%s): to %s, a site outside this session's write set; it was not sent", where, site)
	}
}
