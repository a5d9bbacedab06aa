package filename

import "testing"

func TestSafe(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                   "",
		"9f1c-uuid_v4.jsonl": "9f1c-uuid_v4.jsonl",
		"../etc/passwd":      ".._etc_passwd",
		`a\b c:d`:            "a_b_c_d",
		"sessión":            "sessi_n",
		"Z09az-._":           "Z09az-._",
	} {
		if got := Safe(in); got != want {
			t.Errorf("Safe(%q) = %q, want %q", in, got, want)
		}
	}
}
