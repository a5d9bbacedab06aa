package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// StorageState is what a browser context keeps of a login: its cookies and
// the localStorage of its origins. Its JSON is the storage-state format
// Playwright writes and reads, so that a file saved by either works in the
// other. Cookie values are secrets: log names and counts only.
type StorageState struct {
	Cookies []Cookie        `json:"cookies"`
	Origins []OriginStorage `json:"origins"`
}

// Cookie is one cookie, as Playwright's storage state holds it.
type Cookie struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Domain string `json:"domain"`
	Path   string `json:"path"`
	// Expires is in seconds since the Unix epoch; -1 marks a session
	// cookie.
	Expires  float64 `json:"expires"`
	HTTPOnly bool    `json:"httpOnly"`
	Secure   bool    `json:"secure"`
	// SameSite is "Strict", "Lax" or "None".
	SameSite string `json:"sameSite"`
}

// OriginStorage is the localStorage of one origin.
type OriginStorage struct {
	// Origin is scheme://host[:port], with no path.
	Origin       string      `json:"origin"`
	LocalStorage []NameValue `json:"localStorage"`
}

// NameValue is one localStorage item.
type NameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CookieNames lists the names of the cookies, for logs that must not show
// their values.
func (s StorageState) CookieNames() []string {
	names := make([]string, len(s.Cookies))
	for i, c := range s.Cookies {
		names[i] = c.Name
	}
	return names
}

// ParseStorageState reads a storage state from its JSON and checks it. Its
// errors name the cookie or origin at fault, never a cookie's value.
func ParseStorageState(data []byte) (StorageState, error) {
	var s StorageState
	if err := json.Unmarshal(data, &s); err != nil {
		return StorageState{}, fmt.Errorf("not a storage state (JSON with cookies and origins): %w", err)
	}
	for i, c := range s.Cookies {
		if c.Name == "" {
			return StorageState{}, fmt.Errorf("cookie %d has no name", i)
		}
		if c.Domain == "" {
			return StorageState{}, fmt.Errorf("cookie %d (%q) has no domain", i, c.Name)
		}
		switch c.SameSite {
		case "", "Strict", "Lax", "None":
		default:
			return StorageState{}, fmt.Errorf("cookie %d (%q): sameSite %q: want Strict, Lax or None", i, c.Name, c.SameSite)
		}
	}
	for i, o := range s.Origins {
		u, err := url.Parse(o.Origin)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			return StorageState{}, fmt.Errorf("origin %d: %q is not an http or https origin (scheme://host[:port])", i, o.Origin)
		}
		for j, it := range o.LocalStorage {
			if it.Name == "" {
				return StorageState{}, fmt.Errorf("origin %q: localStorage item %d has no name", o.Origin, j)
			}
		}
	}
	return s, nil
}

// ReadStorageStateFile reads and checks a storage-state file.
func ReadStorageStateFile(path string) (StorageState, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return StorageState{}, fmt.Errorf("read the storage state: %w", err)
	}
	s, err := ParseStorageState(data)
	if err != nil {
		return StorageState{}, fmt.Errorf("storage state %s: %w", path, err)
	}
	return s, nil
}

// WriteStorageStateFile writes s to path, readable by its owner only (mode
// 0600, also when path existed with other permissions). The file is written
// whole or not at all.
func WriteStorageStateFile(path string, s StorageState) error {
	if s.Cookies == nil {
		s.Cookies = []Cookie{}
	}
	if s.Origins == nil {
		s.Origins = []OriginStorage{}
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the storage state: %w", err)
	}
	// CreateTemp makes the file 0600; the rename keeps that mode.
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write the storage state: %w", err)
	}
	_, werr := f.Write(append(data, '\n'))
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write the storage state: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write the storage state: %w", err)
	}
	return nil
}

// Raw storage commands: cdproto's cookie types are strict about enum values
// Chromium keeps adding (priority, source scheme, partition keys).
var (
	cmdSetCookies = cdp.Command[map[string]any, json.RawMessage]{Method: "Storage.setCookies"}
	cmdGetCookies = cdp.Command[map[string]any, getCookiesResult]{Method: "Storage.getCookies"}
)

type getCookiesResult struct {
	Cookies []struct {
		Cookie
		Session bool `json:"session"`
	} `json:"cookies"`
}

// origins is the set of origins a tab's pages visited, kept across the pages
// Recover replaces, for StorageState.
type origins struct {
	mu  sync.Mutex
	set map[string]struct{}
}

// add notes the origin of the URL u, if it is http or https.
func (o *origins) add(u string) {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return
	}
	o.mu.Lock()
	if o.set == nil {
		o.set = make(map[string]struct{})
	}
	o.set[p.Scheme+"://"+p.Host] = struct{}{}
	o.mu.Unlock()
}

// list returns the origins, sorted.
func (o *origins) list() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	l := make([]string, 0, len(o.set))
	for k := range o.set {
		l = append(l, k)
	}
	slices.Sort(l)
	return l
}

// LoadStorageState puts s into the tab's browser context: its cookies, and
// the localStorage of each of its origins, written on that origin in a
// hidden page of the context whose requests never reach the network. Load
// it before the tab opens a page that should see it. The tab keeps s: when
// Recover has to open a new context (the browser died), it loads s again.
func (t *Context) LoadStorageState(ctx context.Context, s StorageState) error {
	if t.b.opts.Attached {
		return fmt.Errorf("loading a storage state: %w", ErrAttachedStorage)
	}
	t.mu.Lock()
	t.loaded = &s
	t.mu.Unlock()
	if len(s.Cookies) > 0 {
		cookies := make([]map[string]any, len(s.Cookies))
		for i, c := range s.Cookies {
			p := map[string]any{"name": c.Name, "value": c.Value, "domain": c.Domain,
				"path": c.Path, "secure": c.Secure, "httpOnly": c.HTTPOnly}
			if c.Path == "" {
				p["path"] = "/"
			}
			if c.SameSite != "" {
				p["sameSite"] = c.SameSite
			}
			if c.Expires > 0 {
				p["expires"] = c.Expires
			}
			cookies[i] = p
		}
		_, s0, bctx := t.context()
		params := map[string]any{"cookies": cookies}
		if bctx != "" {
			params["browserContextId"] = bctx
		}
		c, cancel := within(ctx, s0.root, defaultCallTimeout)
		_, err := chromedp.CallBrowser(c, cmdSetCookies, params)
		cancel()
		if err != nil {
			// Chromium's message names the cookie that failed, never its value.
			return t.fail(fmt.Sprintf("setting %d cookies", len(s.Cookies)), err)
		}
	}
	for _, o := range s.Origins {
		if len(o.LocalStorage) == 0 {
			continue
		}
		items := make([][2]string, len(o.LocalStorage))
		for i, it := range o.LocalStorage {
			items[i] = [2]string{it.Name, it.Value}
		}
		expr, err := applyJS(setLocalStorageJS, items)
		if err != nil {
			return err
		}
		err = t.onOrigin(ctx, o.Origin, func(c context.Context) error { return evaluate(c, expr, nil) })
		if err != nil {
			return fmt.Errorf("writing the localStorage of %s: %w", o.Origin, err)
		}
		t.origins.add(o.Origin)
	}
	t.log.Debug("storage state loaded", "cookies", len(s.Cookies), "cookie_names", s.CookieNames(), "origins", len(s.Origins))
	return nil
}

// StorageState reads the tab's browser context: all its cookies, and the
// localStorage of every origin the tab's pages visited or LoadStorageState
// wrote (origins with none are left out, as Playwright does). It works after
// the tab's page went away, as long as the browser runs.
func (t *Context) StorageState(ctx context.Context) (StorageState, error) {
	if t.b.opts.Attached {
		return StorageState{}, fmt.Errorf("reading the storage state: %w", ErrAttachedStorage)
	}
	_, s0, bctx := t.context()
	params := map[string]any{}
	if bctx != "" {
		params["browserContextId"] = bctx
	}
	c, cancel := within(ctx, s0.root, defaultCallTimeout)
	res, err := chromedp.CallBrowser(c, cmdGetCookies, params)
	cancel()
	if err != nil {
		return StorageState{}, fmt.Errorf("reading the cookies: %w", err)
	}
	st := StorageState{Cookies: make([]Cookie, 0, len(res.Cookies)), Origins: []OriginStorage{}}
	for _, rc := range res.Cookies {
		c := rc.Cookie
		if rc.Session {
			c.Expires = -1
		}
		if c.SameSite == "" {
			// Chromium treats a cookie without SameSite as Lax, and
			// Playwright writes it so.
			c.SameSite = "Lax"
		}
		st.Cookies = append(st.Cookies, c)
	}
	for _, origin := range t.origins.list() {
		var items [][2]string
		err := t.onOrigin(ctx, origin, func(c context.Context) error {
			expr, _ := applyJS(readLocalStorageJS) // no arguments to encode
			return evaluate(c, expr, &items)
		})
		if err != nil {
			return StorageState{}, fmt.Errorf("reading the localStorage of %s: %w", origin, err)
		}
		if len(items) == 0 {
			continue
		}
		o := OriginStorage{Origin: origin, LocalStorage: make([]NameValue, len(items))}
		for i, it := range items {
			o.LocalStorage[i] = NameValue{Name: it[0], Value: it[1]}
		}
		st.Origins = append(st.Origins, o)
	}
	t.log.Debug("storage state read", "cookies", len(st.Cookies), "cookie_names", st.CookieNames(), "origins", len(st.Origins))
	return st, nil
}

// blankPage is what a page opened by onOrigin gets for every request.
var blankPage = []byte("<!doctype html><title></title>")

// onOrigin runs fn on a page of origin in the tab's browser context: a
// hidden target whose every request is answered with an empty page, so that
// the origin's storage is reachable without a byte going to the network. It
// closes the target afterwards.
func (t *Context) onOrigin(ctx context.Context, origin string, fn func(context.Context) error) error {
	_, s, bctx := t.context()
	c, cancel := within(ctx, s.root, defaultNavigateTimeout)
	defer cancel()
	created, err := chromedp.CallBrowser(c, target.CreateTarget, target.CreateTargetParams{
		URL: "about:blank", BrowserContextID: bctx, Hidden: new(true), Background: new(true),
	})
	if err != nil {
		return fmt.Errorf("opening a hidden page: %w", err)
	}
	var pctx context.Context
	pctx, pcancel := chromedp.NewContext(s.root, chromedp.WithTargetID(created.TargetID),
		chromedp.WithListener(func(ev any) {
			if ev, ok := ev.(*fetch.EventRequestPaused); ok {
				go fulfillBlank(pctx, ev.RequestID)
			}
		}))
	// Closing waits until the target is gone, which nothing here needs:
	// close in the background.
	defer func() { go pcancel() }()
	if err := firstRun(c, pcancel, func() error { return chromedp.Do(pctx) }); err != nil {
		// Cancelling closes only a target it attached to.
		id := created.TargetID
		cc, cancelClose := context.WithTimeout(s.root, closeTimeout)
		_, _ = chromedp.CallBrowser(cc, target.CloseTarget, target.CloseTargetParams{TargetID: id})
		cancelClose()
		return fmt.Errorf("attaching to a hidden page: %w", err)
	}
	pc, cancelCalls := within(c, pctx, defaultNavigateTimeout)
	defer cancelCalls()
	if _, err := chromedp.Call(pc, fetch.Enable, fetch.EnableParams{
		Patterns: []*fetch.RequestPattern{{URLPattern: "*"}},
	}); err != nil {
		return fmt.Errorf("intercepting the hidden page's requests: %w", err)
	}
	if err := chromedp.Do(pc, chromedp.Navigate(origin+"/")); err != nil {
		return fmt.Errorf("opening %s in a hidden page: %w", origin, err)
	}
	return fn(pc)
}

// fulfillBlank answers a paused request with an empty page.
func fulfillBlank(pctx context.Context, id fetch.RequestID) {
	c, cancel := context.WithTimeout(pctx, defaultCallTimeout)
	defer cancel()
	_, _ = chromedp.Call(c, fetch.FulfillRequest, fetch.FulfillRequestParams{
		RequestID:       id,
		ResponseCode:    200,
		ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "text/html; charset=utf-8"}},
		Body:            blankPage,
	})
}

// context returns the tab's page, its browser session and its browser
// context ("" for the default one).
func (t *Context) context() (*tabPage, *session, cdp.BrowserContextID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.pg, t.sess, t.bctx
}
