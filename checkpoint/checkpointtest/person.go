// Package checkpointtest holds test doubles of the people a checkpoint asks.
package checkpointtest

import (
	"context"
	"sync"

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// Person is a scripted person: it gives Answer to every request and keeps
// the requests it was asked. Set Answer before the first request.
type Person struct {
	Answer checkpoint.Decision

	mu    sync.Mutex
	asked []checkpoint.Request
}

// Approve remembers r and answers.
func (p *Person) Approve(_ context.Context, r checkpoint.Request) (checkpoint.Decision, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, r)
	return p.Answer, nil
}

// Requests returns what the person was asked, in order.
func (p *Person) Requests() []checkpoint.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]checkpoint.Request(nil), p.asked...)
}
