package browser

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/chromedp/chromedp"
)

// Inspection is what the check before an action found out about a node, in
// one look: whether it is still there and the same, whether it can be acted
// on, and where to act.
type Inspection struct {
	// AXRole and AXName are the node's role and accessible name now.
	AXRole string
	AXName string
	// DocumentURL is the URL of the document that holds the node.
	DocumentURL string
	Tag         string
	InputType   string
	Editable    bool
	Disabled    bool
	ReadOnly    bool
	Scrollable  bool
	// Visible is false when the node has no box to act on.
	Visible bool
	// X and Y are the click point in main-viewport CSS pixels.
	X, Y float64
	// Covered names what a hit test at the click point landed on, when that
	// is not the node or inside it; empty otherwise.
	Covered string
}

// inspectResult is what inspectJS reports.
type inspectResult struct {
	Connected   bool    `json:"connected"`
	DocumentURL string  `json:"documentURL"`
	Tag         string  `json:"tag"`
	InputType   string  `json:"inputType"`
	Editable    bool    `json:"editable"`
	Disabled    bool    `json:"disabled"`
	ReadOnly    bool    `json:"readOnly"`
	Scrollable  bool    `json:"scrollable"`
	Visible     bool    `json:"visible"`
	X           float64 `json:"x"`
	Y           float64 `json:"y"`
	Covered     string  `json:"covered"`
}

type axValue struct {
	Value json.RawMessage `json:"value"`
}

func (v *axValue) String() string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(v.Value, &s) == nil {
		return s
	}
	return string(v.Value)
}

type partialAXTree struct {
	Nodes []struct {
		Ignored          bool     `json:"ignored"`
		Role             *axValue `json:"role"`
		Name             *axValue `json:"name"`
		BackendDOMNodeID int64    `json:"backendDOMNodeId"`
	} `json:"nodes"`
}

// Inspect checks a node before an action: the accessibility tree's role and
// name for it now and, in the same moment, its document, state, box and what
// a hit test at its click point lands on. With scroll, a node outside the
// viewport is scrolled into view first. It returns ErrDetached when the node
// is gone.
func (t *Tab) Inspect(ctx context.Context, backendNodeID int64, scroll bool) (*Inspection, error) {
	type axAnswer struct {
		role, name string
		err        error
	}
	axc := make(chan axAnswer, 1)
	go func() {
		c, cancel := t.cdp(ctx)
		defer cancel()
		tree, err := chromedp.Call(c, cmdPartialAXTree, map[string]any{"backendNodeId": backendNodeID, "fetchRelatives": false})
		if err != nil {
			axc <- axAnswer{err: err}
			return
		}
		for _, n := range tree.Nodes {
			if n.BackendDOMNodeID == backendNodeID {
				axc <- axAnswer{role: n.Role.String(), name: n.Name.String()}
				return
			}
		}
		axc <- axAnswer{}
	}()
	var r inspectResult
	err := t.callOn(ctx, backendNodeID, inspectJS, &r, scroll)
	ax := <-axc
	if err != nil {
		return nil, fmt.Errorf("inspect node %d: %w", backendNodeID, err)
	}
	if !r.Connected {
		return nil, fmt.Errorf("inspect node %d: %w", backendNodeID, ErrDetached)
	}
	if ax.err != nil {
		return nil, fmt.Errorf("inspect node %d: accessibility: %w", backendNodeID, ax.err)
	}
	return &Inspection{
		AXRole: ax.role, AXName: ax.name,
		DocumentURL: r.DocumentURL, Tag: r.Tag, InputType: r.InputType, Editable: r.Editable,
		Disabled: r.Disabled, ReadOnly: r.ReadOnly, Scrollable: r.Scrollable,
		Visible: r.Visible, X: r.X, Y: r.Y, Covered: r.Covered,
	}, nil
}
