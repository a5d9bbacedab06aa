package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/chaperone-mcp/chaperone/fleet"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/tools"
)

// snapshotCmd prints what the agent sees of a page: an outline of the
// elements and the page text, or the snapshot's JSON with --json.
func snapshotCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "snapshot", "snapshot [URL] [flags]")
	all := fs.Bool("all", false, "include elements outside the viewport (viewport_only=false)")
	asJSON := fs.Bool("json", false, "print the snapshot's JSON, as the agent receives it")
	shot := fs.String("screenshot", "", "write the screenshot to `file`")
	cf := addCommonFlags(fs, "warn")
	rest, err := parseFlags(fs, args, e.getenv)
	if err != nil {
		return err
	}
	if len(rest) > 1 {
		return fmt.Errorf("one URL at most, got %q", rest)
	}
	st, err := cf.setup(e.stderr)
	if err != nil {
		return err
	}
	cfg := st.tools
	if len(rest) == 1 {
		cfg.StartURL = rest[0]
		if err := st.policy.Check(cfg.StartURL); err != nil {
			return err
		}
	} else {
		site, err := startDemoSite(st.log)
		if err != nil {
			return err
		}
		defer site.stop()
		cfg.StartURL = site.URL + demoStartPath
	}

	mgr, err := fleet.New(ctx, st.browser, st.fleetConfig(cfg))
	if err != nil {
		return err
	}
	defer mgr.Close()
	sess, err := tools.Open(ctx, mgr, cfg)
	if err != nil {
		return err
	}
	defer sess.Close()
	args2, _ := json.Marshal(map[string]bool{"viewport_only": !*all})
	out, err := sess.Call(ctx, toolapi.GetSnapshot, args2)
	if err != nil {
		return err
	}
	text, err := json.Marshal(out.Value)
	if err != nil {
		return fmt.Errorf("encode the snapshot: %w", err)
	}
	snap, failure := parseSnapshot(text)
	if *shot != "" {
		if out.Image == nil || len(out.Image.Data) == 0 {
			return fmt.Errorf("no screenshot was taken, so none written to %s", *shot)
		}
		if err := os.WriteFile(*shot, out.Image.Data, 0o644); err != nil {
			return fmt.Errorf("write the screenshot: %w", err)
		}
	}
	if *asJSON {
		var buf bytes.Buffer
		if err := json.Indent(&buf, text, "", "  "); err != nil {
			return fmt.Errorf("format the snapshot: %w", err)
		}
		fmt.Fprintln(e.stdout, buf.String())
	} else {
		printOutline(e.stdout, snap, out.Image)
		if *shot != "" {
			fmt.Fprintf(e.stdout, "\nScreenshot written to %s\n", *shot)
		}
	}
	if failure != "" {
		return fmt.Errorf("the snapshot is incomplete: %s", failure)
	}
	return nil
}

// parseSnapshot reads a get_snapshot result: a snapshot, or an action result
// carrying one and the reason it failed.
func parseSnapshot(text []byte) (*snapshot.Snapshot, string) {
	var r struct {
		Snapshot *snapshot.Snapshot `json:"snapshot"`
		Error    *string            `json:"error"`
		Message  string             `json:"message"`
	}
	if json.Unmarshal(text, &r) == nil && r.Snapshot != nil {
		why := r.Message
		if r.Error != nil {
			why = *r.Error + ": " + why
		}
		return r.Snapshot, why
	}
	var s snapshot.Snapshot
	if err := json.Unmarshal(text, &s); err != nil {
		return &snapshot.Snapshot{}, err.Error()
	}
	return &s, ""
}

// printOutline writes the snapshot as a person reads it: the page, the
// elements as a tree, the page text and the notes.
func printOutline(w io.Writer, s *snapshot.Snapshot, img *snapshot.Screenshot) {
	fmt.Fprintf(w, "%s\n%s\n", orNone(s.Page.Title, "(no title)"), s.Page.URL)
	fmt.Fprintf(w, "viewport %g×%g, scrolled to %g,%g · %d elements", s.Viewport.Width, s.Viewport.Height, s.Viewport.ScrollX, s.Viewport.ScrollY, len(s.Elements))
	if s.Focused != nil {
		fmt.Fprintf(w, " · focus on %s", *s.Focused)
	}
	if img != nil {
		fmt.Fprintf(w, " · screenshot %s %d×%d", img.MIMEType, img.Width, img.Height)
	}
	fmt.Fprintln(w)

	fmt.Fprintln(w, "\nElements")
	byRef := make(map[string]snapshot.Element, len(s.Elements))
	isChild := make(map[string]bool)
	for _, el := range s.Elements {
		byRef[el.Ref] = el
		for _, c := range el.Children {
			isChild[c] = true
		}
	}
	printed := make(map[string]bool)
	var walk func(el snapshot.Element, depth int)
	walk = func(el snapshot.Element, depth int) {
		if printed[el.Ref] {
			return
		}
		printed[el.Ref] = true
		fmt.Fprintf(w, "%s%s\n", strings.Repeat("  ", depth+1), elementLine(el))
		for _, c := range el.Children {
			if child, ok := byRef[c]; ok {
				walk(child, depth+1)
			}
		}
	}
	for _, el := range s.Elements {
		if !isChild[el.Ref] {
			walk(el, 0)
		}
	}
	for _, el := range s.Elements {
		walk(el, 0) // children whose parent was left out
	}
	if len(s.Elements) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	if s.Text != "" {
		fmt.Fprintln(w, "\nPage text")
		for _, line := range strings.Split(strings.TrimRight(s.Text, "\n"), "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	if len(s.Notes) > 0 {
		fmt.Fprintln(w, "\nNotes")
		for _, n := range s.Notes {
			fmt.Fprintf(w, "  - %s\n", n)
		}
	}
}

// elementLine is one element of the outline:
// @e4 button "Cancel Membership" [enabled] (x,y w×h).
func elementLine(el snapshot.Element) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-5s %s %q", el.Ref, el.Role, el.Name)
	if el.Level > 0 {
		fmt.Fprintf(&b, " level %d", el.Level)
	}
	if el.Kind != "" {
		fmt.Fprintf(&b, " kind %s", el.Kind)
	}
	if el.Value != nil {
		fmt.Fprintf(&b, " = %q", *el.Value)
	}
	if len(el.State) > 0 {
		fmt.Fprintf(&b, " [%s]", strings.Join(el.State, " "))
	}
	fmt.Fprintf(&b, " (%g,%g %g×%g)", el.BBox.X, el.BBox.Y, el.BBox.Width, el.BBox.Height)
	return b.String()
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}
