package tools

import "github.com/chaperone-mcp/chaperone/browser"

// TabOf is the browser tab behind s, for tests that look at the page
// directly.
func TabOf(s *Session) *browser.Context { return s.tab }
