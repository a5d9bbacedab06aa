package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// ErrNoFileChooser reports a click that opened no file chooser.
var ErrNoFileChooser = errors.New("no file chooser opened")

var (
	cmdSetFileInputFiles    = cdp.Command[map[string]any, json.RawMessage]{Method: "DOM.setFileInputFiles"}
	cmdInterceptFileChooser = cdp.Command[map[string]any, json.RawMessage]{Method: "Page.setInterceptFileChooserDialog"}
	evFileChooserOpened     = cdp.Event[fileChooserOpened]{Method: "Page.fileChooserOpened"}
)

type fileChooserOpened struct {
	Mode          string `json:"mode"`
	BackendNodeID int64  `json:"backendNodeId"`
}

// SetFiles gives a file input the files at paths, as choosing them in its
// file chooser would: the input fires input and change. The caller vets the
// paths; the browser reads the files. want is each file's name and size,
// what a person approved: when the input would not take them as they are
// (the page made it a single-file input, a folder picker, or no file input
// at all), or holds other files once given them, the page hears no input
// or change event of it, the input keeps the files it had, and the error is
// a *ChangedError.
func (t *Context) SetFiles(ctx context.Context, backendNodeID int64, paths []string, want []FileInfo) error {
	node := nodeOf(backendNodeID)
	r, err := t.route(ctx, node)
	if err != nil {
		return fmt.Errorf("set the files of node %d: %w", backendNodeID, err)
	}
	defer r.cancel()
	n, err := t.node(ctx, node)
	if err != nil {
		return fmt.Errorf("set the files of node %d: %w", backendNodeID, err)
	}
	if want == nil {
		want = []FileInfo{}
	}
	guard, err := n.object(ctx, guardFilesJS, want)
	n.release(ctx)
	if err != nil {
		return fmt.Errorf("set the files of node %d: guard the input: %w", backendNodeID, err)
	}
	defer guard.release(ctx)
	var g struct {
		OK      bool   `json:"ok"`
		Blocked bool   `json:"blocked"`
		Now     string `json:"now"`
	}
	if err := guard.call(ctx, readGuardJS, &g, false); err != nil {
		return fmt.Errorf("set the files of node %d: read the guard: %w", backendNodeID, err)
	}
	if !g.OK {
		return &ChangedError{Input: "upload", Now: "the file input changed: " + g.Now}
	}
	_, err = chromedp.Call(r.ctx, cmdSetFileInputFiles, map[string]any{"files": paths, "backendNodeId": r.local})
	if rerr := guard.call(ctx, readGuardJS, &g, true); rerr != nil && err == nil {
		return fmt.Errorf("set the files of node %d: read the guard: %w", backendNodeID, rerr)
	}
	if err != nil {
		return fmt.Errorf("set the files of node %d: %w", backendNodeID, err)
	}
	if g.Blocked {
		return &ChangedError{Input: "upload", Now: "the file input did not hold the approved files: " + g.Now}
	}
	return nil
}

// ChooseFiles clicks the node at x, y, a control that opens a file chooser
// (a styled button over a hidden file input, a label), confirming the click
// reached it as ClickElement does, and answers the chooser with the files
// at paths instead of showing it (SetFiles, with want). It returns the
// backend node id of the file input the chooser was for, ErrNoFileChooser
// when none opens within wait, and an error when the chooser takes one file
// and paths has more.
func (t *Context) ChooseFiles(ctx context.Context, backendNodeID int64, x, y float64, paths []string, want []FileInfo, wait time.Duration) (int64, error) {
	opened, stop, err := intercept(ctx, t, cmdInterceptFileChooser, evFileChooserOpened)
	if err != nil {
		return 0, fmt.Errorf("intercept the file chooser: %w", err)
	}
	defer stop()
	if err := t.ClickElement(ctx, backendNodeID, x, y); err != nil {
		return 0, err
	}
	var fc fileChooserOpened
	select {
	case fc = <-opened:
	case <-time.After(wait):
		return 0, ErrNoFileChooser
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	if fc.Mode == "selectSingle" && len(paths) > 1 {
		return 0, fmt.Errorf("the file chooser takes one file, not %d", len(paths))
	}
	return fc.BackendNodeID, t.SetFiles(ctx, fc.BackendNodeID, paths, want)
}
