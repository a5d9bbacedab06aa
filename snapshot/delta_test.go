package snapshot

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// page is a small snapshot of the account page the diff tests change.
func deltaBase() *Snapshot {
	v := "ada@example.com"
	return &Snapshot{
		ID:   "00000000-0000-7000-8000-0000000000a1",
		Page: Page{URL: "http://demo.test/account", Title: "Account"},
		Elements: []Element{
			{Ref: "@e1", Role: "heading", Name: "Account", Level: 1, State: []string{"visible"}},
			{Ref: "@e2", Role: "region", Name: "Membership", State: []string{"visible"}, Children: []string{"@e3", "@e4"}},
			{Ref: "@e3", Role: "button", Name: "Change plan", State: []string{"visible", "enabled"}},
			{Ref: "@e4", Role: "button", Name: "Cancel Membership", State: []string{"visible", "enabled"}},
			{Ref: "@e5", Role: "textbox", Name: "Email", Value: &v, State: []string{"visible", "enabled"}},
			{Ref: "@e6", Role: "link", Name: "Help", State: []string{"visible"}},
			{Ref: "@e7", Role: "link", Name: "Privacy", State: []string{"visible"}},
		},
		Text: "Account\nMember since June 2021. Your next bill is on 1 December.\nStreaming on two screens at a time, in HD.\nPlan: Basic [@e3 Change plan] [@e4 Cancel Membership]\nEmail [@e5]\n[@e6 Help] [@e7 Privacy]",
	}
}

// TestDiff: each kind of change shows as what it is, in the delta's JSON and
// its compact text, and Apply on the older snapshot gives the newer back.
func TestDiff(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		change func(s *Snapshot)
		added  []string
		gone   []string
		chg    []string
		text   []string // lines the compact text must hold
		worth  bool
	}{
		{"added panel", func(s *Snapshot) {
			s.Elements[1].Children = append(s.Elements[1].Children, "@e8")
			s.Elements = slices.Insert(s.Elements, 4,
				Element{Ref: "@e8", Role: "region", Name: "Plans", Children: []string{"@e9", "@e10"}},
				Element{Ref: "@e9", Role: "radio", Name: "Premium"},
				Element{Ref: "@e10", Role: "button", Name: "Save plan"})
			s.Text = strings.Replace(s.Text, "Email", "Plans [@e9 Premium] [@e10 Save plan]\nEmail", 1)
		}, []string{"@e8", "@e9", "@e10"}, nil, nil, []string{`+@e8 region "Plans" in @e2`, `  +@e9 radio "Premium"`, `  +@e10 button "Save plan"`, "+ Plans [Premium] [Save plan]"}, true},
		{"removed", func(s *Snapshot) {
			s.Elements = slices.Delete(s.Elements, 6, 7)
			s.Text = strings.Replace(s.Text, " [@e7 Privacy]", "", 1)
		}, nil, []string{"@e7"}, nil, []string{"+0 -1 ~0; gone: @e7", "- [Help] [Privacy]", "+ [Help]"}, true},
		{"label swapped in place", func(s *Snapshot) {
			s.Elements[3].Name = "Keep Membership"
			s.Text = strings.Replace(s.Text, "@e4 Cancel Membership", "@e4 Keep Membership", 1)
		}, nil, nil, []string{"@e4"}, []string{`~@e4 button "Keep Membership"`}, true},
		{"value typed", func(s *Snapshot) {
			v := "grace@example.com"
			s.Elements[4].Value = &v
			f := "@e5"
			s.Focused = &f
			s.Elements[4].State = append(s.Elements[4].State, "focused")
		}, nil, nil, []string{"@e5"}, []string{`~@e5 textbox "Email" focused value="grace@example.com"`}, true},
		{"moved", func(s *Snapshot) {
			s.Elements[5], s.Elements[6] = s.Elements[6], s.Elements[5]
			s.Text = strings.Replace(s.Text, "[@e6 Help] [@e7 Privacy]", "[@e7 Privacy] [@e6 Help]", 1)
		}, nil, nil, []string{"@e6"}, []string{`~@e6 link "Help" moved`, "+ [Privacy] [Help]"}, true},
		{"moved to another parent", func(s *Snapshot) {
			s.Elements[1].Children = []string{"@e3", "@e4", "@e6"}
			s.Elements[4], s.Elements[5] = s.Elements[5], s.Elements[4]
		}, nil, nil, []string{"@e6"}, []string{`~@e6 link "Help" moved in @e2`}, true},
		{"text only", func(s *Snapshot) {
			s.Text = strings.Replace(s.Text, "Plan: Basic", "Plan: Premium", 1)
		}, nil, nil, nil, []string{"- Plan: Basic [Change plan] [Cancel Membership]", "+ Plan: Premium [Change plan] [Cancel Membership]"}, true},
		{"box only", func(s *Snapshot) {
			s.Elements[2].BBox = BBox{X: 10, Y: 20, Width: 30, Height: 40}
		}, nil, nil, nil, []string{"+0 -0 ~0"}, true},
		{"scrolled", func(s *Snapshot) {
			s.Viewport.ScrollY = 600
		}, nil, nil, nil, []string{`page "Account" http://demo.test/account scroll 0,600`}, true},
		{"new document", func(s *Snapshot) {
			for i := range s.Elements {
				s.Elements[i].Ref = strings.Replace(s.Elements[i].Ref, "@e", "@e1", 1)
				for j, c := range s.Elements[i].Children {
					s.Elements[i].Children[j] = strings.Replace(c, "@e", "@e1", 1)
				}
			}
			s.Text = strings.ReplaceAll(s.Text, "[@e", "[@e1")
			s.Page.URL = "http://demo.test/retention"
		}, []string{"@e11", "@e12", "@e13", "@e14", "@e15", "@e16", "@e17"}, []string{"@e1", "@e2", "@e3", "@e4", "@e5", "@e6", "@e7"}, nil, nil, false},
		{"big change", func(s *Snapshot) {
			for i := range s.Elements {
				s.Elements[i].Name += " (new)"
			}
			s.Text = "All new text"
		}, nil, nil, []string{"@e1", "@e2", "@e3", "@e4", "@e5", "@e6", "@e7"}, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			old, cur := deltaBase(), deltaBase()
			cur.ID = "00000000-0000-7000-8000-0000000000b2"
			tc.change(cur)
			d, ok := Diff(old, cur)
			if !ok {
				t.Fatal("no delta")
			}
			refs := func(els []Element) []string {
				var out []string
				for _, e := range els {
					out = append(out, e.Ref)
				}
				return out
			}
			if got := refs(d.Added); !slices.Equal(got, tc.added) {
				t.Errorf("added %q, want %q", got, tc.added)
			}
			if !slices.Equal(d.Gone, tc.gone) && len(d.Gone)+len(tc.gone) > 0 {
				t.Errorf("gone %q, want %q", d.Gone, tc.gone)
			}
			if got := refs(d.Changed); !slices.Equal(got, tc.chg) {
				t.Errorf("changed %q, want %q", got, tc.chg)
			}
			text := d.Render(cur)
			if !strings.HasPrefix(text, "delta of snapshot 000000a1"+DeltaRule+": ") || !strings.Contains(strings.SplitN(text, "\n", 2)[0], Untrusted) {
				t.Errorf("header:\n%s", text)
			}
			for _, l := range tc.text {
				if !slices.Contains(strings.Split(text, "\n"), l) && !strings.Contains(text, l) {
					t.Errorf("the text has no line %q:\n%s", l, text)
				}
			}
			if got := d.Worth(cur); got != tc.worth {
				t.Errorf("worth = %v, want %v (delta %d bytes, whole %d):\n%s", got, tc.worth, len(text), len(cur.Render()), text)
			}
			checkApply(t, old, cur, d)
		})
	}
}

// checkApply: the delta, through its JSON, makes the older snapshot the
// newer one, the same JSON and the same compact text.
func checkApply(t *testing.T, old, cur *Snapshot, d *Delta) {
	t.Helper()
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"elements"`) {
		t.Errorf("a delta's JSON has elements, as a whole snapshot does: %s", data)
	}
	var back Delta
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	got, ok := Apply(old, &back)
	if !ok {
		t.Fatal("the delta does not apply to the snapshot it names")
	}
	want, _ := json.Marshal(cur)
	have, _ := json.Marshal(got)
	if string(want) != string(have) {
		t.Errorf("Apply gives\n%s\nwant\n%s", have, want)
	}
	if got.Render() != cur.Render() {
		t.Errorf("Apply renders\n%s\nwant\n%s", got.Render(), cur.Render())
	}
	if _, ok := Apply(cur, &back); ok {
		t.Error("a delta applies to a snapshot it does not name")
	}
}

// TestDiffRefused: a dialog that opened or closed, or text positions, make
// no delta: the page is then another thing, read whole.
func TestDiffRefused(t *testing.T) {
	t.Parallel()
	for name, change := range map[string]func(s *Snapshot){
		"dialog opened": func(s *Snapshot) { s.Dialog = &Dialog{Type: "confirm", Message: "Sure?"} },
		"positions":     func(s *Snapshot) { s.Positions = []TextRun{{Text: "Account"}} },
	} {
		old, cur := deltaBase(), deltaBase()
		change(cur)
		if _, ok := Diff(old, cur); ok {
			t.Errorf("%s: a delta", name)
		}
	}
}

// TestApplyRefusesWhatDoesNotFit: Apply on a delta that does not fit the
// snapshot it names reports false, never a page the delta did not make (nor
// a panic): text edits past the end however far, an order that revives a gone ref or
// names one twice, a change to a ref the older snapshot never had, an
// added one it has.
func TestApplyRefusesWhatDoesNotFit(t *testing.T) {
	t.Parallel()
	base := deltaBase()
	n := len(lines(base.Text))
	for _, tc := range []struct {
		name   string
		change func(d *Delta)
	}{
		{"an edit far past the end", func(d *Delta) {
			d.Text = []TextEdit{{At: int(^uint(0) >> 1), Delete: []string{"x"}}}
		}},
		{"an edit at the very end deleting more", func(d *Delta) { d.Text = []TextEdit{{At: n, Delete: []string{"x"}}} }},
		{"a negative edit", func(d *Delta) { d.Text = []TextEdit{{At: -1, Insert: []string{"x"}}} }},
		{"an added ref the older snapshot has", func(d *Delta) {
			d.Added = []Element{{Ref: "@e4", Role: "button", Name: "Delete account"}}
		}},
		{"a gone ref the older snapshot never had", func(d *Delta) { d.Gone = []string{"@e99"} }},
		{"an order reviving a gone ref", func(d *Delta) {
			d.Gone = []string{"@e7"}
			d.Order = []string{"@e1", "@e2", "@e3", "@e4", "@e5", "@e6", "@e7"}
		}},
		{"an order naming a ref twice", func(d *Delta) {
			d.Order = []string{"@e1", "@e2", "@e3", "@e4", "@e5", "@e6", "@e7", "@e4"}
		}},
		{"a change to a ref never seen", func(d *Delta) {
			d.Changed = []Element{{Ref: "@e99", Role: "button", Name: "Delete account"}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, ok := Diff(base, deltaBase())
			if !ok {
				t.Fatal("no delta of the same page")
			}
			tc.change(d)
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("Apply panicked: %v", p)
				}
			}()
			if s, ok := Apply(base, d); ok {
				t.Errorf("applied:\n%s", s.Render())
			}
		})
	}
}

// TestDiffClipIsNoNote: where a clip of the screenshot lies is written from
// the screenshot's description, in the whole text and a delta's alike, and
// is never a change of the page's notes: a delta after a clip neither
// repeats the notes nor says they are gone, and one with a clip says where
// it lies.
func TestDiffClipIsNoNote(t *testing.T) {
	t.Parallel()
	const line = "note: screenshot: only the changed region, 80,180 238x124"
	clip := &Screenshot{MIMEType: "image/png", Width: 119, Height: 62, Clip: &BBox{X: 80, Y: 180, Width: 238, Height: 124}}
	withClip, plain := deltaBase(), deltaBase()
	withClip.Notes, plain.Notes = []string{"3 more elements below"}, []string{"3 more elements below"}
	withClip.Screenshot = clip
	if !strings.Contains(withClip.Render(), line) || strings.Contains(plain.Render(), "screenshot:") {
		t.Errorf("the whole text says where a clip lies only when there is one:\n%s\n%s", withClip.Render(), plain.Render())
	}
	for _, tc := range []struct {
		name     string
		old, cur *Snapshot
		clip     bool
	}{
		{"a clip after none", plain, withClip, true},
		{"none after a clip", withClip, plain, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur := *tc.cur
			cur.ID = "00000000-0000-7000-8000-0000000000b2"
			cur.Elements = slices.Clone(cur.Elements)
			v := "grace@example.com"
			cur.Elements[4].Value = &v
			d, ok := Diff(tc.old, &cur)
			if !ok {
				t.Fatal("no delta")
			}
			text := d.Render(&cur)
			if d.NotesChanged || strings.Contains(text, "3 more elements below") || strings.Contains(text, "notes: none") {
				t.Errorf("the clip made the notes change:\n%s", text)
			}
			if strings.Contains(text, line) != tc.clip {
				t.Errorf("clip %v, the delta's text:\n%s", tc.clip, text)
			}
			checkApply(t, tc.old, &cur, d)
		})
	}
}
