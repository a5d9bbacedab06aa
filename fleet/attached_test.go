package fleet_test

import (
	"context"
	"errors"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/fleet"
)

// A storage state is refused at the start in the person's own browser: it
// would be written into their profile, over their own cookies.
func TestStorageStateRefusedInPersonsBrowser(t *testing.T) {
	opts := browser.Options{CDPEndpoint: "http://127.0.0.1:9", Attached: true}
	_, err := fleet.New(context.Background(), opts, fleet.Config{StorageState: "state.json"})
	if !errors.Is(err, browser.ErrAttachedStorage) {
		t.Fatalf("fleet.New = %v, want ErrAttachedStorage", err)
	}
}
