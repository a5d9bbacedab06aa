package driver

import (
	"regexp"
	"strings"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	InputPerMTok  float64
	OutputPerMTok float64
}

// Cost returns the dollars that u costs at p, cached input at cache prices.
func (p Price) Cost(u Usage) float64 {
	return (u.BilledInput()*p.InputPerMTok + float64(u.OutputTokens)*p.OutputPerMTok) / 1e6
}

var dateSuffix = regexp.MustCompile(`-\d{8}$`)

// PriceOf returns the list price of a model (as published by Anthropic,
// November 2026), and false for a model it does not know. A dated model id
// (claude-haiku-4-5-20251001) costs what its alias costs.
func PriceOf(model string) (Price, bool) {
	switch dateSuffix.ReplaceAllString(strings.TrimSpace(model), "") {
	case "claude-fable-5-1", "claude-fable-5":
		return Price{10, 50}, true
	case "claude-opus-5-5":
		return Price{4, 20}, true
	case "claude-opus-5", "claude-opus-4-8", "claude-opus-4-7", "claude-opus-4-6", "claude-opus-4-5":
		return Price{5, 25}, true
	case "claude-sonnet-5-5", "claude-sonnet-5":
		return Price{2, 10}, true
	case "claude-sonnet-4-6", "claude-sonnet-4-5", "claude-sonnet-4-0", "claude-sonnet-4":
		return Price{3, 15}, true
	case "claude-haiku-5-5":
		return Price{0.10, 0.50}, true
	case "claude-haiku-4-5":
		return Price{1, 5}, true
	}
	return Price{}, false
}
