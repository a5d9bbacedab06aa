package fleet

import "time"

// EndpointStatus is one pool endpoint as an operator's status page or
// metrics show it.
type EndpointStatus struct {
	// Name is the endpoint without credentials (EndpointName).
	Name string
	// Up says whether its browser is connected.
	Up bool
	// Sessions counts the sessions on it, those opening included.
	Sessions int
	// Reason is why it is down (its last failure), "" while it is up.
	Reason string
	// RetryAt is when it is tried again while it is down.
	RetryAt time.Time
}

// Endpoints reports each pool endpoint, in the order of Config.Pool; nil
// for a Fleet without a pool.
func (f *Fleet) Endpoints() []EndpointStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	var st []EndpointStatus
	for _, mb := range f.members {
		if mb.endpoint == "" {
			continue
		}
		up := mb.b != nil && mb.b.Alive()
		s := EndpointStatus{Name: mb.name(), Up: up, Sessions: mb.sessions}
		if !up {
			s.Reason, s.RetryAt = mb.reason, mb.retryAt
			if s.Reason == "" {
				s.Reason = "not connected yet"
			}
		}
		st = append(st, s)
	}
	return st
}
