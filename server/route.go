package server

import (
	"fmt"
	"regexp"
	"strings"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// validRoute is what a session route may be: a name a load balancer's
// pattern can match at the end of a header, and nothing a header or a
// pattern would read as syntax.
var validRoute = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// checkRoute returns an error, for the person starting the server, when
// route cannot end a session id.
func checkRoute(route string) error {
	if route != "" && !validRoute.MatchString(route) {
		return fmt.Errorf("session route %q: want 1 to 32 letters, digits, '-' or '_'", route)
	}
	return nil
}

// routedSessions issues streamable HTTP session ids that end in
// ".<route>", the replica's name, so that a load balancer that cannot learn
// an id from a response (nginx without its commercial sticky module) routes
// each later request by the id's end. It keeps mcp-go's stateful checks:
// an id this replica did not issue, under this route, is unknown (404),
// and the client re-initializes.
type routedSessions struct {
	suffix string // "." + the route
	ids    mcpserver.InsecureStatefulSessionIdManager
}

// newRoutedSessions issues ids ending in ".<route>", or plain ids for the
// route "".
func newRoutedSessions(route string) *routedSessions {
	if route == "" {
		return &routedSessions{}
	}
	return &routedSessions{suffix: "." + route}
}

// issued reports whether id names a live session this replica issued:
// mcp-go checks that on POST, and not on the GET that opens a stream.
func (m *routedSessions) issued(id string) bool {
	terminated, err := m.Validate(id)
	return err == nil && !terminated
}

// Generate implements mcpserver.SessionIdManager.
func (m *routedSessions) Generate() string { return m.ids.Generate() + m.suffix }

// Validate implements mcpserver.SessionIdManager.
func (m *routedSessions) Validate(id string) (isTerminated bool, err error) {
	base, ok := strings.CutSuffix(id, m.suffix)
	if !ok {
		return false, fmt.Errorf("session %q: not issued by this replica", id)
	}
	return m.ids.Validate(base)
}

// Terminate implements mcpserver.SessionIdManager.
func (m *routedSessions) Terminate(id string) (isNotAllowed bool, err error) {
	base, ok := strings.CutSuffix(id, m.suffix)
	if !ok {
		return false, nil
	}
	return m.ids.Terminate(base)
}
