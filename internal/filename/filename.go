// Package filename makes names from elsewhere (a session's, a request's)
// safe to put in a file name.
package filename

import "strings"

// Safe keeps ASCII letters, digits, dot, dash and underscore, and turns
// every other character into an underscore, so that s can never name another
// directory.
func Safe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, s)
}
