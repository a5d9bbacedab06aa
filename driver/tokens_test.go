package driver_test

import (
	"testing"

	"github.com/chaperone-mcp/chaperone/driver"
	"github.com/chaperone-mcp/chaperone/driver/drivertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

func TestEstimateTokens(t *testing.T) {
	t.Parallel()
	png, err := drivertest.Screenshot(1) // 160×90
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		req  driver.Request
		want int
	}{
		{"text", driver.Request{System: "12345678", Messages: []driver.Message{{Role: driver.RoleUser, Content: []driver.Block{driver.Text("abcd")}}}}, 3},
		{"image", driver.Request{Messages: []driver.Message{{Role: driver.RoleUser, Content: []driver.Block{driver.ImageOf(png)}}}}, 20},
		{"unreadable image", driver.Request{Messages: []driver.Message{{Role: driver.RoleUser, Content: []driver.Block{driver.ImageOf(&toolapi.Image{Data: []byte("?")})}}}}, driver.UnknownImageTokens},
		{"tool result", driver.Request{Messages: []driver.Message{{Role: driver.RoleUser, Content: []driver.Block{driver.ToolResultOf("x", false, driver.Text("abcdefgh"), driver.ImageOf(png))}}}}, 22},
	}
	for _, tt := range tests {
		if got := driver.EstimateTokens(tt.req); got != tt.want {
			t.Errorf("%s: %d tokens, want %d", tt.name, got, tt.want)
		}
	}
}
