package driver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
)

// DefaultModel is the model a run uses unless told otherwise.
const DefaultModel = "claude-sonnet-5-5"

// ErrNoAPIKey is returned by [ClaudeFromEnv] when ANTHROPIC_API_KEY is unset.
var ErrNoAPIKey = errors.New("ANTHROPIC_API_KEY is not set: export your Anthropic API key, or run `chaperone demo` without one to watch the scripted agent")

// ClaudeConfig says which Claude to talk to and how.
type ClaudeConfig struct {
	APIKey string
	// BaseURL overrides the API's address (e.g. a proxy or a test fake).
	BaseURL string
	// Model defaults to DefaultModel.
	Model string
	// HTTPClient defaults to the SDK's client.
	HTTPClient *http.Client
}

// ClaudeConfigFromEnv reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL through
// getenv (os.Getenv in production) and returns ErrNoAPIKey when there is no
// key, so a command can fail before it starts a browser.
func ClaudeConfigFromEnv(getenv func(string) string, model string) (ClaudeConfig, error) {
	key := strings.TrimSpace(getenv("ANTHROPIC_API_KEY"))
	if key == "" {
		return ClaudeConfig{}, ErrNoAPIKey
	}
	return ClaudeConfig{APIKey: key, BaseURL: getenv("ANTHROPIC_BASE_URL"), Model: model}, nil
}

// Claude is the [Model] backed by the Anthropic Messages API. It makes one
// attempt per call (the SDK's own retries are off: the loop retries, and
// retries on top of retries multiply).
type Claude struct {
	client anthropic.Client
	model  string
}

// NewClaude returns a Claude model. Credentials and address come only from
// cfg, never from the SDK's reading of the environment or config files.
func NewClaude(cfg ClaudeConfig) (*Claude, error) {
	if strings.TrimSpace(cfg.APIKey) == "" {
		return nil, ErrNoAPIKey
	}
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(0),
	}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &Claude{client: anthropic.NewClient(opts...), model: cfg.Model}, nil
}

// Name is the model id.
func (c *Claude) Name() string { return c.model }

// Next sends one Messages API request.
func (c *Claude) Next(ctx context.Context, req Request) (Response, error) {
	params, err := c.params(req)
	if err != nil {
		return Response{}, err
	}
	msg, err := c.client.Messages.New(ctx, params)
	if err != nil {
		return Response{}, classify(ctx, err)
	}
	out := Response{
		StopReason: string(msg.StopReason),
		Usage: Usage{
			InputTokens:      msg.Usage.InputTokens + msg.Usage.CacheCreationInputTokens + msg.Usage.CacheReadInputTokens,
			OutputTokens:     msg.Usage.OutputTokens,
			CacheReadTokens:  msg.Usage.CacheReadInputTokens,
			CacheWriteTokens: msg.Usage.CacheCreationInputTokens,
		},
	}
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			out.Content = append(out.Content, Text(b.Text))
		case "tool_use":
			out.Content = append(out.Content, ToolUse(b.ID, b.Name, b.Input))
		case "thinking":
			out.Content = append(out.Content, Block{Type: ThinkingBlock, Text: b.Thinking, Signature: b.Signature})
		case "redacted_thinking":
			out.Content = append(out.Content, Block{Type: RedactedThinkingBlock, Data: b.Data})
		}
	}
	return out, nil
}

// classify marks the errors worth retrying: 429, 5xx (529 included) and
// network failures. A context error is returned as such.
func classify(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("messages API: %w", errors.Join(ctx.Err(), err))
	}
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		if apiErr.StatusCode == http.StatusTooManyRequests || apiErr.StatusCode >= 500 {
			return &TransientError{StatusCode: apiErr.StatusCode, RetryAfter: retryAfter(apiErr.Response), Err: err}
		}
		return fmt.Errorf("messages API (HTTP %d): %w", apiErr.StatusCode, err)
	}
	// No status: the request or the response was lost on the way.
	return &TransientError{Err: err}
}

func retryAfter(resp *http.Response) time.Duration {
	if resp == nil {
		return 0
	}
	if s, err := strconv.ParseFloat(resp.Header.Get("Retry-After"), 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	return 0
}

func (c *Claude) params(req Request) (anthropic.MessageNewParams, error) {
	p := anthropic.MessageNewParams{
		Model:     anthropic.Model(c.model),
		MaxTokens: int64(req.MaxTokens),
	}
	if req.System != "" {
		p.System = []anthropic.TextBlockParam{{Text: req.System}}
		if req.Cache {
			p.System[0].CacheControl = anthropic.NewCacheControlEphemeralParam()
		}
	}
	for _, t := range req.Tools {
		schema, err := inputSchema(t.InputSchema)
		if err != nil {
			return p, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		tool := anthropic.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tool.Description = anthropic.String(t.Description)
		}
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfTool: &tool})
	}
	if req.Cache && len(p.Tools) > 0 {
		p.Tools[len(p.Tools)-1].OfTool.CacheControl = anthropic.NewCacheControlEphemeralParam()
	}
	for i, m := range req.Messages {
		blocks := make([]anthropic.ContentBlockParamUnion, 0, len(m.Content))
		for _, b := range m.Content {
			pb, err := blockParam(b)
			if err != nil {
				return p, fmt.Errorf("message %d: %w", i, err)
			}
			if cc := pb.GetCacheControl(); req.Cache && b.Cache && cc != nil {
				*cc = anthropic.NewCacheControlEphemeralParam()
			}
			blocks = append(blocks, pb)
		}
		switch m.Role {
		case RoleUser:
			p.Messages = append(p.Messages, anthropic.NewUserMessage(blocks...))
		case RoleAssistant:
			p.Messages = append(p.Messages, anthropic.NewAssistantMessage(blocks...))
		default:
			return p, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	return p, nil
}

// inputSchema carries a tool's JSON Schema over: properties and required in
// their fields, every other keyword as an extra field.
func inputSchema(raw json.RawMessage) (anthropic.ToolInputSchemaParam, error) {
	var s anthropic.ToolInputSchemaParam
	if len(raw) == 0 {
		return s, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return s, fmt.Errorf("input schema: %w", err)
	}
	s.Properties = m["properties"]
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				s.Required = append(s.Required, name)
			}
		}
	}
	delete(m, "properties")
	delete(m, "required")
	delete(m, "type")
	if len(m) > 0 {
		s.ExtraFields = m
	}
	return s, nil
}

func blockParam(b Block) (anthropic.ContentBlockParamUnion, error) {
	switch b.Type {
	case TextBlock:
		return anthropic.NewTextBlock(b.Text), nil
	case ImageBlock:
		if b.Image == nil {
			return anthropic.ContentBlockParamUnion{}, errors.New("image block without an image")
		}
		return anthropic.NewImageBlockBase64(b.Image.MIMEType, base64.StdEncoding.EncodeToString(b.Image.Data)), nil
	case ToolUseBlock:
		input := b.Input
		if len(input) == 0 {
			input = json.RawMessage(`{}`)
		}
		return anthropic.NewToolUseBlock(b.ID, input, b.Name), nil
	case ToolResultBlock:
		tr := anthropic.ToolResultBlockParam{ToolUseID: b.ToolUseID}
		if b.IsError {
			tr.IsError = anthropic.Bool(true)
		}
		for _, c := range b.Content {
			switch c.Type {
			case TextBlock:
				tr.Content = append(tr.Content, anthropic.ToolResultBlockParamContentUnion{OfText: &anthropic.TextBlockParam{Text: c.Text}})
			case ImageBlock:
				if b.IsError {
					return anthropic.ContentBlockParamUnion{}, errors.New("an is_error tool result may hold text only")
				}
				img := anthropic.NewImageBlockBase64(c.Image.MIMEType, base64.StdEncoding.EncodeToString(c.Image.Data))
				tr.Content = append(tr.Content, anthropic.ToolResultBlockParamContentUnion{OfImage: img.OfImage})
			default:
				return anthropic.ContentBlockParamUnion{}, fmt.Errorf("tool result content of type %q", c.Type)
			}
		}
		return anthropic.ContentBlockParamUnion{OfToolResult: &tr}, nil
	case ThinkingBlock:
		return anthropic.NewThinkingBlock(b.Signature, b.Text), nil
	case RedactedThinkingBlock:
		return anthropic.NewRedactedThinkingBlock(b.Data), nil
	}
	return anthropic.ContentBlockParamUnion{}, fmt.Errorf("block of type %q", b.Type)
}
