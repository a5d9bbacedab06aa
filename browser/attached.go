package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// The person's own browser (Options.Attached).
//
// Each tab works in a window of its own, opened in the browser's default
// context (Target.createTarget with newWindow), so several sessions work at
// once beside the person's tabs. The document policy is enforced by a
// Fetch interceptor on each of the tab's own targets (attachguard.go)
// instead of one on the browser's session, which would pause the person's
// requests too; the one browser-wide thing, the hold of new pages
// (popuphold.go), lets every page but the agent's popups go at once, with
// no request of theirs paused; downloads and storage state, which
// Chromium sets and reads per browser context, are refused, since the
// context is the person's. Titles and URLs are read per target of the
// tab; the browser's targets are listed only to pick a page's out-of-process
// frames out by their parent, and nothing else of the list is kept.
//
// The window is marked by a prefix on its pages' titles, written from an
// isolated world that the page cannot reach and kept there as the page
// changes its title: Chrome shows the title in the window's title bar and
// the tab strip. Tab groups, the other mark a person would see, have no
// DevTools command.

// WindowMark is the prefix of the titles of the agent's pages in the
// person's own browser (Options.Attached), which shows the person which
// window is the agent's. The titles the tab reports leave it out.
const WindowMark = "🤖 Chaperone — "

// Errors of the things the person's own browser does not allow.
var (
	// ErrAttachedStorage is returned when a storage state would be loaded
	// into, or read out of, the person's own browser: its profile holds
	// the person's own cookies and logins.
	ErrAttachedStorage = errors.New("storage state is neither loaded into nor read from the person's own browser (--connect): its cookies and logins are the person's; sign in there, or use a launched browser with --storage-state")
	// ErrAttachedDownloads is returned when downloads would be set up in
	// the person's own browser: Chromium sets where files go for the
	// whole profile, which would change the person's own downloads.
	ErrAttachedDownloads = errors.New("downloads are off in the person's own browser (--connect): setting where files go would change the person's own downloads")
)

// markWindowJS keeps WindowMark at the front of the top document's title.
// It runs in an isolated world (the page cannot reach its functions or
// stop its observer). A page that takes the mark off again and again is
// given it back 200 times and then left alone, so that the two never loop
// for ever; the person then sees the window's pages without it. The
// world's unmarkWindow stops it and gives the page its own title back
// (unmarkWindowJS), for a tab of the person's the session leaves.
const markWindowJS = `(() => {
  if (window.top !== window || !(document instanceof HTMLDocument)) return;
  // A title is read back without its trailing space: an empty one marked
  // is the mark without it.
  const mark = %q, bare = mark.trimEnd();
  let fights = 0, stopped = false, observer = null;
  const fix = () => {
    if (stopped || document.title.startsWith(bare) || fights > 200) return;
    fights++;
    document.title = mark + document.title;
  };
  const watch = () => {
    if (stopped) return;
    fix();
    observer = new MutationObserver(fix);
    observer.observe(document, {subtree: true, childList: true, characterData: true});
  };
  globalThis.unmarkWindow = () => {
    stopped = true;
    if (observer) observer.disconnect();
    if (document.title.startsWith(mark)) document.title = document.title.slice(mark.length);
    else if (document.title === bare) document.title = '';
  };
  if (document.documentElement) watch();
  else document.addEventListener('readystatechange', watch, {once: true});
})()`

// unmarkWindowJS, in the mark's world, stops markWindowJS and takes the
// mark off the title.
const unmarkWindowJS = `globalThis.unmarkWindow && globalThis.unmarkWindow(), true`

// markWorld is the isolated world markWindowJS runs in.
const markWorld = "chaperone-window-mark"

var (
	cmdAddScriptOnNewDocument    = cdp.Command[map[string]any, map[string]any]{Method: "Page.addScriptToEvaluateOnNewDocument"}
	cmdRemoveScriptOnNewDocument = cdp.Command[map[string]any, map[string]any]{Method: "Page.removeScriptToEvaluateOnNewDocument"}
)

// markWindow makes every document of the target of c carry WindowMark in
// its title, the one loaded now included; it returns the script's
// identifier, for unmarkWindow.
func markWindow(c context.Context) (string, error) {
	res, err := chromedp.Call(c, cmdAddScriptOnNewDocument, map[string]any{
		"source": fmt.Sprintf(markWindowJS, WindowMark), "worldName": markWorld, "runImmediately": true,
	})
	if err != nil {
		return "", fmt.Errorf("marking the window: %w", err)
	}
	id, _ := res["identifier"].(string)
	return id, nil
}

// unmarkWindow undoes markWindow through the same session of c (the mark's
// world is that session's): later documents are not marked, and the one
// loaded now has its own title back, with nothing of the mark left running
// in it. A tab of the person's that the session leaves is theirs as it was.
func unmarkWindow(c context.Context, script string) error {
	if script != "" {
		if _, err := chromedp.Call(c, cmdRemoveScriptOnNewDocument, map[string]any{"identifier": script}); err != nil {
			return fmt.Errorf("unmarking the window: %w", err)
		}
	}
	tree, err := chromedp.Call(c, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return fmt.Errorf("unmarking the window: %w", err)
	}
	if tree.FrameTree == nil || tree.FrameTree.Frame == nil {
		return nil // no document to unmark
	}
	world, err := chromedp.Call(c, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: tree.FrameTree.Frame.ID, WorldName: markWorld})
	if err != nil {
		return fmt.Errorf("unmarking the window: %w", err)
	}
	if _, err := chromedp.Call(c, runtime.Evaluate, runtime.EvaluateParams{Expression: unmarkWindowJS, ContextID: world.ExecutionContextID}); err != nil {
		return fmt.Errorf("unmarking the window: %w", err)
	}
	return nil
}

// unmark is a title as the page set it, without WindowMark.
func unmark(title string) string {
	if title == strings.TrimRight(WindowMark, " ") {
		return "" // an empty title, marked: the browser trims the space
	}
	return strings.TrimPrefix(title, WindowMark)
}

// openWindow opens a blank page in a new window of the person's browser,
// in its default context, and starts judging its documents before anything
// loads in it. The page is the tab's: openPage attaches to it.
func (t *Context) openWindow(ctx context.Context, s *session) (target.ID, error) {
	c, cancel := within(ctx, s.root, defaultCallTimeout)
	defer cancel()
	res, err := chromedp.CallBrowser(c, target.CreateTarget, target.CreateTargetParams{
		URL: "about:blank", NewWindow: new(true),
	})
	if err != nil {
		return "", fmt.Errorf("opening a window: %w", err)
	}
	if err := t.guardPage(ctx, s, res.TargetID); err != nil {
		closeTarget(s, res.TargetID)
		return "", err
	}
	return res.TargetID, nil
}

// closeTarget closes one of the tab's own targets, in the background of a
// short deadline of its own.
func closeTarget(s *session, id target.ID) {
	if s == nil || s.root.Err() != nil {
		return
	}
	c, cancel := context.WithTimeout(s.root, closeTimeout)
	defer cancel()
	_, _ = chromedp.CallBrowser(c, target.CloseTarget, target.CloseTargetParams{TargetID: id})
}

// closeUnattached closes the tab's pages it never attached to (popups that
// never became current), which closing the tab would otherwise leave open
// in the person's browser: there is no browser context of the tab's to
// dispose of.
func (t *Context) closeUnattached(s *session, pages []*tabPage) {
	for _, p := range pages {
		if p.ctx == nil && !p.info.gone && !p.handed {
			closeTarget(s, p.id)
		}
	}
}

// refreshAttached reads the titles and URLs of the tab's own pages, one
// target at a time.
func (t *Context) refreshAttached(s *session) {
	t.mu.Lock()
	ids := make([]target.ID, 0, len(t.pages.list))
	for _, p := range t.pages.list {
		ids = append(ids, p.id)
	}
	t.mu.Unlock()
	for _, id := range ids {
		c, cancel := context.WithTimeout(s.root, refreshTimeout)
		res, err := chromedp.CallBrowser(c, target.GetTargetInfo, target.GetTargetInfoParams{TargetID: id})
		cancel()
		if err != nil || res.TargetInfo == nil {
			continue
		}
		t.mu.Lock()
		if i := t.pages.find(id); i >= 0 {
			info := &t.pages.list[i].info
			info.title, info.url = unmark(res.TargetInfo.Title), res.TargetInfo.URL
		}
		t.mu.Unlock()
	}
}

// guardPopup guards a popup that joined the tab. The browser's hold
// (popuphold.go) judged its documents until now, and is told to stop once
// the guard is up. Should the hold have missed it (it was not running),
// the document it opened with, which may then have been requested before
// the guard was up, is judged too: a refused one closes the popup, and is
// reported as the policy's refusals are. It runs in an event loop: the
// work goes to the background. t.mu is held.
func (t *Context) guardPopup(id target.ID) {
	if !t.b.opts.Attached || t.sess == nil {
		return
	}
	s := t.sess
	go func() {
		if err := t.guardPage(s.root, s, id); err != nil {
			if s.root.Err() == nil {
				t.log.Warn("a popup could not be guarded: it is closed", "err", err)
				closeTarget(s, id)
			}
			return
		}
		t.b.releaseHold(id)
		t.judgeOpened(s, id)
	}()
}

// judgeOpened judges the document a popup of the tab opened with, once its
// guard is up, and closes the popup when the policy refuses it.
func (t *Context) judgeOpened(s *session, id target.ID) {
	policy := t.b.opts.DocumentPolicy
	if policy == nil {
		return
	}
	c, cancel := context.WithTimeout(s.root, policyTimeout)
	defer cancel()
	info, err := chromedp.CallBrowser(c, target.GetTargetInfo, target.GetTargetInfoParams{TargetID: id})
	if err != nil || info.TargetInfo == nil {
		return
	}
	u := info.TargetInfo.URL
	if u == "" || u == "about:blank" {
		return // its first document is still to come, and the guard judges it
	}
	perr := policy(c, u)
	if perr == nil {
		return
	}
	t.b.refused.add(refusal{Blocked: Blocked{URL: shortURL(u), Reason: perr.Error(), Page: true}, frame: cdp.FrameID(id), owner: t})
	t.b.refused.closing(cdp.FrameID(id))
	t.log.Info("document blocked by policy", "url", shortURL(u), "reason", perr.Error())
	closeTarget(s, id)
}
