package browser

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSafeFileName(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 300) + ".csv"
	tests := []struct {
		in, want string
	}{
		{"report.csv", "report.csv"},
		{"../../etc/report\u202e.csv", "report.csv"},
		{`..\..\windows\evil.exe`, "evil.exe"},
		{"/etc/passwd", "passwd"},
		{".bashrc", "bashrc"},
		{"...", "download"},
		{"", "download"},
		{"..", "download"},
		{"a/", "download"},
		{"\x1b[31mred\x1b[0m.txt", "[31mred[0m.txt"},
		{"line\r\nbreak.csv", "line break.csv"},
		{"tab\there.csv", "tab here.csv"},
		{"bidi\u2066\u2069\u200bname.csv", "bidiname.csv"},
		{"invoice\u202egpj.exe", "invoicegpj.exe"},
		{"bad\xffutf8.csv", "badutf8.csv"},
		{"  spaced  out  .csv ", "spaced out .csv"},
		{"trailing dots...", "trailing dots"},
		{`a<b>c:d"e|f?g*h.txt`, "a_b_c_d_e_f_g_h.txt"},
		{"nul\x00byte.csv", "nulbyte.csv"},
		{"résumé.pdf", "résumé.pdf"},
		{long, strings.Repeat("a", maxDownloadName-4) + ".csv"},
	}
	for _, tt := range tests {
		got := SafeFileName(tt.in)
		if got != tt.want {
			t.Errorf("SafeFileName(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.ContainsAny(got, "/\\\x00") || strings.HasPrefix(got, ".") || !utf8.ValidString(got) || len(got) > maxDownloadName {
			t.Errorf("SafeFileName(%q) = %q: not safe", tt.in, got)
		}
	}
}

func TestSafeFileNameCutsRunes(t *testing.T) {
	t.Parallel()
	got := SafeFileName(strings.Repeat("é", 150) + ".csv")
	if !utf8.ValidString(got) || len(got) > maxDownloadName || !strings.HasSuffix(got, ".csv") {
		t.Errorf("SafeFileName cut %q badly", got)
	}
}

func TestFormatBytes(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1 KB", 1536: "1.5 KB", 100 << 20: "100 MB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
