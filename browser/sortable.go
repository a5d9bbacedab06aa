package browser

import (
	"context"
	_ "embed" // the list script
	"fmt"

	"github.com/chromedp/chromedp"
)

// listPlaceJS says where two elements stand as items of one list.
//
//go:embed js/listPlace.js
var listPlaceJS string

// ListPlace is where a dragged element and its drop target stand when both
// are items of one list (a sortable list): the nearest ancestors of each
// that are children of one element.
type ListPlace struct {
	// List is false when the two are not items of one list; nothing else
	// is set then.
	List bool `json:"list"`
	// From and To are the indexes of the dragged item and of the target
	// among the list's shown items; Count is how many there are.
	From  int `json:"from"`
	To    int `json:"to"`
	Count int `json:"count"`
	// Horizontal is set for a list that runs left to right.
	Horizontal bool `json:"horizontal"`
	// Box is the target item's box in the main viewport's CSS pixels.
	Box Box `json:"box"`
	// Items are the shown items' texts in order, the first 40, each cut
	// to 60 characters.
	Items []string `json:"items"`
	// FromNode and ToNode are the backend node ids it was read for.
	FromNode, ToNode int64 `json:"-"`
}

// ListPlace reads where from and to stand as items of one list. Both must
// be in the page's own process (an out-of-process frame's list is read as
// no list); it returns an error when either is gone.
func (t *Context) ListPlace(ctx context.Context, from, to int64) (ListPlace, error) {
	lp := ListPlace{FromNode: from, ToNode: to}
	fn, tn := nodeOf(from), nodeOf(to)
	if fn.frame != 0 || tn.frame != 0 {
		return lp, nil
	}
	a, err := t.node(ctx, fn)
	if err != nil {
		return lp, fmt.Errorf("read the list: %w", err)
	}
	defer a.release(ctx)
	b, err := t.node(ctx, tn)
	if err != nil {
		return lp, fmt.Errorf("read the list: %w", err)
	}
	defer b.release(ctx)
	c, cancel := a.cdp(ctx)
	defer cancel()
	res, err := chromedp.Call(c, cmdCallFunctionOn, map[string]any{
		"objectId": a.id, "functionDeclaration": listPlaceJS,
		"arguments":     []map[string]any{{"objectId": b.id}},
		"returnByValue": true,
	})
	if err != nil {
		return lp, fmt.Errorf("read the list: %w", err)
	}
	if err := res.decode(&lp); err != nil {
		lp.List = false
		return lp, fmt.Errorf("read the list: %w", err)
	}
	return lp, nil
}

// DropPoint is where a person drops an item on the target item of a list
// to put it in the target's place: past the target's midpoint in the
// direction of the drag (below it going down, above it going up, beyond it
// to the right or left), so that a list that moves items as the pointer
// passes midpoints puts it on the side asked. x, y is the pointer's point
// on the target, kept across the list.
func (lp ListPlace) DropPoint(x, y float64) (float64, float64) {
	after := lp.To > lp.From
	at := func(start, size float64) float64 {
		if after {
			return start + size*0.75
		}
		return start + size*0.25
	}
	if lp.Horizontal {
		return at(lp.Box.X, lp.Box.Width), y
	}
	return x, at(lp.Box.Y, lp.Box.Height)
}
