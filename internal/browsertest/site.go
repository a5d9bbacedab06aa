package browsertest

import (
	"net/http"
	"os"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
)

// siteHandler serves the embedded demo site.
func siteHandler() http.Handler { return fixtures.Site() }

// DirNames lists the names in dir, where a test's browser saved its
// downloads.
func DirNames(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}
