package urlpolicy_test

import (
	"fmt"

	"github.com/chaperone-mcp/chaperone/urlpolicy"
)

// The zero policy allows the web and refuses what would hand a cloud
// instance's credentials, or a local file, to whoever drives the browser.
func ExamplePolicy_Check() {
	var p urlpolicy.Policy
	for _, u := range []string{"https://example.com/", "http://169.254.169.254/latest/meta-data/", "file:///etc/passwd"} {
		fmt.Println(p.Check(u) == nil)
	}
	// Output:
	// true
	// false
	// false
}
