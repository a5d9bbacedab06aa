package snapshot

import "testing"

func TestImageWords(t *testing.T) {
	tests := []struct{ in, want string }{
		{`url("http://a.test/img/send-icon.svg")`, "send icon"},
		{`url("/files/send.svg")`, "send"},
		{`url(x.png)`, "x"},
		{`url("http://a.test/o.png?v=3#frag")`, "o"},
		{`url("http://a.test/icons/trashCan_24px@2x.png")`, "trash can"},
		{`url("http://a.test/i/16x16/reply%20all.gif")`, "reply all"},
		{`linear-gradient(red, blue), url("http://a.test/star.svg")`, "star"},
		{`url("data:image/svg+xml;utf8,<svg></svg>")`, ""},
		{`url("http://a.test/12345.png")`, ""},
		{`url("http://a.test/images/ui-icons_444444_256x240.png")`, ""},
		{`url("/img/sprites.png")`, ""},
		{`none`, ""},
		{`normal`, ""},
		{`url("http://a.test/` + "aaaaaaaaaa-bbbbbbbbbb-cccccccccc-dddddddddd-eeeeeeeeee" + `.png")`, ""},
	}
	for _, tt := range tests {
		if got := imageWords(tt.in); got != tt.want {
			t.Errorf("imageWords(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestColourWord(t *testing.T) {
	tests := []struct{ in, want string }{
		{"rgb(255, 0, 0)", "red"},
		{"rgb(224, 32, 27)", "red"},
		{"rgb(0, 128, 0)", "green"},
		{"rgb(0, 255, 0)", "green"},
		{"rgb(30, 80, 220)", "blue"},
		{"rgb(0, 255, 255)", "cyan"},
		{"rgb(255, 0, 255)", "magenta"},
		{"rgb(240, 224, 32)", "yellow"},
		{"rgb(0, 0, 0)", "black"},
		{"rgb(250, 250, 250)", "white"},
		{"rgba(255, 0, 0, 0)", ""},
		{"none", ""},
		{`url("#grad")`, ""},
	}
	for _, tt := range tests {
		if got := colourWord(tt.in); got != tt.want {
			t.Errorf("colourWord(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
