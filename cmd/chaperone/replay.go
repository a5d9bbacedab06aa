package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/chaperone-mcp/chaperone/driver"
)

// replayCmd performs a recorded script again: with no model while every
// step finds its one element, with Claude (when ANTHROPIC_API_KEY is set)
// for a step that does not, then with the person.
func replayCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "replay", "replay SCRIPT [flags]")
	sf := addSiteFlags(fs, "the `URL` to start at, demo:/path for a page of the demo site (default: the script's, or with --profile the profile's start URL)")
	model := fs.String("model", driver.DefaultModel, "the Claude `model` that recovers a step that does not replay, when ANTHROPIC_API_KEY is set")
	modelTimeout := fs.Duration("model-timeout", driver.DefaultModelTimeout, "the time one model call may take")
	tf := addTaskFlags(fs)
	cf := addCommonFlags(fs, "info")
	keepStills(fs)
	rest, err := parseFlags(fs, args, e.getenv)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return errors.New("say which script to replay: chaperone replay SCRIPT (a run's script.json)")
	}
	script, err := driver.ReadScript(rest[0])
	if err != nil {
		return err
	}
	// The script says where to start and under which profile, unless the
	// person says otherwise. It is a file anyone may have written: it may
	// name a profile but never turn the checkpoints off, and its start URL
	// passes the same URL policy as --url.
	profileGiven := *sf.profile != ""
	if !profileGiven && script.Profile != "" {
		if script.Profile == profileNone {
			return fmt.Errorf("read script %s: a script cannot turn the checkpoints off (profile %q); say --profile %s to replay without them", rest[0], profileNone, profileNone)
		}
		*sf.profile = script.Profile
		fmt.Fprintf(e.stdout, "Profile: %s (the script's)\n", script.Profile)
	}
	st, err := cf.setup(e.stderr)
	if err != nil {
		return err
	}
	t, err := sf.task(e, tf, st)
	if err != nil {
		return err
	}
	t.goal, t.script = script.Goal, script
	switch {
	case t.startURL != "":
	case profileGiven && t.profiles.named != nil && t.profiles.named.StartURL != "":
		// The person's profile says where to start.
	default:
		// A script of format 1 says only the page it started on.
		t.startURL = cmp.Or(script.Start, script.StartURL)
	}
	t.modelTimeout = *modelTimeout
	cc, err := driver.ClaudeConfigFromEnv(e.getenv, *model)
	switch {
	case errors.Is(err, driver.ErrNoAPIKey):
		fmt.Fprintln(e.stdout, "ANTHROPIC_API_KEY is not set: a step that does not replay goes to the person, not to a model.")
	case err != nil:
		return err
	default:
		claude, err := driver.NewClaude(cc)
		if err != nil {
			return err
		}
		t.model, t.modelName = claude, claude.Name()
	}
	res, err := drive(ctx, e, t)
	if err != nil {
		return err
	}
	if !res.Success {
		return fmt.Errorf("the replay did not succeed: %s", res.Reason)
	}
	return nil
}
