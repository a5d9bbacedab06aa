package fleet

// Endpoint is one endpoint of a pool as an operator's metrics show it.
type Endpoint struct {
	// Name is the endpoint as logs show it (EndpointName): no path, query
	// or credentials.
	Name string
	// Up says the endpoint is connected and its browser alive.
	Up bool
	// Sessions is the number of sessions placed on it, opening ones too.
	Sessions int
}

// Endpoints reports the endpoints of --browser-pool, in its order; none
// for a fleet of one browser.
func (f *Fleet) Endpoints() []Endpoint {
	f.mu.Lock()
	defer f.mu.Unlock()
	var eps []Endpoint
	for _, mb := range f.members {
		if mb.endpoint == "" {
			continue
		}
		eps = append(eps, Endpoint{Name: mb.name(), Up: mb.b != nil && mb.b.Alive(), Sessions: mb.sessions})
	}
	return eps
}
