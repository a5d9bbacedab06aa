package browser

import (
	"errors"
	"testing"
)

func TestParseKey(t *testing.T) {
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
