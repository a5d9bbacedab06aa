package approver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/internal/filename"
)

// TTY asks on a terminal: the controlling terminal (/dev/tty) for
// `chaperone run`, never stdin or stdout, which carry MCP under stdio. One
// question is asked at a time; the others wait their turn.
type TTY struct {
	out io.Writer
	// ScreenshotDir, when set, is where each request's screenshot is saved
	// so the person can open it; the prompt shows the path.
	ScreenshotDir string

	turn   chan struct{} // holds a token while a question is on screen
	lines  chan string   // the reader goroutine's lines; closed at EOF
	closer io.Closer
}

// NewTTY asks on out and reads answers from in, one per line. Tests drive
// it through a pipe.
func NewTTY(in io.Reader, out io.Writer) *TTY {
	t := &TTY{out: out, turn: make(chan struct{}, 1), lines: make(chan string)}
	go func() {
		defer close(t.lines)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			t.lines <- sc.Text()
		}
	}()
	return t
}

// OpenTTY opens the controlling terminal. Without one (a daemon, CI) it
// returns an error wrapping checkpoint.ErrNoApprover. Screenshots are saved
// in the temporary directory.
func OpenTTY() (*TTY, error) {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("terminal: %w: %v", checkpoint.ErrNoApprover, err)
	}
	t := NewTTY(f, f)
	t.closer = f
	t.ScreenshotDir = os.TempDir()
	return t, nil
}

// Close closes the terminal OpenTTY opened.
func (t *TTY) Close() error {
	if t.closer == nil {
		return nil
	}
	return t.closer.Close()
}

// Approve shows r and reads "y" or "n" (default no), or, when r names a
// site outside the write set, "a" to approve and allow writing there for
// the rest of the task; then, after a rejection, an optional message for
// the agent.
func (t *TTY) Approve(ctx context.Context, r checkpoint.Request) (checkpoint.Decision, error) {
	select {
	case t.turn <- struct{}{}:
		defer func() { <-t.turn }()
	case <-ctx.Done():
		return checkpoint.Decision{}, fmt.Errorf("terminal: %w", context.Cause(ctx))
	}
	// Lines typed while nobody asked are not answers to this question.
	for drained := false; !drained; {
		select {
		case _, ok := <-t.lines:
			if !ok {
				return checkpoint.Decision{}, fmt.Errorf("terminal: %w: input closed", checkpoint.ErrNoApprover)
			}
		default:
			drained = true
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "\n=== Chaperone: approval needed ===\n")
	switch r.Kind {
	case checkpoint.KindAgent:
		fmt.Fprintf(&b, "(requested by the agent, in its own words)\n")
	case checkpoint.KindPlan:
		fmt.Fprintf(&b, "(the agent's plan, in its own words; its sites as the browser connects to them)\n")
	}
	// Prompt and Lines are escaped: nothing a page or the model wrote can
	// move the cursor, clear the screen or reorder what the person reads.
	fmt.Fprintf(&b, "%s\n", r.Prompt())
	for _, l := range r.Lines() {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	if r.Screenshot != nil && len(r.Screenshot.Data) > 0 {
		fmt.Fprintf(&b, "  Screenshot: %dx%d %s", r.Screenshot.Width, r.Screenshot.Height, checkpoint.OneLine(r.Screenshot.MIMEType))
		if path, err := t.saveScreenshot(r); err == nil {
			fmt.Fprintf(&b, ", saved to %s", checkpoint.OneLine(path))
			if r.Concrete != nil && r.Concrete.Box != nil {
				b.WriteString(" (the element is outlined)")
			}
		}
		b.WriteString("\n")
	}
	switch {
	case r.Plan != nil && len(r.Plan.Sites) > 0:
		b.WriteString("Approve? [y/N, or e to change the sites first]: ")
	case r.Site != "":
		fmt.Fprintf(&b, "Approve? [y/N, or a to allow on %s for this task]: ", checkpoint.OneLine(r.Site))
	default:
		b.WriteString("Approve? [y/N]: ")
	}
	if _, err := io.WriteString(t.out, b.String()); err != nil {
		return checkpoint.Decision{}, fmt.Errorf("terminal: %w: %v", checkpoint.ErrNoApprover, err)
	}
	answer, err := t.readLine(ctx)
	if err != nil {
		return checkpoint.Decision{}, err
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		fmt.Fprintf(t.out, "Approved.\n")
		return checkpoint.Decision{Approved: true, Channel: checkpoint.ChannelTTY}, nil
	case "e", "edit":
		if r.Plan != nil && len(r.Plan.Sites) > 0 {
			return t.editPlan(ctx, *r.Plan)
		}
	case "a", "allow":
		if r.Site != "" {
			fmt.Fprintf(t.out, "Approved, and allowed on %s for this task.\n", checkpoint.OneLine(r.Site))
			return checkpoint.Decision{Approved: true, Channel: checkpoint.ChannelTTY, WidenSite: r.Site}, nil
		}
	}
	fmt.Fprintf(t.out, "Rejected. Message to the agent (optional, Enter to skip): ")
	feedback, err := t.readLine(ctx)
	if err != nil {
		return checkpoint.Decision{}, err
	}
	return checkpoint.Decision{Feedback: strings.TrimSpace(feedback), Channel: checkpoint.ChannelTTY}, nil
}

// maxPlanTries bounds the answers editPlan reads about one site.
const maxPlanTries = 5

// editPlan asks about each of a plan's sites in turn (write, read only or
// remove; Enter keeps it as proposed), shows the plan as the person left
// it, and asks once more to approve it.
func (t *TTY) editPlan(ctx context.Context, p checkpoint.Plan) (checkpoint.Decision, error) {
	edited := checkpoint.Plan{Steps: p.Steps}
	for _, ps := range p.Sites {
		site := checkpoint.OneLine(ps.Site)
		choices, now := "r=read only, x=remove", "read only"
		if ps.Write {
			choices, now = "w=write without asking, r=read only, x=remove", "write"
		}
		for tries := 0; ; tries++ {
			if tries == maxPlanTries {
				// Someone who cannot answer is not approving.
				fmt.Fprintf(t.out, "No valid answer: the plan is rejected.\n")
				return checkpoint.Decision{Feedback: "(the plan's sites got no valid answer at the terminal)", Channel: checkpoint.ChannelTTY}, nil
			}
			fmt.Fprintf(t.out, "  %s [%s; Enter keeps %s]: ", site, choices, now)
			answer, err := t.readLine(ctx)
			if err != nil {
				return checkpoint.Decision{}, err
			}
			a := strings.ToLower(strings.TrimSpace(answer))
			switch {
			case a == "" || (a == "w" && ps.Write):
				edited.Sites = append(edited.Sites, ps)
			case a == "r":
				edited.Sites = append(edited.Sites, checkpoint.PlanSite{Site: ps.Site})
			case a == "x":
			default:
				continue
			}
			break
		}
	}
	var b strings.Builder
	b.WriteString("The plan's sites as you left them:\n")
	if len(edited.Sites) == 0 {
		b.WriteString("  (none)\n")
	}
	for _, ps := range edited.Sites {
		how := "read only"
		if ps.Write {
			how = "WRITE without asking"
		}
		fmt.Fprintf(&b, "  %s: %s\n", checkpoint.OneLine(ps.Site), how)
	}
	b.WriteString("Approve the plan with these sites? [y/N]: ")
	io.WriteString(t.out, b.String())
	answer, err := t.readLine(ctx)
	if err != nil {
		return checkpoint.Decision{}, err
	}
	if a := strings.ToLower(strings.TrimSpace(answer)); a == "y" || a == "yes" {
		fmt.Fprintf(t.out, "Approved.\n")
		return checkpoint.Decision{Approved: true, Channel: checkpoint.ChannelTTY, Plan: &edited}, nil
	}
	fmt.Fprintf(t.out, "Rejected. Message to the agent (optional, Enter to skip): ")
	feedback, err := t.readLine(ctx)
	if err != nil {
		return checkpoint.Decision{}, err
	}
	return checkpoint.Decision{Feedback: strings.TrimSpace(feedback), Channel: checkpoint.ChannelTTY}, nil
}

func (t *TTY) readLine(ctx context.Context) (string, error) {
	select {
	case line, ok := <-t.lines:
		if !ok {
			return "", fmt.Errorf("terminal: %w: input closed", checkpoint.ErrNoApprover)
		}
		return line, nil
	case <-ctx.Done():
		fmt.Fprintf(t.out, "\n(withdrawn: the request was cancelled)\n")
		return "", fmt.Errorf("terminal: %w", context.Cause(ctx))
	}
}

func (t *TTY) saveScreenshot(r checkpoint.Request) (string, error) {
	if t.ScreenshotDir == "" {
		return "", fmt.Errorf("no screenshot dir")
	}
	ext := ".png"
	if strings.Contains(r.Screenshot.MIMEType, "jpeg") {
		ext = ".jpg"
	}
	path := filepath.Join(t.ScreenshotDir, "chaperone-approval-"+filename.Safe(r.ID)+ext)
	if err := os.WriteFile(path, r.Screenshot.Data, 0o600); err != nil {
		return "", err
	}
	return path, nil
}
