package main

import (
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
	sf := addSiteFlags(fs, "the `URL` to start at, demo:/path for a page of the demo site (default: the profile's start URL, else the script's)")
	model := fs.String("model", driver.DefaultModel, "the Claude `model` that recovers a step that does not replay, when ANTHROPIC_API_KEY is set")
	modelTimeout := fs.Duration("model-timeout", driver.DefaultModelTimeout, "the time one model call may take")
	tf := addTaskFlags(fs)
	cf := addCommonFlags(fs, "info")
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
	st, err := cf.setup(e.stderr)
	if err != nil {
		return err
	}
	t, err := sf.task(e, tf, st)
	if err != nil {
		return err
	}
	t.goal, t.script = script.Goal, script
	if t.startURL == "" && t.profiles.named == nil {
		t.startURL = script.StartURL
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
