package snapshot_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// Build the snapshot of a page that package browser captured (here the last
// page of the demo site's cancellation flow, as recorded in testdata), then
// look up what the agent would read and act on.
func ExampleBuild() {
	data, err := os.ReadFile("testdata/captures/cancelled.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	var c capture.Page
	if err := json.Unmarshal(data, &c); err != nil {
		fmt.Println(err)
		return
	}
	s, table, next := snapshot.Build(&c, snapshot.Options{ViewportOnly: true}, 0)
	fmt.Println(s.Outline())
	if back, ok := s.Find("link", "Back"); ok {
		// The ref table is what an action on @e7 resolves through.
		fmt.Println(back.Ref, "is node", table[back.Ref].BackendNodeID != 0)
	}
	fmt.Println("next ref:", next)
	// Output:
	// @e0 link "StreamFlix"
	// @e1 link "Home"
	// @e2 link "Account"
	// @e3 link "Help Center"
	// @e4 heading "Your membership has been cancelled"
	// @e5 region "Confirmation"
	// @e6 heading "Confirmation"
	// @e7 link "Back to account"
	// @e8 link "Privacy"
	// @e9 link "Terms of Use"
	// @e7 is node true
	// next ref: 10
}

// Refs go on from where the previous snapshot of the session stopped, so that
// a ref never names two elements; the table ties each ref to its node.
func ExampleBuild_firstRef() {
	c := &capture.Page{
		URL:      "https://example.test/login",
		Title:    "Log in",
		Viewport: capture.Viewport{Width: 800, Height: 600},
		Frames: []capture.Frame{{FrameID: "MAIN", AX: []byte(`{"nodes":[
			{"nodeId":"1","role":{"type":"internalRole","value":"RootWebArea"},"childIds":["2","3"]},
			{"nodeId":"2","role":{"type":"role","value":"textbox"},"name":{"type":"computedString","value":"Email"},"parentId":"1"},
			{"nodeId":"3","role":{"type":"role","value":"button"},"name":{"type":"computedString","value":"Log in"},"parentId":"1"}
		]}`)}},
	}
	s, table, next := snapshot.Build(c, snapshot.Options{ViewportOnly: true}, 5)
	for _, e := range s.Elements {
		fmt.Println(e.Ref, e.Role, e.Name, table[e.Ref].Role)
	}
	fmt.Println("next ref:", next)
	// Output:
	// @e5 textbox Email textbox
	// @e6 button Log in button
	// next ref: 7
}

func ExampleValidate() {
	s, _, _ := snapshot.Build(&capture.Page{URL: "about:blank"}, snapshot.Options{}, 0)
	data, _ := json.Marshal(s)
	fmt.Println(snapshot.Validate(data))
	fmt.Println(snapshot.Validate([]byte(`{"elements": []}`)) != nil)
	// Output:
	// <nil>
	// true
}
