package main

import (
	"slices"
	"testing"

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// TestApproverChain pins which channels each --approver choice asks
// through, under each transport.
func TestApproverChain(t *testing.T) {
	const (
		elicitation = checkpoint.ChannelElicitation
		web         = checkpoint.ChannelWeb
		tty         = checkpoint.ChannelTTY
		webhook     = checkpoint.ChannelWebhook
	)
	cases := []struct {
		choice string
		over   mcpTransport
		want   []checkpoint.Channel // nil: refused
	}{
		{"auto", overStdio, []checkpoint.Channel{elicitation, web}},
		{"auto", overHTTP, []checkpoint.Channel{elicitation, web}},
		{"auto", inProcess, nil},
		{"elicitation", overStdio, []checkpoint.Channel{elicitation}},
		{"elicitation", overHTTP, []checkpoint.Channel{elicitation}},
		{"elicitation", inProcess, nil},
		{"web", overStdio, []checkpoint.Channel{web}},
		{"web", overHTTP, []checkpoint.Channel{web}},
		{"web", inProcess, []checkpoint.Channel{web}},
		{"tty", overStdio, []checkpoint.Channel{tty}},
		{"tty", overHTTP, []checkpoint.Channel{tty}},
		{"tty", inProcess, []checkpoint.Channel{tty}},
		{"webhook", overStdio, []checkpoint.Channel{webhook}},
		{"webhook", overHTTP, []checkpoint.Channel{webhook}},
		{"webhook", inProcess, []checkpoint.Channel{webhook}},
		{"", overStdio, nil},
		{"Web", overHTTP, nil},
		{"none", inProcess, nil},
	}
	for _, c := range cases {
		got, err := approverChain(c.choice, c.over)
		switch {
		case c.want == nil && (err == nil || err.Error() != `--approver "`+c.choice+`": want tty, web or webhook`):
			t.Errorf("approverChain(%q, %d) = %v, %v; want refused", c.choice, c.over, got, err)
		case c.want != nil && (err != nil || !slices.Equal(got, c.want)):
			t.Errorf("approverChain(%q, %d) = %v, %v; want %v", c.choice, c.over, got, err, c.want)
		}
	}
}
