package tools

import (
	"context"
	"fmt"
)

// move reopens the session's page on another browser after its own died:
// a new isolated context, at the URL the page was on. It returns the message
// the agent must see.
func (s *Session) move(ctx context.Context) string {
	from, url := s.lease.Where(), s.tab.URL()
	next, err := s.lease.Move(ctx)
	if err != nil {
		s.lease = nil
		return fmt.Sprintf("The browser at %s went away and no other browser of the pool could take this session: %v. Every ref from earlier snapshots is invalid.", from, err)
	}
	s.tab, s.lease = next.Context, next
	s.watchDevtools()
	s.log.Warn("browser pool: session moved", "from", from, "to", next.Where())
	lost := "cookies and storage of the old one are lost"
	switch {
	case next.StorageErr != nil:
		lost = fmt.Sprintf("loading the --storage-state login into it failed: %v", next.StorageErr)
	case next.HasStorage():
		lost = "the --storage-state login loaded again; what the old one added is lost"
	}
	msg := fmt.Sprintf("The browser at %s went away; this session moved to the browser at %s, in a fresh context (%s). Every ref from earlier snapshots is invalid.", from, next.Where(), lost)
	if url == "" || url == "about:blank" {
		return msg + " Read the new snapshot before acting."
	}
	if err := s.tab.Navigate(ctx, url); err != nil {
		return msg + fmt.Sprintf(" Reopening %s failed: %v.", url, err)
	}
	return msg + fmt.Sprintf(" The page was at %s and has been reopened: read the new snapshot before acting.", url)
}
