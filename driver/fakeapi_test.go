package driver_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/driver"
)

// fakeAPI is an httptest server speaking the Messages API. It checks each
// request the way the real API does (roles alternate starting with the
// user, every tool_use answered first thing in the next user message by a
// tool_result with its id, well-formed base64 PNG/JPEG images, is_error
// results text only, at most four cache breakpoints) and answers 400 when a
// check fails; otherwise it plays its replies in order, repeating the last
// one. It caches prompts as the API does: the prefix up to each
// cache_control breakpoint, if it counts at least minCachePrefix tokens, is
// written to the cache, and a later request whose prefix up to one of its
// breakpoints is exactly the same reads it back.
type fakeAPI struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	replies  []fakeReply
	requests []wireRequest
	usages   []driver.Usage
	invalid  []string
	cache    map[[32]byte]bool
}

// minCachePrefix is the shortest prefix the API caches, in tokens.
const minCachePrefix = 1024

// fakeReply is one scripted answer: an HTTP error status, or content, or
// content computed from the request (fn).
type fakeReply struct {
	status  int
	delay   time.Duration
	content []map[string]any
	fn      func(wireRequest) []map[string]any
}

func newFakeAPI(t *testing.T, replies ...fakeReply) *fakeAPI {
	t.Helper()
	f := &fakeAPI{t: t, replies: replies, cache: map[[32]byte]bool{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// claude returns the Claude model pointed at the fake.
func (f *fakeAPI) claude(t *testing.T) *driver.Claude {
	t.Helper()
	c, err := driver.NewClaude(driver.ClaudeConfig{APIKey: "test-key", BaseURL: f.srv.URL, Model: "claude-sonnet-5-5"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *fakeAPI) Requests() []wireRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]wireRequest(nil), f.requests...)
}

// Usages returns what the fake counted for each request it answered.
func (f *fakeAPI) Usages() []driver.Usage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]driver.Usage(nil), f.usages...)
}

func (f *fakeAPI) Invalid() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.invalid...)
}

// reply answers with content blocks.
func reply(blocks ...map[string]any) fakeReply { return fakeReply{status: 200, content: blocks} }

func status(code int) fakeReply { return fakeReply{status: code} }

func wireText(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

// wireCall is a tool_use block; the fake gives it its id.
func wireCall(name string, input map[string]any) map[string]any {
	if input == nil {
		input = map[string]any{}
	}
	return map[string]any{"type": "tool_use", "name": name, "input": input}
}

type wireRequest struct {
	Model     string        `json:"model"`
	MaxTokens int           `json:"max_tokens"`
	System    []wireBlock   `json:"system"`
	Messages  []wireMessage `json:"messages"`
	Tools     []struct {
		Name        string         `json:"name"`
		InputSchema map[string]any `json:"input_schema"`
	} `json:"tools"`
	raw []byte
}

type wireMessage struct {
	Role    string      `json:"role"`
	Content []wireBlock `json:"content"`
}

type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   []wireBlock     `json:"content"`
	Source    *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req wireRequest
	err := json.Unmarshal(body, &req)
	if err == nil {
		err = validate(r, req)
	}
	req.raw = body
	f.mu.Lock()
	f.requests = append(f.requests, req)
	n := len(f.requests)
	if err != nil {
		f.invalid = append(f.invalid, err.Error())
	}
	var rep fakeReply
	if len(f.replies) > 0 {
		rep = f.replies[min(n, len(f.replies))-1]
	}
	var read, write int
	total := countTokens(req)
	if err == nil {
		read, write, err = f.cached(body)
		if err != nil {
			f.invalid = append(f.invalid, err.Error())
		}
	}
	if err == nil {
		f.usages = append(f.usages, driver.Usage{InputTokens: int64(total), CacheReadTokens: int64(read), CacheWriteTokens: int64(write), OutputTokens: 20})
	}
	f.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":%q}}`, err.Error())
		return
	}
	if rep.delay > 0 {
		select {
		case <-time.After(rep.delay):
		case <-r.Context().Done():
			return
		}
	}
	if rep.status != 200 {
		w.WriteHeader(rep.status)
		kind := map[int]string{429: "rate_limit_error", 529: "overloaded_error"}[rep.status]
		if kind == "" {
			kind = "api_error"
		}
		fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":"scripted failure"}}`, kind)
		return
	}
	// Fresh ids on every answer: a reply may be played more than once.
	stop := "end_turn"
	blocks := rep.content
	if rep.fn != nil {
		blocks = rep.fn(req)
	}
	content := make([]map[string]any, len(blocks))
	for j, b := range blocks {
		content[j] = maps.Clone(b)
		if b["type"] == "tool_use" {
			stop = "tool_use"
			content[j]["id"] = fmt.Sprintf("toolu_%03d_%d", n, j)
		}
	}
	json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("msg_%03d", n), "type": "message", "role": "assistant", "model": req.Model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": total - read - write, "cache_read_input_tokens": read,
			"cache_creation_input_tokens": write, "output_tokens": 20},
	})
}

// cached simulates the prompt cache on a request's body: it walks the
// tools, the system blocks and the messages' blocks in order, hashing the
// prefix after each, and at each block with cache_control looks the prefix
// up. It returns the tokens read (the longest prefix found) and written
// (from there to the last breakpoint), and remembers every breakpoint's
// prefix of at least minCachePrefix tokens.
func (f *fakeAPI) cached(body []byte) (read, write int, err error) {
	var req struct {
		Tools    []json.RawMessage `json:"tools"`
		System   []json.RawMessage `json:"system"`
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return 0, 0, err
	}
	type unit struct {
		role string
		raw  json.RawMessage
	}
	var units []unit
	for _, t := range req.Tools {
		units = append(units, unit{"tool", t})
	}
	for _, s := range req.System {
		units = append(units, unit{"system", s})
	}
	for _, m := range req.Messages {
		for _, b := range m.Content {
			units = append(units, unit{m.Role, b})
		}
	}
	type breakpoint struct {
		hash   [32]byte
		tokens int
	}
	var bps []breakpoint
	var hash [32]byte
	tokens := 0
	for _, u := range units {
		var m map[string]any
		if err := json.Unmarshal(u.raw, &m); err != nil {
			return 0, 0, err
		}
		_, marked := m["cache_control"]
		delete(m, "cache_control")
		canon, _ := json.Marshal(m) // decoded JSON always encodes
		hash = sha256.Sum256(append(append(hash[:], u.role...), canon...))
		var b wireBlock
		_ = json.Unmarshal(canon, &b) // tools and system blocks have no images
		tokens += blockTokens(len(canon), []wireBlock{b})
		if marked {
			bps = append(bps, breakpoint{hash, tokens})
		}
	}
	if len(bps) > 4 {
		return 0, 0, fmt.Errorf("a maximum of 4 blocks with cache_control may be provided. Found %d", len(bps))
	}
	for _, bp := range bps {
		if f.cache[bp.hash] {
			read = bp.tokens
		}
	}
	if n := len(bps); n > 0 && bps[n-1].tokens >= minCachePrefix && bps[n-1].tokens > read {
		write = bps[n-1].tokens - read
	}
	for _, bp := range bps {
		if bp.tokens >= minCachePrefix {
			f.cache[bp.hash] = true
		}
	}
	return read, write, nil
}

// countTokens is the fake's token count: a little above the driver's own
// estimate, as a real tokenizer would be, so that calibration has work.
func countTokens(req wireRequest) int {
	var blocks []wireBlock
	for _, m := range req.Messages {
		blocks = append(blocks, m.Content...)
	}
	return blockTokens(len(req.raw), blocks)
}

// blockTokens counts n bytes of JSON that hold blocks: a token per four
// bytes, but an image counts by its size, not its base64.
func blockTokens(n int, blocks []wireBlock) int {
	images := 0
	var walk func([]wireBlock)
	walk = func(bs []wireBlock) {
		for _, b := range bs {
			if b.Source != nil {
				n -= len(b.Source.Data)
				if data, err := base64.StdEncoding.DecodeString(b.Source.Data); err == nil {
					if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
						images += cfg.Width * cfg.Height / 750
					}
				}
			}
			walk(b.Content)
		}
	}
	walk(blocks)
	return n/4 + images
}

// validate checks what the real API checks.
func validate(r *http.Request, req wireRequest) error {
	if r.URL.Path != "/v1/messages" || r.Method != http.MethodPost {
		return fmt.Errorf("%s %s: not the Messages endpoint", r.Method, r.URL.Path)
	}
	if r.Header.Get("X-Api-Key") == "" {
		return errors.New("no x-api-key header")
	}
	if req.Model == "" || req.MaxTokens <= 0 {
		return errors.New("model and max_tokens are required")
	}
	if len(req.Messages) == 0 || req.Messages[0].Role != "user" {
		return errors.New("messages: the first message must use the user role")
	}
	for _, t := range req.Tools {
		if t.Name == "" || t.InputSchema["type"] != "object" {
			return fmt.Errorf("tools: %q needs a name and an object input_schema", t.Name)
		}
	}
	seen := map[string]bool{}
	for i, m := range req.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Errorf("messages.%d: role %q", i, m.Role)
		}
		if i > 0 && m.Role == req.Messages[i-1].Role {
			return fmt.Errorf("messages.%d: roles must alternate between user and assistant", i)
		}
		if len(m.Content) == 0 {
			return fmt.Errorf("messages.%d: content must not be empty", i)
		}
		var uses []string
		for j, b := range m.Content {
			if err := validateBlock(b, m.Role); err != nil {
				return fmt.Errorf("messages.%d.content.%d: %w", i, j, err)
			}
			if b.Type == "tool_use" {
				if seen[b.ID] {
					return fmt.Errorf("messages.%d.content.%d: tool_use ids must be unique", i, j)
				}
				seen[b.ID] = true
				uses = append(uses, b.ID)
			}
		}
		// Tool results answer the previous assistant message's tool_use
		// blocks, and come first.
		var prevUses map[string]bool
		if m.Role == "user" && i > 0 {
			prevUses = map[string]bool{}
			for _, b := range req.Messages[i-1].Content {
				if b.Type == "tool_use" {
					prevUses[b.ID] = true
				}
			}
		}
		inResults := true
		for j, b := range m.Content {
			if b.Type != "tool_result" {
				inResults = false
				continue
			}
			if !inResults {
				return fmt.Errorf("messages.%d.content.%d: tool_result blocks must come first in the user message", i, j)
			}
			if !prevUses[b.ToolUseID] {
				return fmt.Errorf("messages.%d.content.%d: unexpected tool_use_id %q: no tool_use with this id in the previous message", i, j, b.ToolUseID)
			}
			delete(prevUses, b.ToolUseID)
		}
		if len(prevUses) > 0 {
			return fmt.Errorf("messages.%d: tool_use ids were found without tool_result blocks immediately after: %v", i, prevUses)
		}
		if m.Role == "assistant" && len(uses) > 0 && i == len(req.Messages)-1 {
			return fmt.Errorf("messages.%d: tool_use without a following tool_result", i)
		}
	}
	return nil
}

func validateBlock(b wireBlock, role string) error {
	switch b.Type {
	case "text":
		if b.Text == "" {
			return errors.New("text content blocks must be non-empty")
		}
	case "image":
		if role != "user" {
			return errors.New("images only in user messages")
		}
		return validateImage(b)
	case "tool_use":
		if role != "assistant" || b.ID == "" || b.Name == "" || len(b.Input) == 0 || b.Input[0] != '{' {
			return errors.New("malformed tool_use")
		}
	case "tool_result":
		if role != "user" || b.ToolUseID == "" {
			return errors.New("malformed tool_result")
		}
		for _, c := range b.Content {
			if b.IsError && c.Type != "text" {
				return errors.New("tool_result with is_error may only contain text")
			}
			if c.Type != "text" && c.Type != "image" {
				return fmt.Errorf("tool_result content of type %q", c.Type)
			}
			if err := validateBlock(c, role); err != nil {
				return err
			}
		}
	case "thinking", "redacted_thinking":
	default:
		return fmt.Errorf("unknown block type %q", b.Type)
	}
	return nil
}

func validateImage(b wireBlock) error {
	if b.Source == nil || b.Source.Type != "base64" {
		return errors.New("image source must be base64")
	}
	data, err := base64.StdEncoding.DecodeString(b.Source.Data)
	if err != nil {
		return fmt.Errorf("image data is not valid base64: %w", err)
	}
	switch b.Source.MediaType {
	case "image/png":
		if !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
			return errors.New("image does not match the provided media type image/png")
		}
	case "image/jpeg":
		if !bytes.HasPrefix(data, []byte{0xff, 0xd8, 0xff}) {
			return errors.New("image does not match the provided media type image/jpeg")
		}
	default:
		return fmt.Errorf("media_type %q", b.Source.MediaType)
	}
	if _, _, err := image.DecodeConfig(bytes.NewReader(data)); err != nil {
		return fmt.Errorf("could not process image: %w", err)
	}
	return nil
}

// texts returns every text in a message, tool_result content included.
func (m wireMessage) texts() []string {
	var out []string
	var walk func([]wireBlock)
	walk = func(bs []wireBlock) {
		for _, b := range bs {
			if b.Type == "text" {
				out = append(out, b.Text)
			}
			walk(b.Content)
		}
	}
	walk(m.Content)
	return out
}

func (m wireMessage) joined() string { return strings.Join(m.texts(), "\n") }

// images counts the image blocks of a request.
func (r wireRequest) images() int {
	n := 0
	var walk func([]wireBlock)
	walk = func(bs []wireBlock) {
		for _, b := range bs {
			if b.Type == "image" {
				n++
			}
			walk(b.Content)
		}
	}
	for _, m := range r.Messages {
		walk(m.Content)
	}
	return n
}
