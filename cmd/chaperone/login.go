package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// saveTimeout bounds reading the browser's storage state and writing it.
const saveTimeout = 30 * time.Second

// loginCmd opens a browser at a site for a person to sign in, then saves the
// browser's cookies and localStorage as a storage-state file, which serve,
// run and snapshot load with --storage-state.
func loginCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "login", "login URL --save FILE [flags]")
	save := fs.String("save", "", "write the login (cookies and localStorage, in the storage-state JSON Playwright writes) to this `file`, readable by you only (required)")
	cf := addCommonFlags(fs, "warn")
	// A person signs in, so the window shows unless told otherwise.
	cf.browser.headed = true
	fs.Lookup("headed").DefValue = "true"
	rest, err := parseFlags(fs, args, e.getenv)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return errors.New("say where to sign in: chaperone login URL --save FILE")
	}
	url := rest[0]
	if *save == "" {
		return errors.New("--save FILE is required: the file to write the login to")
	}
	if cf.browser.connect != "" {
		// Saving would copy the person's own cookies for the site into a
		// file; their browser is signed in already.
		return errors.New("--connect: login signs in a browser of Chaperone's and saves it; your own browser is signed in already: use serve --connect instead")
	}
	st, err := cf.setup(e.stderr)
	if err != nil {
		return err
	}
	if err := st.policy.Check(url); err != nil {
		return err
	}

	b, err := browser.Launch(ctx, st.browser)
	if err != nil {
		return err
	}
	defer func() {
		if err := b.Close(); err != nil {
			st.log.Warn("close the browser", "err", err)
		}
	}()
	tab, err := b.NewContext(ctx)
	if err != nil {
		return err
	}
	if path := st.fleet.StorageState; path != "" {
		// Start from an earlier login, to refresh it.
		state, err := browser.ReadStorageStateFile(path)
		if err == nil {
			err = tab.LoadStorageState(ctx, state)
		}
		if err != nil {
			return err
		}
	}
	if err := tab.Navigate(ctx, url); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "Sign in to %s in the browser window, then press Enter here (or close the window) to save the login to %s.\n",
		checkpoint.OneLine(url), checkpoint.OneLine(*save))
	done := make(chan struct{})
	go func() {
		// Enter, or the end of input, says the person is done.
		_, _ = bufio.NewReader(e.stdin).ReadString('\n')
		close(done)
	}()
	select {
	case <-done:
	case <-tab.Done():
		st.log.Debug("the login window was closed")
	case <-ctx.Done():
		return fmt.Errorf("login cancelled, nothing saved: %w", context.Cause(ctx))
	}

	sctx, cancel := context.WithTimeout(ctx, saveTimeout)
	defer cancel()
	state, err := tab.StorageState(sctx)
	if err != nil {
		return fmt.Errorf("read the login from the browser: %w", err)
	}
	if err := browser.WriteStorageStateFile(*save, state); err != nil {
		return err
	}
	st.log.Debug("login saved", "file", *save, "cookie_names", state.CookieNames())
	if len(state.Cookies) == 0 && len(state.Origins) == 0 {
		fmt.Fprintln(e.stderr, "The browser held no cookies and no localStorage: was the sign-in finished?")
	}
	fmt.Fprintf(e.stderr, "Saved %d cookies and the localStorage of %d origins to %s (readable by you only).\n"+
		"Sessions start signed in with: chaperone serve --storage-state %s\n",
		len(state.Cookies), len(state.Origins), checkpoint.OneLine(*save), checkpoint.OneLine(*save))
	return nil
}
