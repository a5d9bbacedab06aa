package approver

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// ttyHuman plays the person at the terminal through a pipe.
type ttyHuman struct {
	in  *io.PipeWriter
	out chan byte // everything the terminal printed, read as it comes
}

func newTTYPair(t *testing.T) (*TTY, *ttyHuman) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	t.Cleanup(func() { inW.Close(); outW.Close() })
	h := &ttyHuman{in: inW, out: make(chan byte, 1<<16)}
	go func() {
		defer close(h.out)
		r := bufio.NewReader(outR)
		for {
			c, err := r.ReadByte()
			if err != nil {
				return
			}
			h.out <- c
		}
	}()
	return NewTTY(inR, outW), h
}

// readUntil reads the terminal's output up to and including s.
func (h *ttyHuman) readUntil(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	timeout := time.After(10 * time.Second)
	for !strings.HasSuffix(b.String(), s) {
		select {
		case c, ok := <-h.out:
			if !ok {
				t.Fatalf("terminal output ended after %q", b.String())
			}
			b.WriteByte(c)
		case <-timeout:
			t.Fatalf("terminal never printed %q; printed %q", s, b.String())
		}
	}
	return b.String()
}

func (h *ttyHuman) say(line string) { io.WriteString(h.in, line+"\n") }

func TestTTY(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		answers []string
		want    checkpoint.Decision
	}{
		{"yes", []string{"y"}, checkpoint.Decision{Approved: true, Channel: checkpoint.ChannelTTY}},
		{"YES", []string{" YES "}, checkpoint.Decision{Approved: true, Channel: checkpoint.ChannelTTY}},
		{"no with feedback", []string{"n", "use the other plan"}, checkpoint.Decision{Feedback: "use the other plan", Channel: checkpoint.ChannelTTY}},
		{"enter means no", []string{"", ""}, checkpoint.Decision{Channel: checkpoint.ChannelTTY}},
		{"anything else means no", []string{"approve", ""}, checkpoint.Decision{Channel: checkpoint.ChannelTTY}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tty, person := newTTYPair(t)
			tty.ScreenshotDir = t.TempDir()
			res := approveAsync(t.Context(), tty, testRequest("r-1"))
			screen := person.readUntil(t, "Approve? [y/N]: ")
			t.Logf("the terminal shows:%s", screen)
			for _, want := range []string{`The system wants to proceed with: click button "Finish Cancellation". Approve?`,
				"  Action: click\n", `  Element: button "Finish Cancellation"`, `  Page: "Finish Cancellation"`,
				"Reason: The page matches", "  URL: http://127.0.0.1:9/finish", "Screenshot: 1x1 image/png, saved to " + tty.ScreenshotDir,
				"(the element is outlined)"} {
				if !strings.Contains(screen, want) {
					t.Errorf("screen lacks %q:\n%s", want, screen)
				}
			}
			person.say(c.answers[0])
			if len(c.answers) > 1 {
				person.readUntil(t, "Enter to skip): ")
				person.say(c.answers[1])
			}
			if r := <-res; r.err != nil || r.d != c.want {
				t.Errorf("got %+v, want %+v", r, c.want)
			}
		})
	}
}

func TestTTYWithdrawAndClosedInput(t *testing.T) {
	t.Parallel()
	tty, person := newTTYPair(t)
	ctx, cancel := context.WithCancel(t.Context())
	res := approveAsync(ctx, tty, testRequest("r-1"))
	person.readUntil(t, "[y/N]: ")
	cancel()
	person.readUntil(t, "(withdrawn: the request was cancelled)\n")
	if r := <-res; !errors.Is(r.err, context.Canceled) {
		t.Errorf("withdrawn: %+v", r)
	}
	// A late "y" to the withdrawn question approves nothing later.
	person.say("y")
	time.Sleep(20 * time.Millisecond)
	res = approveAsync(t.Context(), tty, testRequest("r-2"))
	person.readUntil(t, "[y/N]: ")
	person.say("n")
	person.readUntil(t, "skip): ")
	person.say("")
	if r := <-res; r.d.Approved {
		t.Errorf("a stale answer approved: %+v", r)
	}
	person.in.Close()
	if _, err := tty.Approve(t.Context(), testRequest("r-3")); !errors.Is(err, checkpoint.ErrNoApprover) {
		t.Errorf("closed terminal: %v", err)
	}
}

// TestTTYEscapesHostileText: a page title and agent's words that carry an
// ANSI sequence and a bidi override reach the terminal escaped; the request
// in words alone says it approves nothing; the screenshot file is the
// owner's alone.
func TestTTYEscapesHostileText(t *testing.T) {
	t.Parallel()
	tty, person := newTTYPair(t)
	tty.ScreenshotDir = t.TempDir()
	res := approveAsync(t.Context(), tty, hostileRequest("r-h"))
	screen := person.readUntil(t, "Approve? [y/N]: ")
	t.Logf("the terminal shows:%s", screen)
	if readsRaw(screen) {
		t.Errorf("raw escape or override on the terminal: %q", screen)
	}
	for _, want := range []string{"(requested by the agent, in its own words)", `\x1b[2J\u202e`, "The agent's own words:", "approves nothing by itself"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	person.say("n")
	person.readUntil(t, "Enter to skip): ")
	person.say("")
	if r := <-res; r.err != nil || r.d.Approved {
		t.Errorf("got %+v", r)
	}
	shots, _ := filepath.Glob(filepath.Join(tty.ScreenshotDir, "*"))
	if len(shots) != 1 {
		t.Fatalf("screenshots saved: %v", shots)
	}
	if info, err := os.Stat(shots[0]); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("%s: %v %v, want mode 0600", shots[0], info.Mode().Perm(), err)
	}
}
