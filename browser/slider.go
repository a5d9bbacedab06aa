package browser

import (
	"context"
	_ "embed" // the slider script
	"fmt"
)

// sliderValueJS reads the value a slider shows.
//
//go:embed js/sliderValue.js
var sliderValueJS string

// SliderValue returns the value the node shows when it is a slider: its
// aria-valuetext or aria-valuenow, a range input's value, or, for a
// widget library's handle that says nothing of it, where the handle stands
// along its track ("55% along its track"). It returns "" for a node that is
// no slider.
func (t *Context) SliderValue(ctx context.Context, backendNodeID int64) (string, error) {
	var v string
	if err := t.callOn(ctx, nodeOf(backendNodeID), sliderValueJS, &v); err != nil {
		return "", fmt.Errorf("read the slider's value: %w", err)
	}
	return v, nil
}
