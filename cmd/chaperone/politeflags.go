package main

import (
	"flag"
	"fmt"

	"github.com/chaperone-mcp/chaperone/tools"
)

// politeFlags are the flags of polite automation: how fast a session may
// act, and whether it honours robots.txt.
type politeFlags struct {
	maxActionsPerMinute int
	respectRobots       bool
}

// addPoliteFlags defines the polite-automation flags on fs.
func addPoliteFlags(fs *flag.FlagSet) *politeFlags {
	p := &politeFlags{}
	fs.IntVar(&p.maxActionsPerMinute, "max-actions-per-minute", 0, "space each session's actions (clicks, typing, navigations; not reading the page) at least a minute / `N` apart: a call that comes sooner waits, and its result says how long; 0: no limit")
	fs.BoolVar(&p.respectRobots, "respect-robots", false, "refuse a URL the agent opens (browser_navigate, a new tab) that its site's robots.txt disallows to Chaperone (or *)")
	return p
}

// apply checks the flags and puts them into cfg.
func (p *politeFlags) apply(cfg *tools.Config) error {
	if p.maxActionsPerMinute < 0 {
		return fmt.Errorf("--max-actions-per-minute %d: want 0 (no limit) or more", p.maxActionsPerMinute)
	}
	cfg.MaxActionsPerMinute = p.maxActionsPerMinute
	cfg.RespectRobots = p.respectRobots
	return nil
}
