package tools

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// maxSliderKeys bounds the key presses one browser_fill of a slider makes.
const maxSliderKeys = 200

// sliderNumber finds the number in what a slider shows ("-97 (shown
// beside)", "55% (position)", "$1,200"), a typographic minus included.
var sliderNumber = regexp.MustCompile(`[-−]?\d[\d,]*(\.\d+)?`)

// isSlider reports whether t is a slider that is no input: a handle a
// widget library draws, moved by its keys.
func isSlider(t snapshot.Target) bool {
	return t.Role == "slider" && t.Tag != "input"
}

// fillSlider runs browser_fill on a slider a widget library draws: as a
// person does, it moves the handle with its keys (Page Up or Down while a
// page's step does not pass the value asked, then the arrows), reading the
// value the slider shows after each press (browser.Context.SliderValue:
// its ARIA value, the number shown beside it, or its position in percent),
// until it shows the value asked. It fails, saying what the slider shows,
// when the keys cannot bring it there.
func (s *Session) fillSlider(ctx context.Context, c *call, in fillInput) (string, error) {
	want, err := sliderTarget(in.Value)
	if err != nil {
		return "", err
	}
	var shows string
	p, err := s.committed(ctx, c, func(ctx context.Context) (planned, error) {
		t, err := s.target(in.Ref)
		if err != nil {
			return planned{}, err
		}
		insp, err := s.check(ctx, t, true)
		if err != nil {
			return planned{}, err
		}
		a := s.actionOn(checkpoint.VerbFill, t, insp)
		a.Value = strings.TrimSpace(*in.Value)
		return planned{t: t, insp: insp, action: a}, nil
	}, func(ctx context.Context, p planned) error {
		var err error
		_, err = s.settle(ctx, c, s.config.ActionTimeout, func(ctx context.Context) error {
			if err := s.tab.Focus(ctx, p.t.BackendNodeID); err != nil {
				return fail(toolapi.InvalidParams, "%s (%s %q) cannot take the keyboard focus, so its keys cannot move it; drag its handle instead.", p.t.Ref, p.t.Role, p.t.Name)
			}
			shows, err = s.moveSlider(ctx, p.t.BackendNodeID, want)
			return err
		}, "")
		return err
	})
	if err != nil {
		return "", err
	}
	if v, ok := sliderReading(shows); !ok || v != want {
		return "", fail(toolapi.ActionFailed, "%s %s %q shows %s after its keys moved it, not %s: it may not stop there. The snapshot shows where it is.", p.t.Ref, p.t.Role, p.t.Name, s.clip(shows, textLimit), quoted(in.Value))
	}
	return fmt.Sprintf("Set %s %s %q to %s with its keys. It shows %s.", p.t.Ref, p.t.Role, p.t.Name, quoted(in.Value), s.clip(shows, textLimit)), nil
}

// quoted quotes a value for a message.
func quoted(v *string) string { return strconv.Quote(strings.TrimSpace(*v)) }

// sliderTarget reads the number a fill asks a slider for.
func sliderTarget(v *string) (float64, error) {
	if v == nil {
		return 0, fail(toolapi.InvalidParams, "browser_fill on a slider needs a value: the number it should show.")
	}
	n, ok := sliderReading(*v)
	if !ok {
		return 0, fail(toolapi.InvalidParams, "browser_fill on a slider needs a number to set it to, not %q.", *v)
	}
	return n, nil
}

// sliderReading is the number in what a slider shows.
func sliderReading(s string) (float64, bool) {
	m := sliderNumber.FindString(s)
	if m == "" {
		return 0, false
	}
	m = strings.ReplaceAll(strings.Replace(m, "−", "-", 1), ",", "")
	n, err := strconv.ParseFloat(m, 64)
	return n, err == nil
}

// moveSlider presses the focused slider's keys until it shows want, at
// most maxSliderKeys presses, and returns what it shows last. A key that
// passes want is taken back and a finer one tried; a key that changes
// nothing is not pressed again; a slider whose up keys lower it is moved
// the other way round.
func (s *Session) moveSlider(ctx context.Context, node int64, want float64) (string, error) {
	read := func() (string, float64, error) {
		v, err := s.tab.SliderValue(ctx, node)
		if err != nil {
			return "", 0, err
		}
		n, ok := sliderReading(v)
		if !ok {
			return v, 0, fail(toolapi.ActionFailed, "the slider shows no number (%q), so it cannot be set to one.", s.clip(v, textLimit))
		}
		return v, n, nil
	}
	shows, now, err := read()
	if err != nil {
		return shows, err
	}
	pairs := [][2]string{{"PageUp", "PageDown"}, {"ArrowRight", "ArrowLeft"}}
	presses := 0
	press := func(key string) error {
		presses++
		chord, err := browser.ParseKey(key)
		if err != nil {
			return err
		}
		// The fill was judged as keys to the slider: a page that moves
		// the focus (to a radio group, a select) gets no more of them.
		if now, err := s.tab.Focused(ctx); err != nil || now != node {
			return fail(toolapi.ActionFailed, "The page moved the keyboard focus away from the slider after %d key presses; no more were sent. The snapshot shows where it is.", presses-1)
		}
		return s.tab.Press(ctx, chord)
	}
	for _, pair := range pairs {
		up, down := pair[0], pair[1]
		for now != want && presses < maxSliderKeys {
			key, back := up, down
			if now > want {
				key, back = down, up
			}
			if err := press(key); err != nil {
				return shows, err
			}
			v, n, err := read()
			if err != nil {
				return v, err
			}
			if n == now {
				break // this key does not move it
			}
			if (n > now) != (key == up) {
				// The slider runs the other way: swap its keys.
				up, down = down, up
			}
			if (now < want && n > want) || (now > want && n < want) {
				// Passed it: take the step back and go finer.
				if err := press(back); err != nil {
					return v, err
				}
				shows, now, err = read()
				if err != nil {
					return shows, err
				}
				break
			}
			shows, now = v, n
		}
	}
	return shows, nil
}
