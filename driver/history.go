package driver

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// turn is one round of the conversation: the model's message and the user
// message that answers it (tool results, a nudge, or both).
type turn struct {
	assistant Message
	user      Message
	// image is the screenshot the result brought, if the model is to see
	// it: it is shown only while this turn is the newest.
	image *toolapi.Image
	// action is the turn's line in the "Previous actions" summary, without
	// the leading "- ".
	action string
	// before is the page as the model knew it before the turn's call: what
	// a delta in the turn's result applies to, shown whole once the turns
	// before are summarised.
	before *snapshot.Snapshot
}

// history is the whole conversation, of which a request shows a window: the
// goal, then either the initial snapshot or the summary of the turns that no
// longer fit, then the newest turns.
type history struct {
	intro   string
	initial toolapi.ToolResult
	turns   []turn
	// dropped is how many of the first turns are shown only as summary lines.
	dropped int
}

// messages renders the window the model sees now. Only the newest
// screenshot is shown, as the last block of the newest user message: after
// the cache breakpoint, so that dropping it from the next request leaves
// the cached prefix as it was. The last block before it in each of the two
// newest user messages is a breakpoint: the request reads the previous
// request's prefix from the cache and writes its own.
func (h *history) messages() []Message {
	first := Message{Role: RoleUser}
	if h.dropped == 0 {
		first.Content = append(first.Content, Text(h.intro+"\n\nThe page as it is now (initial snapshot):"), resultText(h.initial))
	} else {
		first.Content = append(first.Content, Text(h.intro), Text(h.summary()))
		if b, ok := h.baseOfWindow(); ok {
			first.Content = append(first.Content, b)
		}
	}
	msgs := []Message{first}
	for _, t := range h.turns[h.dropped:] {
		msgs = append(msgs, t.assistant, Message{Role: RoleUser, Content: append([]Block(nil), t.user.Content...)})
	}
	markCache(msgs)
	img := h.initial.Image
	if len(h.turns) > 0 {
		img = h.turns[len(h.turns)-1].image
	}
	if img != nil {
		last := &msgs[len(msgs)-1]
		last.Content = append(last.Content, ImageOf(img))
	}
	return msgs
}

// markCache marks the last block of the two newest user messages as cache
// breakpoints (with the tools and the system prompt, the API's four). The
// messages' content must be copies: the blocks are changed in place.
func markCache(msgs []Message) {
	marked := 0
	for i := len(msgs) - 1; i >= 0 && marked < 2; i-- {
		if msgs[i].Role != RoleUser || len(msgs[i].Content) == 0 {
			continue
		}
		msgs[i].Content[len(msgs[i].Content)-1].Cache = true
		marked++
	}
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

// baseOfWindow is the page as it was before the first turn the window
// shows, whole, when a delta in the window needs it: the snapshot the
// delta applies to was in a turn now summarised.
func (h *history) baseOfWindow() (Block, bool) {
	first := h.turns[h.dropped]
	if first.before == nil {
		return Block{}, false
	}
	for _, t := range h.turns[h.dropped:] {
		for _, b := range t.user.Content {
			for _, c := range append([]Block{b}, b.Content...) {
				if _, ok := deltaIn(toolapi.JSONOf(c.Structured, c.Text)); ok {
					data, err := json.Marshal(first.before)
					if err != nil {
						return Block{}, false
					}
					return Block{Type: TextBlock, Text: "The page before the turns below:\n" + first.before.Render(), Structured: data}, true
				}
			}
		}
	}
	return Block{}, false
}

// kept is how many turns the window shows in full.
func (h *history) kept() int { return len(h.turns) - h.dropped }

// resultText is the text block of a tool's result: the text the model
// reads, with the result's JSON beside it for scripts.
func resultText(res toolapi.ToolResult) Block {
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
func describe(res toolapi.ToolResult) string {
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
