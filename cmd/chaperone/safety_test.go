package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/driver/drivertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestLoadProfiles: no --profile is the built-in default policy, which says
// nothing of where to start; "none" is nothing, said on stderr; a name is
// that profile.
func TestLoadProfiles(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	p, err := loadProfiles("", &stderr)
	if err != nil || p.named != nil || p.fallback == nil || p.fallback.Name != defaultProfile || len(p.fallback.GatedActions) == 0 {
		t.Errorf("no --profile: %+v, %v; want the default policy", p, err)
	}
	if g := p.gate(nil); g != p.fallback {
		t.Errorf("no --profile gates with %v", g)
	}
	p, err = loadProfiles("demo", &stderr)
	if err != nil || p.named == nil || p.named.Name != "demo" || p.fallback != nil {
		t.Errorf("--profile demo: %+v, %v", p, err)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %q", stderr.String())
	}
	p, err = loadProfiles(profileNone, &stderr)
	if err != nil || p.named != nil || p.fallback != nil || p.gate(nil) != nil {
		t.Errorf("--profile none: %+v, %v; want no profile at all", p, err)
	}
	if !strings.Contains(stderr.String(), checkpointsOff) {
		t.Errorf("--profile none said %q", stderr.String())
	}
	if _, err := loadProfiles("no-such-profile", &stderr); err == nil || !strings.Contains(err.Error(), "--profile") {
		t.Errorf("unknown profile: %v", err)
	}
}

// TestSecretValues: each --secret comes from its environment variable;
// an unset or empty one, or a name that is not a variable's, is refused
// with the name and never a value.
func TestSecretValues(t *testing.T) {
	t.Parallel()
	env := map[string]string{"API_TOKEN": "tok-1", "EMPTY": ""}
	getenv := func(k string) string { return env[k] }
	got, err := secretValues([]string{"API_TOKEN"}, getenv)
	if err != nil || len(got) != 1 || got["API_TOKEN"] != "tok-1" {
		t.Errorf("secretValues = %v, %v", got, err)
	}
	if got, err := secretValues(nil, getenv); err != nil || got != nil {
		t.Errorf("no secrets: %v, %v", got, err)
	}
	for _, c := range []struct{ name, want string }{
		{"MISSING", "--secret MISSING: the environment variable MISSING is unset or empty"},
		{"EMPTY", "--secret EMPTY: the environment variable EMPTY is unset or empty"},
		{"{{API_TOKEN}}", "want the name of an environment variable"},
		{"API-TOKEN", "want the name of an environment variable"},
	} {
		_, err := secretValues([]string{"API_TOKEN", c.name}, getenv)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "tok-1") {
			t.Errorf("--secret %s: %v; want %q", c.name, err, c.want)
		}
	}
}

// TestTOTPKeys: each --totp key comes from its environment variable, in the
// spellings a site shows it; an unset, empty or unreadable one, or a name
// that is also a --secret, is refused, naming the variable and never
// quoting its value.
func TestTOTPKeys(t *testing.T) {
	t.Parallel()
	const key = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
	env := map[string]string{
		"OTP": key, "OTP_LOWER": "gezd gnbv gy3t qojq gezd gnbv gy3t qojq", "OTP_URI": "otpauth://totp/Site:a?secret=" + key + "&digits=8",
		"EMPTY": "", "BLANK": "  ", "NOT_B32": "GEZDGNBVGY3TQOJ1GEZDGNBVGY3TQOJ1", "SHORT": "GEZDGNBV",
		"HOTP": "otpauth://hotp/Site?secret=" + key, "API_TOKEN": "tok-1",
	}
	getenv := func(k string) string { return env[k] }
	got, err := totpKeys([]string{"OTP", "OTP_LOWER", "OTP_URI"}, getenv, map[string]string{"API_TOKEN": "tok-1"})
	if err != nil || len(got) != 3 {
		t.Fatalf("totpKeys = %v, %v", got, err)
	}
	at := time.Unix(59, 0)
	if got["OTP"].Code(at) != "287082" || got["OTP_LOWER"].Code(at) != "287082" || got["OTP_URI"].Code(at) != "94287082" {
		t.Errorf("codes at 59 s: %s %s %s, want RFC 6238's 287082, 287082 and 94287082",
			got["OTP"].Code(at), got["OTP_LOWER"].Code(at), got["OTP_URI"].Code(at))
	}
	if got, err := totpKeys(nil, getenv, nil); err != nil || got != nil {
		t.Errorf("no keys: %v, %v", got, err)
	}
	for _, c := range []struct{ name, want string }{
		{"MISSING", "--totp MISSING: the environment variable MISSING is unset or empty"},
		{"EMPTY", "--totp EMPTY: the environment variable EMPTY is unset or empty"},
		{"BLANK", "--totp BLANK: the environment variable BLANK is unset or empty"},
		{"NOT_B32", "--totp NOT_B32: the environment variable NOT_B32 holds no authenticator key: the secret is not base32"},
		{"SHORT", "holds no authenticator key: the secret has 40 bits"},
		{"HOTP", "only otpauth://totp keys"},
		{"API_TOKEN", "--totp API_TOKEN: API_TOKEN is a --secret too"},
		{"{{OTP}}", "want the name of an environment variable"},
		{"OTP-2", "want the name of an environment variable"},
	} {
		_, err := totpKeys([]string{"OTP", c.name}, getenv, map[string]string{"API_TOKEN": "tok-1"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--totp %s: %v; want %q", c.name, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), "GEZDGNBV") || strings.Contains(err.Error(), "tok-1") {
			t.Errorf("--totp %s: the error quotes the value: %v", c.name, err)
		}
	}
}

// TestDryRunNeedsNoApprover: a dry run asks nobody, so it opens no approval
// channel at all (which without a terminal used to fail), and the gated
// click is never performed.
func TestDryRunNeedsNoApprover(t *testing.T) {
	t.Parallel()
	e, stdout, stderr := driverEnv(nil)
	dir := filepath.Join(t.TempDir(), "run")
	tk := demoTestTask(t, e, dir, nil)
	tk.approvers = &approverFlags{kind: "web", webListen: "127.0.0.1:0"}
	tk.dryRun = true
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := drive(ctx, e, tk)
	if err != nil || res.Success {
		t.Fatalf("dry run: %+v, %v\nstdout:\n%s\nstderr:\n%s", res, err, stdout, stderr)
	}
	if strings.Contains(stderr.String(), "Approval console") {
		t.Errorf("a dry run opened the web console:\n%s", stderr)
	}
	refused := false
	for _, l := range drivertest.ReadSessionLog(t, dir) {
		if l["tool"] == toolapi.Click && strings.HasSuffix(jsonStr(l["url"]), "/cancelled") {
			t.Errorf("a dry run performed the final click: %v", l)
		}
		refused = refused || strings.Contains(jsonStr(l["message"]), "--dry-run")
	}
	if !refused {
		t.Errorf("no step was refused as a dry run:\n%v", drivertest.ReadSessionLog(t, dir))
	}
}
