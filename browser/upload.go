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
// paths; the browser reads the files.
func (t *Context) SetFiles(ctx context.Context, backendNodeID int64, paths []string) error {
	r, err := t.route(ctx, nodeOf(backendNodeID))
	if err != nil {
		return fmt.Errorf("set the files of node %d: %w", backendNodeID, err)
	}
	defer r.cancel()
	if _, err := chromedp.Call(r.ctx, cmdSetFileInputFiles, map[string]any{"files": paths, "backendNodeId": r.local}); err != nil {
		return fmt.Errorf("set the files of node %d: %w", backendNodeID, err)
	}
	return nil
}

// ChooseFiles clicks the node at x, y, a control that opens a file chooser
// (a styled button over a hidden file input, a label), confirming the click
// reached it as ClickElement does, and answers the chooser with
// the files at paths instead of showing it. It returns the backend node id
// of the file input the chooser was for, ErrNoFileChooser when none opens
// within wait, and an error when the chooser takes one file and paths has
// more.
func (t *Context) ChooseFiles(ctx context.Context, backendNodeID int64, x, y float64, paths []string, wait time.Duration) (int64, error) {
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
	return fc.BackendNodeID, t.SetFiles(ctx, fc.BackendNodeID, paths)
}
