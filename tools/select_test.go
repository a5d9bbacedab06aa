package tools

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// Scripts reading what /variants/selects holds and heard.
const (
	genresNow    = `Array.from(document.querySelector('#genres').selectedOptions, o => o.value).join(',')`
	subtitlesNow = `Array.from(document.querySelectorAll('#subtitles [aria-selected=true]'), o => o.textContent).join(',')`
)

// TestSelectSeveral: a list sets exactly those options of a <select
// multiple> and of an ARIA listbox of several, deselecting the others, and
// the page hears it as a person's choice.
func TestSelectSeveral(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/selects")
	for _, tc := range []struct {
		name, role, label string
		value             any
		now, want         string
		echo, heard       string
	}{
		{"two genres by value and text", "listbox", "Favourite genres", []string{"drama", "Documentary"},
			genresNow, "drama,documentary", "#genres-echo", "change: drama,documentary"},
		{"then one, the others deselected", "listbox", "Favourite genres", []string{"Music & jazz"},
			genresNow, "jazz", "#genres-echo", "change: jazz"},
		{"a string sets one alone", "listbox", "Favourite genres", "horror",
			genresNow, "horror", "#genres-echo", "change: horror"},
		{"an empty list deselects all", "listbox", "Favourite genres", []string{},
			genresNow, "", "#genres-echo", "change: "},
		{"two subtitle languages", "listbox", "Subtitle languages", []string{"French", "japanese"},
			subtitlesNow, "French,Japanese", "#subtitles-echo", "selected: French,Japanese"},
		{"then one, clicked off the others", "listbox", "Subtitle languages", []string{"English"},
			subtitlesNow, "English", "#subtitles-echo", "selected: English"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := h.sub(t)
			r := h.ok(toolapi.Select, map[string]any{"ref": browsertest.Ref(t, h.snap(false), tc.role, tc.label), "value": tc.value})
			if got := h.evalString(tc.now); got != tc.want {
				t.Errorf("selected %q, want %q (message %q)", got, tc.want, r.Message)
			}
			if got := h.evalString(`document.querySelector('` + tc.echo + `').textContent`); got != tc.heard {
				t.Errorf("the page heard %q, want %q", got, tc.heard)
			}
		})
	}
}

// TestSelectRefusals: what cannot be chosen is invalid_params saying why,
// nothing changes, and the session goes on.
func TestSelectRefusals(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/selects")
	for _, tc := range []struct {
		name, role, label string
		value             any
		says              []string
	}{
		{"a list for a select of one", "combobox", "Country", []string{"ca", "fr"}, []string{"takes one option, not a list"}},
		{"a list for a combobox", "combobox", "Streaming plan", []string{"Basic"}, []string{"takes one option, not a list"}},
		{"an unknown genre", "listbox", "Favourite genres", []string{"drama", "polka"}, []string{`"polka"`, "no such option", "Drama (drama)", "Music & jazz (jazz)"}},
		{"an unknown plan, found only once the popup is open", "combobox", "Streaming plan", "Gold", []string{`"Gold"`, "no such option", "Basic", "Premium with 4K"}},
		{"a disabled option", "listbox", "Subtitle languages", []string{"English", "Klingon"}, []string{`"Klingon" is disabled`}},
		{"no value", "listbox", "Favourite genres", nil, []string{"needs a value"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := h.sub(t)
			before := h.evalString(genresNow + ` + '|' + ` + subtitlesNow + ` + '|' + document.querySelector('#country').value + '|' + document.querySelector('#plan').textContent`)
			args := map[string]any{"ref": browsertest.Ref(t, h.snap(false), tc.role, tc.label)}
			if tc.value != nil {
				args["value"] = tc.value
			}
			r := h.act(toolapi.Select, args)
			wantError(t, r, toolapi.InvalidParams)
			for _, s := range tc.says {
				if !strings.Contains(r.Message, s) {
					t.Errorf("message %q does not say %q", r.Message, s)
				}
			}
			after := h.evalString(genresNow + ` + '|' + ` + subtitlesNow + ` + '|' + document.querySelector('#country').value + '|' + document.querySelector('#plan').textContent`)
			if after != before {
				t.Errorf("the page changed from %q to %q", before, after)
			}
			if open := h.evalString(`String(!!document.querySelector('#plan-list'))`); open != "false" {
				t.Error("a popup opened to look for the option is still open")
			}
		})
	}
}

// TestStyledSelect: a native select hidden under a styled proxy, as
// select-replacement libraries leave it, is chosen by script without the
// pointer that cannot reach it, and through its proxy with the pointer; the
// proxy shows the choice and the page hears the change either way.
func TestStyledSelect(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/selects")
	t.Run("the pointer cannot reach the native select", func(t *testing.T) {
		h := h.sub(t)
		r := h.act(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, h.snap(false), "combobox", "Country")})
		if r.Success || (*r.Error != toolapi.ElementObscured && *r.Error != toolapi.ElementNotVisible) {
			t.Fatalf("a click on the hidden select: success %v, error %v", r.Success, r.Error)
		}
	})
	// Some libraries leave the select transparent, under the proxy.
	underProxy := `(() => { const s = document.querySelector('#country'), p = document.querySelector('#country-proxy');
		const r = p.getBoundingClientRect(); s.className = ''; p.style.zIndex = '1';
		s.style.cssText = 'position:absolute;opacity:0;left:' + (r.left + scrollX) + 'px;top:' + (r.top + scrollY) + 'px;width:' + r.width + 'px;height:' + r.height + 'px'; })()`
	for _, tc := range []struct {
		name, value, want, text string
		proxy                   bool
		restyle                 string
	}{
		{"native select by value", "fr", "fr", "France", false, ""},
		{"native select by text", "Japan", "jp", "Japan", false, ""},
		{"through the proxy by text", "Canada", "ca", "Canada", true, ""},
		{"native select, transparent under the proxy", "France", "fr", "France", false, underProxy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := h.sub(t)
			if tc.restyle != "" {
				h.eval(tc.restyle, nil)
				r := h.act(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, h.snap(false), "combobox", "Country")})
				if r.Error == nil || *r.Error != toolapi.ElementObscured {
					t.Fatalf("a click on the select under the proxy: error %v, want element_obscured", r.Error)
				}
			}
			name := "Country"
			if tc.proxy {
				// The proxy is named by the text it shows, as select2's is.
				name = h.evalString(`document.querySelector('#country-rendered').textContent`)
			}
			r := h.ok(toolapi.Select, map[string]any{"ref": browsertest.Ref(t, h.snap(false), "combobox", name), "value": tc.value})
			if !strings.Contains(r.Message, tc.text) {
				t.Errorf("message %q does not name %q", r.Message, tc.text)
			}
			if got := h.evalString(`document.querySelector('#country').value`); got != tc.want {
				t.Errorf("the select holds %q, want %q", got, tc.want)
			}
			if got := h.evalString(`document.querySelector('#country-rendered').textContent`); got != tc.text {
				t.Errorf("the proxy shows %q, want %q", got, tc.text)
			}
			if got := h.evalString(`document.querySelector('#country-echo').textContent`); got != "change: "+tc.want {
				t.Errorf("the page heard %q, want %q", got, "change: "+tc.want)
			}
			if _, ok := r.Snapshot.Find("combobox", tc.text); !ok {
				t.Errorf("the result's snapshot has no combobox showing %q:\n%s", tc.text, r.Snapshot.Outline())
			}
		})
	}
}

// TestAriaCombobox: a combobox whose popup exists only while open is
// clicked open, and the option showing the text is clicked; the combobox
// shows it afterwards and the popup is gone.
func TestAriaCombobox(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/selects")
	for _, tc := range []struct {
		name, value, shows, heard string
	}{
		{"by visible text", "Premium with 4K", "Premium with 4K", "plan: premium"},
		{"by text in another case", "standard", "Standard", "plan: standard"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := h.sub(t)
			r := h.ok(toolapi.Select, map[string]any{"ref": browsertest.Ref(t, h.snap(false), "combobox", "Streaming plan"), "value": tc.value})
			if !strings.Contains(r.Message, `"`+tc.shows+`"`) {
				t.Errorf("message %q does not name %q", r.Message, tc.shows)
			}
			if got := h.evalString(`document.querySelector('#plan').textContent`); got != tc.shows {
				t.Errorf("the combobox shows %q, want %q", got, tc.shows)
			}
			if got := h.evalString(`document.querySelector('#plan-echo').textContent`); got != tc.heard {
				t.Errorf("the page heard %q, want %q", got, tc.heard)
			}
			if got := h.evalString(`String(!!document.querySelector('#plan-list'))`); got != "false" {
				t.Error("the popup is still open")
			}
		})
	}
}

// TestGatedSelectShowsEveryOption: the person approving a select sees every
// option it will choose, and an approval of one set covers that set only.
func TestGatedSelectShowsEveryOption(t *testing.T) {
	t.Parallel()
	g := openGated(t, "/variants/selects", `{"name":"prefs","gated_actions":[{"name":"genres","verb":"select","name_matches":"genres"}]}`, true, Config{})
	shown := func(i int) []checkpoint.Option {
		t.Helper()
		asked := g.person.Requests()
		if len(asked) <= i || asked[i].Concrete == nil {
			t.Fatalf("the person was asked %d times, want a concrete request %d", len(asked), i+1)
		}
		return asked[i].Concrete.Options
	}
	drama, horror, jazz := checkpoint.Option{Text: "Drama", Value: "drama"}, checkpoint.Option{Text: "Horror", Value: "horror"}, checkpoint.Option{Text: "Music & jazz", Value: "jazz"}
	ref := func() string { return browsertest.Ref(t, g.snap(false), "listbox", "Favourite genres") }

	// Approved ahead: horror and drama, shown in the page's order.
	if a := g.approval(map[string]any{"action": "pick genres", "reason": "the user's taste", "ref": ref(), "verb": "select", "value": []string{"horror", "Drama"}}); !a.Approved {
		t.Fatalf("not approved: %s", a.Message)
	}
	if got := shown(0); !slices.Equal(got, []checkpoint.Option{drama, horror}) {
		t.Errorf("the person saw %+v, want drama and horror", got)
	}
	// Another set is asked about again, and shown as it is.
	g.ok(toolapi.Select, map[string]any{"ref": ref(), "value": []string{"drama", "jazz"}})
	if got := shown(1); !slices.Equal(got, []checkpoint.Option{drama, jazz}) {
		t.Errorf("the person saw %+v, want drama and jazz", got)
	}
	if n := len(g.person.Requests()); n != 2 {
		t.Fatalf("the person was asked %d times, want 2: the approval of another set covered this one", n)
	}
	// The approved set itself runs without asking again.
	// (The ref is read first: any call between the approval and the
	// select, a snapshot too, uses the approval up.)
	genres := ref()
	if a := g.approval(map[string]any{"action": "pick genres", "reason": "the user's taste", "ref": genres, "verb": "select", "value": []string{"horror", "drama"}}); !a.Approved {
		t.Fatalf("not approved: %s", a.Message)
	}
	g.ok(toolapi.Select, map[string]any{"ref": genres, "value": []string{"Drama", "Horror"}})
	if n := len(g.person.Requests()); n != 3 {
		t.Errorf("the person was asked %d times, want 3: the approved set asked again", n)
	}
	if got := g.evalString(genresNow); got != "drama,horror" {
		t.Errorf("selected %q, want drama,horror", got)
	}
	// A list is for a select; a fill asked about with one is refused
	// before anyone is asked.
	if a := g.approval(map[string]any{"action": "type", "reason": "x", "ref": ref(), "verb": "fill", "value": []string{"a", "b"}}); a.Approved || !strings.Contains(a.Message, "invalid_params") {
		t.Errorf("a fill with a list: approved %v, %q", a.Approved, a.Message)
	}
	if n := len(g.person.Requests()); n != 3 {
		t.Errorf("the person was asked about a fill with a list")
	}
}

// TestSelectWaitsForALateListbox: a listbox that shows a click's effect a
// moment later, as pages that render asynchronously do, still ends up with
// exactly the options asked for.
func TestSelectWaitsForALateListbox(t *testing.T) {
	t.Parallel()
	// Three late clicks take longer than the default limit allows on a
	// loaded machine; what is tested is the outcome, not the speed.
	h := openWith(t, "/variants/selects", Config{ActionTimeout: 30 * time.Second})
	h.eval(`document.querySelector('#subtitles').addEventListener('click', e => {
		e.stopPropagation();
		const li = e.target.closest('[role=option]');
		setTimeout(() => li.setAttribute('aria-selected', String(li.getAttribute('aria-selected') !== 'true')), 200);
	}, true)`, nil)
	h.ok(toolapi.Select, map[string]any{"ref": browsertest.Ref(t, h.snap(false), "listbox", "Subtitle languages"), "value": []string{"French", "Japanese"}})
	if got := h.evalString(subtitlesNow); got != "French,Japanese" {
		t.Errorf("selected %q, want French,Japanese", got)
	}
}
