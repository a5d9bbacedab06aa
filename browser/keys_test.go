package browser

import (
	"errors"
	"testing"
)

func TestParseKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, name string
		mods     int64
		key      string
		code     int64
		text     string
	}{
		{"Enter", "Enter", 0, "Enter", 13, "\r"},
		{"enter", "Enter", 0, "Enter", 13, "\r"},
		{"Return", "Enter", 0, "Enter", 13, "\r"},
		{"Escape", "Escape", 0, "Escape", 27, ""},
		{"Esc", "Escape", 0, "Escape", 27, ""},
		{"Tab", "Tab", 0, "Tab", 9, ""},
		{"ArrowDown", "ArrowDown", 0, "ArrowDown", 40, ""},
		{"PageDown", "PageDown", 0, "PageDown", 34, ""},
		{"Backspace", "Backspace", 0, "Backspace", 8, ""},
		{"F5", "F5", 0, "F5", 116, ""},
		{"a", "a", 0, "a", 65, "a"},
		{"Space", "Space", 0, " ", 32, " "},
		{" ", "Space", 0, " ", 32, " "},
		{"\r", "Enter", 0, "Enter", 13, "\r"},
		{"NumpadEnter", "NumpadEnter", 0, "Enter", 13, "\r"},
		{"Shift+numpadenter", "Shift+NumpadEnter", 8, "Enter", 13, "\r"},
		{"é", "é", 0, "é", 0, "é"},
		{"Control+A", "Control+A", 2, "A", 65, "A"},
		{"ctrl+a", "Control+a", 2, "a", 65, "a"},
		{"Shift+Tab", "Shift+Tab", 8, "Tab", 9, ""},
		{"Meta+Enter", "Meta+Enter", 4, "Enter", 13, "\r"},
		{"Control+Shift+ArrowLeft", "Control+Shift+ArrowLeft", 10, "ArrowLeft", 37, ""},
		{"+", "+", 0, "+", 187, "+"},
		{"Control++", "Control++", 2, "+", 187, "+"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			c, err := ParseKey(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			var mods int64
			for _, m := range c.mods {
				mods |= modifierBits[m.Key]
			}
			if c.Name != tc.name || mods != tc.mods || c.key.Key != tc.key || c.key.Windows != tc.code || c.key.Text != tc.text {
				t.Errorf("ParseKey(%q) = %q mods %d key %q code %d text %q; want %q mods %d key %q code %d text %q",
					tc.in, c.Name, mods, c.key.Key, c.key.Windows, c.key.Text, tc.name, tc.mods, tc.key, tc.code, tc.text)
			}
		})
	}
	for in, want := range map[string]string{"a": "a", "Shift+A": "A", "Space": " ", "Enter": "", "Tab": "", "Control+A": "", "Alt+x": "", "é": "é"} {
		c, err := ParseKey(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Typed(); got != want {
			t.Errorf("ParseKey(%q).Typed() = %q, want %q", in, got, want)
		}
	}
	for _, bad := range []string{"", "Entr", "Control+Foo", "A+B", "Enter+Control", "\x01", "Control+"} {
		if _, err := ParseKey(bad); !errors.Is(err, ErrUnknownKey) {
			t.Errorf("ParseKey(%q): error %v, want ErrUnknownKey", bad, err)
		}
	}
}

// TestChordKinds: which chords activate a focused control, which submit a
// field's form, and which are shortcuts a page may bind to an action of its
// own rather than text editing.
func TestChordKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in                                    string
		activates, enter, shortcut, navigates bool
	}{
		{"Enter", true, true, false, false},
		{"Shift+Enter", true, true, false, false},
		{"NumpadEnter", true, true, false, false},
		{"\r", true, true, false, false},
		{"Space", true, false, false, false},
		{"Shift+Space", true, false, false, false},
		{"Control+Enter", true, true, true, false},
		{"Meta+Enter", true, true, true, false},
		{"Alt+Enter", true, true, true, false},
		{"Tab", false, false, false, true},
		{"a", false, false, false, false},
		{"Shift+A", false, false, false, false},
		{"Control+a", false, false, false, false},
		{"Control+c", false, false, false, false},
		{"Meta+x", false, false, false, false},
		{"Control+v", false, false, false, false},
		{"Control+z", false, false, false, false},
		{"Control+Shift+Z", false, false, false, false},
		{"Control+y", false, false, false, false},
		{"Alt+a", false, false, true, false},
		{"Control+s", false, false, true, false},
		{"Control+Shift+Delete", false, false, true, false},
		{"Meta+ArrowUp", false, false, true, false},
		{"Shift+Tab", false, false, false, true},
		{"Escape", false, false, false, true},
		{"PageDown", false, false, false, true},
		{"s", false, false, false, false},
		{"Delete", false, false, false, false},
	}
	for _, tc := range tests {
		c, err := ParseKey(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if c.Activates() != tc.activates || c.IsEnter() != tc.enter || c.Shortcut() != tc.shortcut || c.Navigates() != tc.navigates {
			t.Errorf("%q: activates %v, enter %v, shortcut %v, navigates %v; want %v, %v, %v, %v",
				tc.in, c.Activates(), c.IsEnter(), c.Shortcut(), c.Navigates(), tc.activates, tc.enter, tc.shortcut, tc.navigates)
		}
	}
}
