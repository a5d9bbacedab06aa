package checkpoint

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/chaperone-mcp/chaperone/snapshot"
)

// snap decodes a hand-built snapshot.
func snap(t *testing.T, js string) *snapshot.Snapshot {
	t.Helper()
	var s snapshot.Snapshot
	if err := json.Unmarshal([]byte(js), &s); err != nil {
		t.Fatalf("snapshot %s: %v", js, err)
	}
	return &s
}

func cond(t *testing.T, js string) Condition {
	t.Helper()
	var c Condition
	if err := json.Unmarshal([]byte(js), &c); err != nil {
		t.Fatalf("condition %s: %v", js, err)
	}
	return c
}

func TestConditionMatch(t *testing.T) {
	t.Parallel()
	finish := `{"snapshot_id":"s1","page":{"url":"https://Stream.example/finish?step=3","title":"Finish Cancellation — StreamFlix"},
		"text":"Are you sure? [@e4 Finish Cancellation] [@e5 Keep membership]",
		"elements":[{"ref":"@e3","role":"heading","name":"One last step","level":1},
			{"ref":"@e4","role":"button","name":"Finish Cancellation"},
			{"ref":"@e5","role":"link","name":"Keep membership"}]}`
	cases := []struct {
		cond string
		want bool
		desc string
	}{
		{`{"title_contains":"FINISH cancellation"}`, true, `title contains "FINISH cancellation"`},
		{`{"title_contains":"cancelled"}`, false, `title contains "cancelled"`},
		{`{"url_contains":"stream.example/FINISH"}`, true, `URL contains "stream.example/FINISH"`},
		{`{"url_contains":"error"}`, false, `URL contains "error"`},
		{`{"url_matches":"/finish\\?step=\\d$"}`, true, `URL matches "/finish\\?step=\\d$"`},
		{`{"url_matches":"^http://"}`, false, `URL matches "^http://"`},
		{`{"element":{"role":"Button","name_contains":"finish cancel"}}`, true, `a Button whose name contains "finish cancel"`},
		{`{"element":{"role":"button","name_contains":"keep"}}`, false, `a button whose name contains "keep"`},
		{`{"element":{"role":"link"}}`, true, `a link`},
		{`{"element":{"role":"dialog"}}`, false, `a dialog`},
		{`{"text_contains":"are you SURE"}`, true, `the page shows "are you SURE"`},
		{`{"text_contains":"one last step"}`, true, `the page shows "one last step"`},
		{`{"text_contains":"could not"}`, false, `the page shows "could not"`},
		{`{"any":[{"title_contains":"nope"},{"url_contains":"finish"}]}`, true, `title contains "nope" or URL contains "finish"`},
		{`{"any":[{"title_contains":"nope"},{"url_contains":"nah"}]}`, false, `title contains "nope" or URL contains "nah"`},
		{`{"all":[{"title_contains":"finish"},{"element":{"role":"heading"}}]}`, true, `title contains "finish" and a heading`},
		{`{"all":[{"title_contains":"finish"},{"element":{"role":"dialog"}}]}`, false, `title contains "finish" and a dialog`},
		{`{"not":{"url_contains":"error"}}`, true, `not URL contains "error"`},
		{`{"not":{"any":[{"url_contains":"error"},{"text_contains":"sure"}]}}`, false, `not (URL contains "error" or the page shows "sure")`},
		{`{"all":[{"any":[{"title_contains":"x"},{"title_contains":"finish"}]},{"not":{"text_contains":"unable to"}}]}`, true,
			`(title contains "x" or title contains "finish") and not the page shows "unable to"`},
	}
	s := snap(t, finish)
	for _, c := range cases {
		t.Run(c.cond, func(t *testing.T) {
			cd := cond(t, c.cond)
			if got := cd.Match(s); got != c.want {
				t.Errorf("Match = %v, want %v", got, c.want)
			}
			if got := cd.Describe(); got != c.desc {
				t.Errorf("Describe = %s, want %s", got, c.desc)
			}
			// A condition built in Go, without its compiled regexp, behaves
			// the same.
			rebuilt := cd
			rebuilt.re = nil
			if rebuilt.Match(s) != c.want {
				t.Error("Match differs without the compiled regexp")
			}
		})
	}
}

// TestConditionOnDialog: while a JavaScript dialog is open, rules can match
// its kind and message, and text_contains sees the message too.
func TestConditionOnDialog(t *testing.T) {
	t.Parallel()
	open := snap(t, `{"page":{"url":"https://shop.example/checkout","title":"Checkout"},
		"dialog":{"type":"confirm","message":"Leave checkout? Your order will not be placed."}}`)
	closed := snap(t, `{"page":{"url":"https://shop.example/checkout","title":"Checkout"},"text":"Your order"}`)
	cases := []struct {
		cond       string
		open, shut bool
		desc       string
	}{
		{`{"dialog":{"type":"confirm"}}`, true, false, `a confirm dialog`},
		{`{"dialog":{"type":"confirm","message_contains":"LEAVE checkout"}}`, true, false, `a confirm dialog whose message contains "LEAVE checkout"`},
		{`{"dialog":{"message_contains":"order will not"}}`, true, false, `a JavaScript dialog whose message contains "order will not"`},
		{`{"dialog":{"type":"alert"}}`, false, false, `an alert dialog`},
		{`{"dialog":{"type":"confirm","message_contains":"delete"}}`, false, false, `a confirm dialog whose message contains "delete"`},
		{`{"text_contains":"will not be placed"}`, true, false, `the page shows "will not be placed"`},
		{`{"text_contains":"your order"}`, true, true, `the page shows "your order"`},
		{`{"element":{"role":"dialog"}}`, false, false, `a dialog`},
	}
	for _, c := range cases {
		t.Run(c.cond, func(t *testing.T) {
			cd := cond(t, c.cond)
			if got := cd.Match(open); got != c.open {
				t.Errorf("with the dialog open: Match = %v, want %v", got, c.open)
			}
			if got := cd.Match(closed); got != c.shut {
				t.Errorf("with no dialog: Match = %v, want %v", got, c.shut)
			}
			if got := cd.Describe(); got != c.desc {
				t.Errorf("Describe = %s, want %s", got, c.desc)
			}
			b, err := json.Marshal(cd)
			if err != nil || string(b) != c.cond {
				t.Errorf("MarshalJSON = %s, %v; want %s", b, err, c.cond)
			}
		})
	}
}

func TestConditionOnEmptySnapshot(t *testing.T) {
	t.Parallel()
	for _, c := range []string{`{"title_contains":"a"}`, `{"element":{"role":"button"}}`, `{"text_contains":"a"}`, `{"url_matches":"."}`, `{"dialog":{"type":"alert"}}`} {
		if cond(t, c).Match(nil) {
			t.Errorf("%s matches a nil snapshot", c)
		}
	}
	if !cond(t, `{"not":{"title_contains":"a"}}`).Match(nil) {
		t.Error("not(title) does not match a nil snapshot")
	}
	if (Condition{}).Match(&snapshot.Snapshot{}) {
		t.Error("the zero condition matches")
	}
}

func ExampleCondition_Match() {
	var c Condition
	_ = json.Unmarshal([]byte(`{"any": [
		{"title_contains": "cancelled"},
		{"element": {"role": "heading", "name_contains": "cancelled"}}]}`), &c)
	page := &snapshot.Snapshot{
		Page:     snapshot.Page{URL: "http://127.0.0.1:8080/cancelled", Title: "StreamFlix"},
		Elements: []snapshot.Element{{Ref: "@e9", Role: "heading", Name: "Your membership has been cancelled"}},
	}
	fmt.Println(c.Describe())
	fmt.Println(c.Match(page))
	// Output:
	// title contains "cancelled" or a heading whose name contains "cancelled"
	// true
}
