// Package driver runs a browser task unattended: a conversation loop over a
// language model (Claude, or a scripted stand-in) that reaches the browser
// through the same tools as any MCP client, keeps each request within a token
// budget, survives an API that hiccups, and leaves a record a person can read.
//
// The loop speaks to the model through [Model], over a transport-free
// conversation ([Request], [Message], [Block]); only [Claude] knows the
// Anthropic SDK. It speaks to the browser through [toolapi.Tools]: in production an
// in-process MCP client of the real server (package server adapts one), in
// tests the mock browser of package drivertest.
package driver

import (
	"context"
	"encoding/json"
	"fmt"
	_ "image/jpeg" // screenshots may be JPEG
	_ "image/png"  // screenshots are PNG by default
	"time"

	"github.com/chaperone-mcp/chaperone/toolapi"
)

// Model produces the next assistant message of a conversation. An
// implementation makes one attempt per call: the loop owns timeouts and
// retries. An error the caller may retry is a *[TransientError].
type Model interface {
	Next(ctx context.Context, req Request) (Response, error)
}

// Request is one call to a model: the system prompt, the conversation so far
// (starting with a user message, roles alternating) and the tools on offer.
type Request struct {
	System    string
	Messages  []Message
	Tools     []toolapi.ToolSpec
	MaxTokens int
	// Cache asks for prompt-cache breakpoints on the last tool and on the
	// system prompt; the blocks of Messages mark their own (Block.Cache).
	// The API allows four in all.
	Cache bool
}

// Response is the model's answer: the content of the assistant message and
// what it cost.
type Response struct {
	Content    []Block
	StopReason string
	Usage      Usage
}

// Usage counts the tokens of one model call, or of a run.
type Usage struct {
	// InputTokens counts every input token, those read from or written to
	// the prompt cache included.
	InputTokens  int64 `json:"input"`
	OutputTokens int64 `json:"output"`
	// CacheReadTokens and CacheWriteTokens are the parts of InputTokens read
	// from the prompt cache (billed at a tenth) and written to it (billed at
	// 1.25 times).
	CacheReadTokens  int64 `json:"cache_read,omitempty"`
	CacheWriteTokens int64 `json:"cache_write,omitempty"`
}

// Prices of cached input, as multiples of the input price.
const (
	cacheReadFactor  = 0.1
	cacheWriteFactor = 1.25
)

// BilledInput is the input in token-equivalents at the input price: plain
// input at 1, cache reads at 0.1, cache writes at 1.25.
func (u Usage) BilledInput() float64 {
	plain := u.InputTokens - u.CacheReadTokens - u.CacheWriteTokens
	return float64(plain) + cacheReadFactor*float64(u.CacheReadTokens) + cacheWriteFactor*float64(u.CacheWriteTokens)
}

// Add adds v to u.
func (u *Usage) Add(v Usage) {
	u.InputTokens += v.InputTokens
	u.OutputTokens += v.OutputTokens
	u.CacheReadTokens += v.CacheReadTokens
	u.CacheWriteTokens += v.CacheWriteTokens
}

// Role is who speaks a message.
type Role string

// The two roles of a conversation.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one message of the conversation.
type Message struct {
	Role    Role
	Content []Block
}

// BlockType says which fields of a [Block] are in use.
type BlockType string

// The block types the driver uses. Thinking blocks are carried back to the
// model unchanged, as the API requires within a tool-use loop.
const (
	TextBlock             BlockType = "text"
	ImageBlock            BlockType = "image"
	ToolUseBlock          BlockType = "tool_use"
	ToolResultBlock       BlockType = "tool_result"
	ThinkingBlock         BlockType = "thinking"
	RedactedThinkingBlock BlockType = "redacted_thinking"
)

// Block is one content block. It is a flat union, like the wire format:
// Type says which fields matter.
type Block struct {
	Type BlockType
	// Text is a text block's text, or a thinking block's thinking.
	Text string
	// Image is an image block's image.
	Image *toolapi.Image
	// ID, Name and Input describe a tool_use block.
	ID    string
	Name  string
	Input json.RawMessage
	// ToolUseID, Content and IsError describe a tool_result block; Content
	// holds text and image blocks (text only when IsError).
	ToolUseID string
	Content   []Block
	IsError   bool
	// Signature is a thinking block's signature, Data a redacted thinking
	// block's data.
	Signature string
	Data      string
	// Structured is, on the text block of a tool's result, the result's
	// JSON. It never reaches the model, which reads Text; scripts read it
	// (see LatestSnapshot).
	Structured json.RawMessage
	// Cache marks a prompt-cache breakpoint after this block: the request
	// up to here is cached, and read back by the next request that starts
	// the same way.
	Cache bool
}

// Text returns a text block.
func Text(s string) Block { return Block{Type: TextBlock, Text: s} }

// ImageOf returns an image block.
func ImageOf(img *toolapi.Image) Block { return Block{Type: ImageBlock, Image: img} }

// ToolUse returns a tool_use block.
func ToolUse(id, name string, input json.RawMessage) Block {
	return Block{Type: ToolUseBlock, ID: id, Name: name, Input: input}
}

// ToolResultOf returns a tool_result block answering the tool_use id.
func ToolResultOf(id string, isError bool, content ...Block) Block {
	return Block{Type: ToolResultBlock, ToolUseID: id, IsError: isError, Content: content}
}

// TransientError marks a model error worth retrying: a network failure, a
// rate limit (429), an overloaded (529) or failing (5xx) API.
type TransientError struct {
	// StatusCode is the HTTP status, or 0 for a network error.
	StatusCode int
	// RetryAfter is how long the API asked us to wait, if it said.
	RetryAfter time.Duration
	Err        error
}

func (e *TransientError) Error() string {
	if e.StatusCode != 0 {
		return fmt.Sprintf("transient API error (HTTP %d): %v", e.StatusCode, e.Err)
	}
	return fmt.Sprintf("transient API error: %v", e.Err)
}

func (e *TransientError) Unwrap() error { return e.Err }
