package driver

import (
	"encoding/json"
	"fmt"
	"strings"
)

// screenshotPlaceholder replaces every screenshot but the newest.
const screenshotPlaceholder = "[older screenshot removed: only the newest screenshot is kept]"

// turn is one round of the conversation: the model's message and the user
// message that answers it (tool results, a nudge, or both).
type turn struct {
	assistant Message
	user      Message
	// action is the turn's line in the "Previous actions" summary, without
	// the leading "- ".
	action string
}

// history is the whole conversation, of which a request shows a window: the
// goal, then either the initial snapshot or the summary of the turns that no
// longer fit, then the newest turns.
type history struct {
	intro   string
	initial ToolResult
	turns   []turn
	// dropped is how many of the first turns are shown only as summary lines.
	dropped int
}

// messages renders the window the model sees now, keeping only the newest
// screenshot.
func (h *history) messages() []Message {
	first := Message{Role: RoleUser}
	if h.dropped == 0 {
		first.Content = append(first.Content, Text(h.intro+"\n\nThe page as it is now (initial snapshot):"), resultText(h.initial))
		if h.initial.Image != nil {
			first.Content = append(first.Content, ImageOf(h.initial.Image))
		}
	} else {
		first.Content = append(first.Content, Text(h.intro), Text(h.summary()))
	}
	msgs := []Message{first}
	for _, t := range h.turns[h.dropped:] {
		msgs = append(msgs, t.assistant, t.user)
	}
	return keepNewestImage(msgs)
}

// summary is the system-written account of the dropped turns: a "Previous
// actions:" heading, then one "- tool(target): outcome" line per turn.
func (h *history) summary() string {
	var b strings.Builder
	b.WriteString("Previous actions:")
	for _, t := range h.turns[:h.dropped] {
		b.WriteString("\n- ")
		b.WriteString(t.action)
	}
	return b.String()
}

// kept is how many turns the window shows in full.
func (h *history) kept() int { return len(h.turns) - h.dropped }

// keepNewestImage replaces every image but the last one in msgs by a short
// text placeholder. It copies what it changes and leaves msgs untouched.
func keepNewestImage(msgs []Message) []Message {
	seen := false
	out := make([]Message, len(msgs))
	for i := len(msgs) - 1; i >= 0; i-- {
		out[i] = Message{Role: msgs[i].Role, Content: pruneImages(msgs[i].Content, &seen)}
	}
	return out
}

// pruneImages walks blocks from the end, keeping the first image it meets if
// none was seen yet.
func pruneImages(blocks []Block, seen *bool) []Block {
	out := make([]Block, len(blocks))
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		switch b.Type {
		case ImageBlock:
			if *seen {
				b = Text(screenshotPlaceholder)
			}
			*seen = true
		case ToolResultBlock:
			b.Content = pruneImages(b.Content, seen)
		}
		out[i] = b
	}
	return out
}

// resultText is the text block of a tool's result: the text the model
// reads, with the result's JSON beside it for scripts.
func resultText(res ToolResult) Block {
	return Block{Type: TextBlock, Text: res.Text, Structured: res.Structured}
}

// toolOutcome is what the driver reads from a tool's JSON result.
type toolOutcome struct {
	Success      *bool   `json:"success"`
	Error        *string `json:"error"`
	Message      string  `json:"message"`
	Approved     *bool   `json:"approved"`
	Acknowledged *bool   `json:"acknowledged"`
}

func parseOutcome(data []byte) (toolOutcome, bool) {
	var o toolOutcome
	if err := json.Unmarshal(data, &o); err != nil {
		return toolOutcome{}, false
	}
	return o, true
}

// describe returns a short form of an outcome: "success", "failed
// (element_disabled)", "approved", "rejected", "acknowledged", "not
// acknowledged", "error".
func describe(res ToolResult) string {
	if res.IsError {
		return "error"
	}
	o, ok := parseOutcome(res.JSON())
	if !ok {
		return "done"
	}
	switch {
	case o.Success != nil && *o.Success:
		return "success"
	case o.Success != nil:
		if o.Error != nil && *o.Error != "" {
			return fmt.Sprintf("failed (%s)", *o.Error)
		}
		return "failed"
	case o.Approved != nil && *o.Approved:
		return "approved"
	case o.Approved != nil:
		return "rejected"
	case o.Acknowledged != nil && *o.Acknowledged:
		return "acknowledged"
	case o.Acknowledged != nil:
		return "not acknowledged"
	}
	return "done"
}

// target is what a tool call aims at, for logs and summaries: a ref, a
// scroll direction, the status of complete_task, or nothing.
func target(name string, input json.RawMessage) string {
	var in struct {
		Ref       string `json:"ref"`
		Direction string `json:"direction"`
		Status    string `json:"status"`
		Action    string `json:"action"`
	}
	_ = json.Unmarshal(input, &in) // a malformed input simply has no target
	switch {
	case in.Ref != "":
		return in.Ref
	case in.Direction != "":
		return in.Direction
	case in.Status != "":
		return in.Status
	case in.Action != "":
		return clip(in.Action, 60)
	}
	return ""
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
