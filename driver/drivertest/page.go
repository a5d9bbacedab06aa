package drivertest

import (
	"fmt"
	"strings"
	"time"

	"github.com/chaperone-mcp/chaperone/snapshot"
)

// Page returns a snapshot of url with one button per name, refs @e1, @e2, …
// and padding text of pad characters (to make snapshots weigh).
func Page(url string, pad int, names ...string) *snapshot.Snapshot {
	s := &snapshot.Snapshot{ID: "snap-" + url, Page: snapshot.Page{URL: url, Title: url}, Text: strings.Repeat("x", pad)}
	for i, n := range names {
		s.Elements = append(s.Elements, snapshot.Element{Ref: fmt.Sprintf("@e%d", i+1), Role: "button", Name: n, State: []string{}})
	}
	return s
}

// ValidPage is a Page the server's output schema accepts: it has an id, a
// timestamp, a viewport, boxes and the screenshot's description.
func ValidPage(url string, names ...string) *snapshot.Snapshot {
	s := Page(url, 0, names...)
	s.ID = "0b9f6f2e-6a53-4c1e-9c1a-3f1d2b7c8e90"
	s.Timestamp = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	s.Viewport = snapshot.Viewport{Width: 1280, Height: 720}
	s.Screenshot = &snapshot.Screenshot{MIMEType: "image/png", Width: 160, Height: 90}
	for i := range s.Elements {
		s.Elements[i].BBox = snapshot.BBox{X: 10, Y: float64(10 + 40*i), Width: 100, Height: 30}
	}
	return s
}
