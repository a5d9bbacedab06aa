package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// TestApproverChain pins which channels each --approver choice asks
// through, under each transport, with stdin a terminal or not.
func TestApproverChain(t *testing.T) {
	t.Parallel()
	const (
		elicitation = checkpoint.ChannelElicitation
		web         = checkpoint.ChannelWeb
		tty         = checkpoint.ChannelTTY
		webhook     = checkpoint.ChannelWebhook
	)
	const (
		serveChoices = "want auto, elicitation, tty, web or webhook"
		runChoices   = "want auto, tty, web or webhook"
	)
	cases := []struct {
		choice   string
		over     mcpTransport
		terminal bool
		want     []checkpoint.Channel // nil: refused with refusal
		refusal  string
	}{
		// stdio: the console, never the client program, which (or a model
		// with a shell beside it) could answer for the person.
		{"auto", overStdio, false, []checkpoint.Channel{web}, ""},
		{"auto", overStdio, true, []checkpoint.Channel{web}, ""},
		// HTTP: any program can be the client, so auto never trusts it.
		{"auto", overHTTP, false, []checkpoint.Channel{web}, ""},
		{"auto", overHTTP, true, []checkpoint.Channel{web}, ""},
		// run and demo: the person at the terminal, if there is one.
		{"auto", inProcess, true, []checkpoint.Channel{tty}, ""},
		{"auto", inProcess, false, []checkpoint.Channel{web}, ""},
		{"elicitation", overStdio, false, []checkpoint.Channel{elicitation}, ""},
		{"elicitation", overHTTP, false, []checkpoint.Channel{elicitation}, ""},
		{"elicitation", inProcess, true, nil, "no MCP client to ask; " + runChoices},
		{"web", overStdio, false, []checkpoint.Channel{web}, ""},
		{"web", overHTTP, false, []checkpoint.Channel{web}, ""},
		{"web", inProcess, true, []checkpoint.Channel{web}, ""},
		{"tty", overStdio, false, []checkpoint.Channel{tty}, ""},
		{"tty", overHTTP, false, []checkpoint.Channel{tty}, ""},
		{"tty", inProcess, false, []checkpoint.Channel{tty}, ""},
		{"webhook", overStdio, false, []checkpoint.Channel{webhook}, ""},
		{"webhook", overHTTP, false, []checkpoint.Channel{webhook}, ""},
		{"webhook", inProcess, false, []checkpoint.Channel{webhook}, ""},
		{"", overStdio, false, nil, serveChoices},
		{"Web", overHTTP, false, nil, serveChoices},
		{"none", inProcess, true, nil, runChoices},
	}
	for _, c := range cases {
		got, err := approverChain(c.choice, c.over, c.terminal)
		switch {
		case c.want == nil && (err == nil || !strings.HasPrefix(err.Error(), `--approver "`+c.choice+`": `) || !strings.HasSuffix(err.Error(), c.refusal)):
			t.Errorf("approverChain(%q, %d, %v) = %v, %v; want refused with %q", c.choice, c.over, c.terminal, got, err, c.refusal)
		case c.want != nil && (err != nil || !slices.Equal(got, c.want)):
			t.Errorf("approverChain(%q, %d, %v) = %v, %v; want %v", c.choice, c.over, c.terminal, got, err, c.want)
		}
	}
}
