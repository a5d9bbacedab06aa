package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestElicitationPlan: a plan reaches the client's user as a form with a
// box per site it writes on; a cleared box makes that site read-only, and
// nothing in the answer adds a site or write on a site read.
func TestElicitationPlan(t *testing.T) {
	t.Parallel()
	p, err := checkpoint.NewPlan([]string{"step\x1b[2J"}, []string{"https://аpple.com", "https://shop.example"}, []string{"https://docs.example"})
	if err != nil {
		t.Fatal(err)
	}
	r := checkpoint.Request{Kind: checkpoint.KindPlan, Action: "task", Plan: &p}
	form := approvalForm(r)
	if strings.Contains(form.Message, "\x1b") || !strings.Contains(form.Message, "https://xn--pple-43d.com: WRITE") {
		t.Errorf("message:\n%s", form.Message)
	}
	props := form.RequestedSchema.(map[string]any)["properties"].(map[string]any)
	if len(props) != 4 || props["write_site_0"].(map[string]any)["title"] != "Write on https://xn--pple-43d.com without asking" || props["write_site_2"] != nil {
		t.Errorf("form properties: %v", props)
	}
	got := planAnswer(r, map[string]any{"approve": true, "write_site_0": false, "write_site_2": true, "write_site_9": true})
	if fmt.Sprint(got.Sites) != "[{https://xn--pple-43d.com false} {https://shop.example true} {https://docs.example false}]" {
		t.Errorf("answer read as %v", got.Sites)
	}
	// A box answered in anything but a boolean true (a client that sends
	// the string "false", a 0, a null) is not a person's leave to write.
	for _, v := range []any{"false", "no", 0, nil, "true"} {
		got := planAnswer(r, map[string]any{"approve": true, "write_site_0": v})
		if got.Sites[0].Write {
			t.Errorf("write_site_0 answered %#v kept writing on %s", v, got.Sites[0].Site)
		}
	}
	d, err := decision(&mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"approve": true}}})
	if err != nil || !d.Approved {
		t.Errorf("decision %+v %v", d, err)
	}
}
