package driver_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chaperone-mcp/chaperone/driver"
	"github.com/chaperone-mcp/chaperone/driver/drivertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// askings records what a person was asked when the agent was stuck and
// gives one answer.
type askings struct {
	answer driver.StuckAnswer
	mu     sync.Mutex
	asked  []driver.StuckQuestion
}

func (a *askings) ask(_ context.Context, q driver.StuckQuestion) (driver.StuckAnswer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, q)
	return a.answer, nil
}

// Three failed calls in a row on one page make the next request carry a
// reflection prompt with the error codes; three more ask the person, whose
// hint goes to the model and whose "stop" ends the run. A call that works
// starts the count again.
func TestSelfCorrection(t *testing.T) {
	t.Parallel()
	fail := reply(click("@e2"))
	tests := []struct {
		name    string
		replies []fakeReply
		// ask is the person's answer; nil: nobody to ask.
		ask *driver.StuckAnswer
		// reflect lists the requests (1-based) that carry the reflection.
		reflect    []int
		hintIn     int // the request that carries the hint, or 0
		asked      int
		reason     string
		turns      int
		noteOnTurn int
	}{
		{"a hint goes to the model", []fakeReply{fail, fail, fail, fail, fail, fail, reply(click("@e1")), reply(complete("success"))},
			&driver.StuckAnswer{Hint: "close the cookie banner first"}, []int{4}, 7, 1, driver.ReasonCompleted, 8, 3},
		{"the person stops the run", []fakeReply{fail, fail, fail, fail, fail, fail, reply(click("@e1"))},
			&driver.StuckAnswer{Stop: true, Hint: "leave it"}, []int{4}, 0, 1, driver.ReasonStuck, 6, 3},
		{"nobody to ask", []fakeReply{fail, fail, fail, fail, fail, fail, reply(click("@e1"))},
			nil, []int{4}, 0, 0, driver.ReasonStuck, 6, 3},
		{"a call that works starts again", []fakeReply{fail, fail, reply(click("@e1")), fail, fail, reply(complete("success"))},
			&driver.StuckAnswer{}, nil, 0, 0, driver.ReasonCompleted, 6, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mb := &drivertest.MockBrowser{
				Page:    drivertest.Page("https://shop.test/", 0, "Buy", "Cancel"),
				Actions: map[string]drivertest.MockOutcome{toolapi.Click + " @e2": {Error: toolapi.ElementObscured, Message: "a banner covers it"}},
			}
			h := newHarness(t, mb, tt.replies...)
			person := &askings{}
			if tt.ask != nil {
				person.answer = *tt.ask
				h.cfg.Ask = person.ask
			}
			res := h.run(t)
			if res.Reason != tt.reason || res.Turns != tt.turns {
				t.Fatalf("result = %+v, want %s after %d turns", res, tt.reason, tt.turns)
			}
			for i, r := range h.api.Requests() {
				last := r.Messages[len(r.Messages)-1].joined()
				reflects := strings.Contains(last, "REFLECT: your last 3 calls on this page failed")
				want := false
				for _, n := range tt.reflect {
					want = want || n == i+1
				}
				if reflects != want {
					t.Errorf("request %d reflects = %v, want %v:\n%s", i+1, reflects, want, last)
				}
				if reflects && strings.Count(last, "failed (element_obscured)") != 3 {
					t.Errorf("request %d: the reflection does not list the three error codes:\n%s", i+1, last)
				}
				if hinted := strings.Contains(last, "close the cookie banner first"); hinted != (i+1 == tt.hintIn) {
					t.Errorf("request %d carries the hint = %v", i+1, hinted)
				}
			}
			if len(person.asked) != tt.asked {
				t.Fatalf("the person was asked %d times, want %d", len(person.asked), tt.asked)
			}
			if tt.asked > 0 {
				q := person.asked[0]
				if len(q.Failures) != 2*driver.ReflectAfter || q.URL != "https://shop.test/" || !strings.Contains(q.Failures[0], `@e2 button "Cancel"`) {
					t.Errorf("question = %+v", q)
				}
			}
			if tt.noteOnTurn > 0 {
				lines := drivertest.ReadSessionLog(t, h.rec.Dir())
				if note, _ := lines[tt.noteOnTurn]["note"].(string); !strings.HasPrefix(note, "REFLECT") {
					t.Errorf("turn %d's record has note %q, want the reflection", tt.noteOnTurn, note)
				}
			}
		})
	}
}

// The same call on an unchanged page, again and again, is as stuck as a
// failing one: three make the next request carry the reflection, six ask the
// person (or end the run with nobody to ask). Real progress, a page that
// changes, starts the count again.
func TestNoProgressIsStuck(t *testing.T) {
	t.Parallel()
	snap := reply(wireCall(toolapi.GetSnapshot, map[string]any{"viewport_only": true}))
	whole := reply(wireCall(toolapi.GetSnapshot, map[string]any{"viewport_only": false}))
	bottom := reply(wireCall(toolapi.Scroll, map[string]any{"direction": "bottom"}))
	fail := reply(click("@e2"))
	times := func(n int, r fakeReply) []fakeReply { return slices.Repeat([]fakeReply{r}, n) }
	// renumbered: every click on "Buy" gives the same page with new refs.
	buy, buyAgain := drivertest.Page("https://shop.test/", 0, "Buy", "Cancel"), drivertest.Page("https://shop.test/", 0, "Buy", "Cancel")
	buyAgain.Elements[0].Ref, buyAgain.Elements[1].Ref = "@e3", "@e4"
	tests := []struct {
		name    string
		replies []fakeReply
		moves   bool
		// reflect is the request (1-based) that carries the reflection, or 0.
		reflect int
		reason  string
		turns   int
	}{
		{"repeated get_snapshot", times(8, snap), false, 5, driver.ReasonStuck, 7},
		{"repeated scroll at the bottom", times(8, bottom), false, 5, driver.ReasonStuck, 7},
		{"repeated failing click", times(8, fail), false, 4, driver.ReasonStuck, 6},
		{"alternating two calls", slices.Concat(times(1, snap), times(1, whole), times(1, snap), times(1, whole),
			times(1, snap), times(1, whole), times(1, snap), times(1, whole), times(1, snap)), false, 6, driver.ReasonStuck, 8},
		{"the same element under new refs", []fakeReply{reply(click("@e1")), reply(click("@e3")), reply(click("@e1")),
			reply(click("@e3")), reply(click("@e1")), reply(click("@e3")), reply(click("@e1")), reply(click("@e3"))}, false, 5, driver.ReasonStuck, 7},
		{"progress starts again", slices.Concat(times(3, snap), []fakeReply{reply(click("@e1"))}, times(3, snap),
			[]fakeReply{reply(click("@e1"))}, times(3, snap), []fakeReply{reply(complete("success"))}), true, 0, driver.ReasonCompleted, 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mb := &drivertest.MockBrowser{
				Page: buy,
				Actions: map[string]drivertest.MockOutcome{
					toolapi.Click + " @e2": {Error: toolapi.ElementObscured, Message: "a banner covers it"},
				},
				Moves: tt.moves,
			}
			if tt.name == "the same element under new refs" {
				mb.Actions[toolapi.Click+" @e1"] = drivertest.MockOutcome{Snapshot: buyAgain}
				mb.Actions[toolapi.Click+" @e3"] = drivertest.MockOutcome{Snapshot: buy}
			}
			h := newHarness(t, mb, tt.replies...)
			res := h.run(t)
			if res.Reason != tt.reason || res.Turns != tt.turns {
				t.Fatalf("result = %+v, want %s after %d turns", res, tt.reason, tt.turns)
			}
			for i, r := range h.api.Requests() {
				last := r.Messages[len(r.Messages)-1].joined()
				if reflects := strings.Contains(last, "REFLECT: your last 3 calls on this page"); reflects != (i+1 == tt.reflect) {
					t.Errorf("request %d reflects = %v, want %v:\n%s", i+1, reflects, !reflects, last)
				}
			}
		})
	}
}

// A person is asked about calls that go nowhere as about failures, and is
// told which calls those were.
func TestNoProgressAsksThePerson(t *testing.T) {
	t.Parallel()
	snap := reply(wireCall(toolapi.GetSnapshot, map[string]any{}))
	replies := append(slices.Repeat([]fakeReply{snap}, 7), reply(complete("failed")))
	h := newHarness(t, nil, replies...)
	person := &askings{answer: driver.StuckAnswer{Hint: "the page is done loading; read it"}}
	h.cfg.Ask = person.ask
	res := h.run(t)
	if res.Reason != driver.ReasonTaskFailed || len(person.asked) != 1 {
		t.Fatalf("result = %+v, asked %d times; want the person asked once, then the model's own end", res, len(person.asked))
	}
	q := person.asked[0]
	if len(q.Failures) != 2*driver.ReflectAfter || !strings.Contains(q.Failures[0], "no progress") {
		t.Errorf("question = %+v", q)
	}
	reqs := h.api.Requests()
	if last := reqs[len(reqs)-1].Messages; !strings.Contains(last[len(last)-1].joined(), "the page is done loading") {
		t.Error("the person's hint does not reach the model")
	}
}
