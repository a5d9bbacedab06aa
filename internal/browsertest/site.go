package browsertest

import (
	"net/http"

	"github.com/chaperone-mcp/chaperone/fixtures"
)

// siteHandler serves the embedded demo site.
func siteHandler() http.Handler { return fixtures.Site() }
