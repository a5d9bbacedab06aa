package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// Step is one scripted answer, computed from the request it answers (so a
// script can read refs from the latest snapshot).
type Step func(req Request) (Response, error)

// ScriptedModel is a [Model] that answers with its Steps in sequence and
// records every request. Past the last step it returns an error. Usage is
// the driver's own estimate, since no API counts for it.
type ScriptedModel struct {
	Steps []Step

	mu       sync.Mutex
	requests []Request
}

// Requests returns every request received so far.
func (m *ScriptedModel) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Request(nil), m.requests...)
}

// Next answers with the next step.
func (m *ScriptedModel) Next(ctx context.Context, req Request) (Response, error) {
	m.mu.Lock()
	i := len(m.requests)
	m.requests = append(m.requests, req)
	m.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	if i >= len(m.Steps) {
		return Response{}, fmt.Errorf("scripted model: no step %d (script has %d)", i+1, len(m.Steps))
	}
	resp, err := m.Steps[i](req)
	if err != nil {
		return Response{}, fmt.Errorf("scripted model, step %d: %w", i+1, err)
	}
	for j := range resp.Content {
		if resp.Content[j].Type == ToolUseBlock && resp.Content[j].ID == "" {
			resp.Content[j].ID = fmt.Sprintf("toolu_scripted_%02d_%d", i+1, j)
		}
	}
	if resp.Usage == (Usage{}) {
		out, _ := json.Marshal(blocksForEstimate(resp.Content)) // plain data: always encodes
		resp.Usage = Usage{InputTokens: int64(EstimateTokens(req)), OutputTokens: int64(textTokens(string(out)))}
	}
	if resp.StopReason == "" {
		resp.StopReason = "end_turn"
		for _, b := range resp.Content {
			if b.Type == ToolUseBlock {
				resp.StopReason = "tool_use"
			}
		}
	}
	return resp, nil
}

func blocksForEstimate(bs []Block) []map[string]any {
	out := make([]map[string]any, 0, len(bs))
	for _, b := range bs {
		out = append(out, map[string]any{"type": b.Type, "text": b.Text, "name": b.Name, "input": b.Input})
	}
	return out
}

// Reply is a step that answers with fixed blocks (text, one or several
// tool calls).
func Reply(blocks ...Block) Step {
	return func(Request) (Response, error) {
		return Response{Content: append([]Block(nil), blocks...)}, nil
	}
}

// Call is a step that calls one tool with input (marshalled to JSON).
func Call(name string, input any) Step {
	return func(Request) (Response, error) {
		b, err := json.Marshal(input)
		if err != nil {
			return Response{}, fmt.Errorf("encode %s input: %w", name, err)
		}
		return Response{Content: []Block{ToolUse("", name, b)}}, nil
	}
}

// ActOn is a step that finds, in the latest snapshot of the request, the
// element with the given role and name (case-insensitive; empty role matches
// any) and calls tool on its ref, with extra arguments merged in.
func ActOn(tool, role, name string, extra map[string]any) Step {
	return func(req Request) (Response, error) {
		ref, err := FindRef(req, role, name)
		if err != nil {
			return Response{}, err
		}
		input := map[string]any{"ref": ref}
		for k, v := range extra {
			input[k] = v
		}
		return Call(tool, input)(req)
	}
}

// FindRef returns the ref of the element with the given role and name in
// the newest snapshot the request shows. A field with no name of its own is
// found by the label the page text gives it ("Password: [@e6]"), as a model
// reading the page would find it.
func FindRef(req Request, role, name string) (string, error) {
	snap, ok := LatestSnapshot(req)
	if !ok {
		return "", errors.New("no snapshot in the conversation")
	}
	roleOK := func(e snapshot.Element) bool { return role == "" || strings.EqualFold(e.Role, role) }
	for _, e := range snap.Elements {
		if roleOK(e) && strings.EqualFold(strings.TrimSpace(e.Name), name) {
			return e.Ref, nil
		}
	}
	if e, ok := snap.Labelled(name); ok && roleOK(e) && e.Name == "" {
		return e.Ref, nil
	}
	return "", fmt.Errorf("no %s named %q on %s", firstNonEmpty(role, "element"), name, snap.Page.URL)
}

// LatestSnapshot finds the newest snapshot in a request: a text block whose
// JSON (the structured content beside its text, or the text itself) is a
// snapshot, or an action result holding one; a result that holds a delta
// (--snapshot-delta) is applied to the snapshot before it.
func LatestSnapshot(req Request) (*snapshot.Snapshot, bool) {
	var cur *snapshot.Snapshot
	for _, m := range req.Messages {
		for _, b := range m.Content {
			candidates := []Block{b}
			if b.Type == ToolResultBlock {
				candidates = b.Content
			}
			for _, c := range candidates {
				data := toolapi.JSONOf(c.Structured, c.Text)
				if s, ok := snapshotAfter(cur, data); ok {
					cur = s
				} else if _, isDelta := deltaIn(data); isDelta {
					cur = nil // a delta of a snapshot no longer shown
				}
			}
		}
	}
	return cur, cur != nil
}

// snapshotAfter is the snapshot the agent has after a result whose JSON is
// data, when it had prev: the result's snapshot, or its delta applied to
// prev. False when data holds neither, or a delta of another snapshot.
func snapshotAfter(prev *snapshot.Snapshot, data []byte) (*snapshot.Snapshot, bool) {
	if d, ok := deltaIn(data); ok {
		return snapshot.Apply(prev, d)
	}
	return parseSnapshot(data)
}

// deltaIn reads the delta an action result holds in its snapshot's place.
func deltaIn(data []byte) (*snapshot.Delta, bool) {
	if !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		return nil, false
	}
	var v struct {
		Snapshot json.RawMessage `json:"snapshot"`
	}
	if json.Unmarshal(data, &v) != nil || len(v.Snapshot) == 0 {
		return nil, false
	}
	return toolapi.DeltaOf(v.Snapshot)
}

// parseSnapshot reads a snapshot, or an action result that holds one, from
// a tool result's JSON; never a delta (snapshotAfter applies those).
func parseSnapshot(data []byte) (*snapshot.Snapshot, bool) {
	if !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		return nil, false
	}
	if _, ok := deltaIn(data); ok {
		return nil, false
	}
	var v struct {
		SnapshotID string             `json:"snapshot_id"`
		Elements   json.RawMessage    `json:"elements"`
		Snapshot   *snapshot.Snapshot `json:"snapshot"`
	}
	if json.Unmarshal(data, &v) != nil {
		return nil, false
	}
	if v.Snapshot != nil {
		return v.Snapshot, true
	}
	if v.SnapshotID == "" && v.Elements == nil {
		return nil, false
	}
	var s snapshot.Snapshot
	if json.Unmarshal(data, &s) != nil {
		return nil, false
	}
	return &s, true
}
