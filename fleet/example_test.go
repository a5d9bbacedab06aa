package fleet_test

import (
	"context"
	"fmt"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/fleet"
)

// A fleet of two remote browsers: each context opens on the least-loaded
// endpoint that is up, and one whose browser died moves to the other.
func Example() {
	ctx := context.Background()
	f, err := fleet.New(ctx, browser.Options{}, fleet.Config{
		Pool: []string{"http://127.0.0.1:9222", "http://127.0.0.1:9223"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	l, err := f.Open(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := l.Context.Navigate(ctx, "http://127.0.0.1:8080/"); err != nil && l.Pooled() && !l.Context.Alive() {
		// Move spends the old lease, whatever it returns.
		if l, err = l.Move(ctx); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("moved to", l.Where())
	}
	l.Close()
}
