package browser

import (
	"context"
	_ "embed" // the stand-in script
	"fmt"
)

// standInJS finds and closes the list of a styled stand-in for a hidden
// native select.
//
//go:embed js/standIn.js
var standInJS string

// standIn is what standInJS reports.
type standIn struct {
	StandIn bool `json:"standIn"`
	Open    bool `json:"open"`
	Shows   bool `json:"shows"`
}

// leaveStandIn leaves the styled stand-in of a native select chosen by
// script as a person leaves it after picking from its list: the stand-in
// shows the value (its plugin listens to the change Select fired) and its
// list is closed. Plugins open their list when the hidden select takes
// focus, as choosing it does, and would leave it open over what follows
// (the next click was element_obscured). A select a person sees is left
// alone.
func (t *Context) leaveStandIn(ctx context.Context, node nodeID) error {
	var s standIn
	if err := t.callOn(ctx, node, standInJS, &s, "look"); err != nil {
		return fmt.Errorf("look at the select's stand-in: %w", err)
	}
	if !s.StandIn || !s.Open {
		return nil
	}
	if err := t.callOn(ctx, node, standInJS, &s, "close"); err != nil {
		return fmt.Errorf("close the select's stand-in: %w", err)
	}
	if s.Open {
		t.log.Debug("the list of a select's stand-in is still open after a click outside and Escape", "node", node)
	}
	return nil
}
