package driver

import "github.com/chaperone-mcp/chaperone/toolapi"

// Token estimates follow the rules of thumb the API documents: about four
// characters of text per token, and width×height/750 tokens per image.

// unknownImageTokens is charged for an image whose header cannot be read:
// the largest image the API uses as sent (1.15 MP) costs about this much.
const unknownImageTokens = 1600

// EstimateTokens estimates the input tokens of a request, uncalibrated.
func EstimateTokens(req Request) int {
	n := textTokens(req.System)
	for _, t := range req.Tools {
		n += textTokens(t.Name) + textTokens(t.Description) + textTokens(string(t.InputSchema))
	}
	return n + estimateMessages(req.Messages)
}

func estimateMessages(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += estimateBlocks(m.Content)
	}
	return n
}

func estimateBlocks(blocks []Block) int {
	n := 0
	for _, b := range blocks {
		switch b.Type {
		case ImageBlock:
			n += imageTokens(b.Image)
		case ToolUseBlock:
			n += textTokens(b.Name) + textTokens(string(b.Input))
		case ToolResultBlock:
			n += estimateBlocks(b.Content)
		case RedactedThinkingBlock:
			n += textTokens(b.Data)
		default:
			n += textTokens(b.Text)
		}
	}
	return n
}

func textTokens(s string) int { return (len(s) + 3) / 4 }

func imageTokens(img *toolapi.Image) int {
	if img == nil {
		return 0
	}
	w, h, err := img.Size()
	if err != nil {
		return unknownImageTokens
	}
	return (w*h + 749) / 750
}

// calibration scales estimates by what the API last reported, so that a
// systematic error of the rules of thumb (tool definitions, the tokenizer of
// the model in use) does not skew the budget.
type calibration struct{ factor float64 }

func (c *calibration) scale(estimate int) int {
	if c.factor == 0 {
		return estimate
	}
	return int(float64(estimate)*c.factor + 0.5)
}

// observe records a request's uncalibrated estimate beside the input tokens
// the API counted for it. Ratios outside [0.25, 4] are clamped: they say
// more about a broken count than about the text.
func (c *calibration) observe(estimate int, actual int64) {
	if estimate <= 0 || actual <= 0 {
		return
	}
	f := float64(actual) / float64(estimate)
	c.factor = min(max(f, 0.25), 4)
}
