package totp

import (
	"encoding/base32"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// The seeds of RFC 6238 Appendix B: the ASCII digits 1234567890 repeated
// to the hash's block of key material (20, 32 and 64 bytes).
var (
	seed20 = []byte("12345678901234567890")
	seed32 = []byte("12345678901234567890123456789012")
	seed64 = []byte("1234567890123456789012345678901234567890123456789012345678901234")
)

// RFC 6238 Appendix B: every time and mode of its table, 8 digits.
func TestRFC6238Vectors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		unix  int64
		step  uint64
		sha1  string
		sha2  string
		sha5  string
		human string
	}{
		{59, 0x1, "94287082", "46119246", "90693936", "1970-01-01 00:00:59"},
		{1111111109, 0x23523EC, "07081804", "68084774", "25091201", "2005-03-18 01:58:29"},
		{1111111111, 0x23523ED, "14050471", "67062674", "99943326", "2005-03-18 01:58:31"},
		{1234567890, 0x273EF07, "89005924", "91819424", "93441116", "2009-02-13 23:31:30"},
		{2000000000, 0x3F940AA, "69279037", "90698825", "38618901", "2033-05-18 03:33:20"},
		{20000000000, 0x27BC86AA, "65353130", "77737706", "47863826", "2603-10-11 11:33:20"},
	} {
		at := time.Unix(tc.unix, 0).UTC()
		if got := at.Format(time.DateTime); got != tc.human {
			t.Fatalf("%d is %s, the RFC says %s", tc.unix, got, tc.human)
		}
		for _, m := range []struct {
			alg  Algorithm
			seed []byte
			want string
		}{{SHA1, seed20, tc.sha1}, {SHA256, seed32, tc.sha2}, {SHA512, seed64, tc.sha5}} {
			k, err := New(m.seed, m.alg, 8, 30*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if got := k.Step(at); got != tc.step {
				t.Errorf("%s at %d: step %#x, want %#x", m.alg, tc.unix, got, tc.step)
			}
			if got := k.Code(at); got != m.want {
				t.Errorf("%s at %d: %s, want %s", m.alg, tc.unix, got, m.want)
			}
			// The same key as a person pastes it: base32 in an otpauth URI.
			uri := fmt.Sprintf("otpauth://totp/Example:alice?secret=%s&algorithm=%s&digits=8&period=30&issuer=Example",
				base32.StdEncoding.EncodeToString(m.seed), m.alg)
			parsed, err := Parse(uri)
			if err != nil {
				t.Fatalf("%s: %v", m.alg, err)
			}
			if got := parsed.Code(at); got != m.want {
				t.Errorf("%s at %d from its URI: %s, want %s", m.alg, tc.unix, got, m.want)
			}
		}
	}
}

// RFC 4226 Appendix D: HOTP of its secret for counters 0 to 9, 6 digits.
func TestRFC4226Vectors(t *testing.T) {
	t.Parallel()
	want := []string{"755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"}
	for c, w := range want {
		if got := HOTP(seed20, uint64(c), 6, SHA1); got != w {
			t.Errorf("HOTP(%d) = %s, want %s", c, got, w)
		}
	}
	// The default key of that secret types the 6-digit code of step 1
	// at 59 s: RFC 6238's 94287082 cut to its last six digits.
	k, err := Parse(base32.StdEncoding.EncodeToString(seed20))
	if err != nil {
		t.Fatal(err)
	}
	if got := k.Code(time.Unix(59, 0)); got != "287082" {
		t.Errorf("default key at 59 s: %s, want 287082", got)
	}
	if k.Algorithm() != SHA1 || k.Digits() != 6 || k.Period() != 30*time.Second {
		t.Errorf("defaults: %s", k)
	}
}

// The spellings a person pastes: lower case, spaces and dashes between
// groups, padding or none, a URI with its parameters in any case.
func TestParseSpellings(t *testing.T) {
	t.Parallel()
	const canonical = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ" // seed20
	at := time.Unix(1111111111, 0)
	want := HOTP(seed20, 0x23523ED, 6, SHA1)
	for _, s := range []string{
		canonical,
		strings.ToLower(canonical),
		"gezd gnbv gy3t qojq gezd gnbv gy3t qojq",
		"GEZD-GNBV-GY3T-QOJQ-GEZD-GNBV-GY3T-QOJQ",
		"  " + canonical + "\n",
		"JBSWY3DPEHPK3PXP",       // 80 bits, the shortest accepted
		"JBSWY3DPEHPK3PXP======", // …padded as base32 pads 10 bytes: 16 chars need none, extra padding is tolerated
		"otpauth://totp/Site:a?secret=" + strings.ToLower(canonical),
		"OTPAUTH://TOTP/Site?SECRET=x&secret=" + canonical, // a parameter name is case-sensitive: SECRET is not secret
		"otpauth://totp/Site?secret=" + canonical + "&algorithm=sha1&digits=6&period=30",
	} {
		k, err := Parse(s)
		if err != nil {
			t.Errorf("Parse(%q): %v", s, err)
			continue
		}
		if strings.HasPrefix(s, "JBSWY") {
			continue
		}
		if got := k.Code(at); got != want {
			t.Errorf("Parse(%q) codes %s, want %s", s, got, want)
		}
	}
}

// What is refused, and said without quoting the secret.
func TestParseRefuses(t *testing.T) {
	t.Parallel()
	const secretish = "GEZDGNBVGY3TQOJ1" // a 1: not base32
	for _, tc := range []struct {
		in, says string
	}{
		{"", "empty"},
		{"   ", "empty"},
		{secretish, "not base32"},
		{"GEZDGNBVGY3TQOJQ0", "not base32"},
		{"GEZDGNBV GY3T+QOJQ", "not base32"},
		{"GEZDGNBVGY3TQOJQG", "whole bytes"}, // 17 characters make no whole bytes
		{"GEZDGNBV", "bits"},                 // 40 bits: cut short
		{"GEZDGNBVGY3TQOJQ=GEZ", "not base32"},
		{"otpauth://hotp/Site?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&counter=1", "hotp"},
		{"otpauth://totp/Site?issuer=Site", "no secret"},
		{"otpauth://totp/Site?secret=GEZDGNBVGY3TQOJ1", "not base32"},
		{"otpauth://totp/Site?secret=GEZDGNBVGY3TQOJQ&algorithm=MD5", "algorithm"},
		{"otpauth://totp/Site?secret=GEZDGNBVGY3TQOJQ&digits=5", "digits"},
		{"otpauth://totp/Site?secret=GEZDGNBVGY3TQOJQ&digits=9", "digits"},
		{"otpauth://totp/Site?secret=GEZDGNBVGY3TQOJQ&digits=six", "digits"},
		{"otpauth://totp/Site?secret=GEZDGNBVGY3TQOJQ&period=0", "period"},
		{"otpauth://totp/Site?secret=GEZDGNBVGY3TQOJQ&period=-30", "period"},
		{"otpauth://totp/Site?secret=GEZDGNBVGY3TQOJQ&period=99999999999999999999", "period"},
		{"otpauth://totp/Site?secret=GEZDGNBVGY3TQOJQ&period=1", "period"},
		{"otpauth://totp/Site?secret=GEZDGNBVGY3TQOJQ&secret=GEZDGNBVGY3TQOJQ", "2 times"},
		{"otpauth://steam/Site?secret=GEZDGNBVGY3TQOJQ", "otpauth://totp"},
	} {
		_, err := Parse(tc.in)
		if err == nil {
			t.Errorf("Parse(%q) accepted", tc.in)
			continue
		}
		if !strings.Contains(err.Error(), tc.says) {
			t.Errorf("Parse(%q): %q, want it to say %q", tc.in, err, tc.says)
		}
		if strings.Contains(err.Error(), "GEZDGNBV") {
			t.Errorf("Parse(%q): the error quotes the secret: %q", tc.in, err)
		}
	}
}

// A code typed with less than a third of its period left waits for the
// next one; the wait always ends at a period's start.
func TestFresh(t *testing.T) {
	t.Parallel()
	k, err := New(seed20, SHA1, 6, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Unix(1_800_000_000, 0) // a multiple of 30
	for _, tc := range []struct {
		in, wait time.Duration
	}{
		{0, 0},
		{19 * time.Second, 0},
		{20 * time.Second, 0}, // exactly a third left
		{20*time.Second + time.Millisecond, 10*time.Second - time.Millisecond},
		{29*time.Second + 999*time.Millisecond, time.Millisecond},
	} {
		now := base.Add(tc.in)
		got := k.Fresh(now)
		if got != tc.wait {
			t.Errorf("at +%s: wait %s, want %s", tc.in, got, tc.wait)
		}
		typed := now.Add(got)
		if k.Left(typed) < 10*time.Second {
			t.Errorf("at +%s: the code typed after the wait has %s left", tc.in, k.Left(typed))
		}
		if got > 0 && k.Step(typed) != k.Step(now)+1 {
			t.Errorf("at +%s: the wait ends in step %d, want the next, %d", tc.in, k.Step(typed), k.Step(now)+1)
		}
	}
}

// Nothing that prints a key prints its secret.
func TestKeyKeepsItsSecret(t *testing.T) {
	t.Parallel()
	k, err := Parse("gezd gnbv gy3t qojq gezd gnbv gy3t qojq")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	slog.New(slog.NewTextHandler(&b, nil)).Info("key", "key", k)
	for _, s := range []string{fmt.Sprint(k), fmt.Sprintf("%v %+v %#v %s", k, k, k, k), b.String()} {
		if strings.Contains(strings.ToUpper(s), "GEZD") || strings.Contains(s, "1234567890") {
			t.Errorf("printed: %s", s)
		}
	}
	texts := strings.Join(k.Texts(), "|")
	for _, want := range []string{"GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", "gezd gnbv gy3t qojq gezd gnbv gy3t qojq",
		"3132333435363738393031323334353637383930", "12345678901234567890"} {
		if !strings.Contains(texts, want) {
			t.Errorf("Texts %q lack %q", texts, want)
		}
	}
}
