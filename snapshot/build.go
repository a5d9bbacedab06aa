package snapshot

import "github.com/chaperone-mcp/chaperone/browser"

// Options bounds what a snapshot shows.
type Options struct {
	// ViewportOnly leaves out elements outside the viewport.
	ViewportOnly bool
	// MaxElements caps the elements (default 100).
	MaxElements int
	// TokenBudget caps the elements' JSON in estimated tokens (default 2000).
	TokenBudget int
	// TextBudget caps the page text in bytes (default 2048).
	TextBudget int
}

// Build turns a capture into a snapshot whose refs start at @e{firstRef}. It
// returns the snapshot, its ref table and the next free ref number.
func Build(c *browser.Capture, opts Options, firstRef int) (*Snapshot, Table, int) {
	return &Snapshot{}, Table{}, firstRef
}
