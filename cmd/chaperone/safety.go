package main

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/internal/totp"
)

// profileNone is the --profile value that turns checkpoints off.
const profileNone = "none"

// defaultProfile is the built-in policy that applies when no --profile is
// given: it gates what a person would call irreversible or costly.
const defaultProfile = "default"

// checkpointsOff is said on stderr when a command starts with --profile
// none, since nothing else would show that nobody will be asked.
const checkpointsOff = "checkpoints are off (--profile none): no action will wait for a person"

// addProfileFlag defines --profile on fs.
func addProfileFlag(fs *flag.FlagSet) *string {
	return fs.String("profile", "", "the profile whose checkpoints and success indicators apply: a built-in `name` ("+
		strings.Join(checkpoint.BuiltinProfiles(), ", ")+"), a JSON file, or none to turn checkpoints off\n"+
		"(default: the built-in default policy, which asks a person before buying, paying, deleting, cancelling, sending and the like)")
}

// profiles is what --profile says.
type profiles struct {
	// named is the profile the person named; it may say where sessions
	// start and what success looks like. nil when none was named.
	named *checkpoint.Profile
	// fallback is the built-in default policy, which applies when no
	// profile is named; nil with a named profile or with --profile none.
	fallback *checkpoint.Profile
}

// loadProfiles reads --profile: a profile name or file, "" for the default
// policy, or "none", which it announces on stderr.
func loadProfiles(name string, stderr io.Writer) (profiles, error) {
	switch name {
	case profileNone:
		fmt.Fprintf(stderr, "chaperone: %s\n", checkpointsOff)
		return profiles{}, nil
	case "":
		p, err := checkpoint.LoadProfile(defaultProfile)
		if err != nil {
			return profiles{}, fmt.Errorf("the built-in default policy: %w", err)
		}
		return profiles{fallback: p}, nil
	}
	p, err := checkpoint.LoadProfile(name)
	if err != nil {
		return profiles{}, fmt.Errorf("--profile: %w", err)
	}
	return profiles{named: p}, nil
}

// gate is the profile the gate applies, given named as resolveStart
// rewrote it.
func (p profiles) gate(named *checkpoint.Profile) *checkpoint.Profile {
	if p.named != nil {
		return named
	}
	return p.fallback
}

// secretName is what a --secret name may be: an environment variable's
// name, which the agent writes as {{NAME}}.
var secretName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// addSecretFlag defines --secret on fs.
func addSecretFlag(fs *flag.FlagSet) *listFlag {
	var names listFlag
	fs.Var(&names, "secret", "a `NAME` whose value, read from the environment variable NAME, the agent may type as {{NAME}}\n"+
		"without ever seeing it; it is masked on the page and kept out of snapshots, logs and prompts (repeatable)")
	return &names
}

// secretValues reads the value of each --secret name from the environment.
// An unset or empty variable is refused: the agent would type nothing.
// Errors name the variable, never a value.
func secretValues(names []string, getenv func(string) string) (map[string]string, error) {
	if len(names) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(names))
	for _, n := range names {
		if !secretName.MatchString(n) {
			return nil, fmt.Errorf("--secret %q: want the name of an environment variable (letters, digits, _)", n)
		}
		v := getenv(n)
		if v == "" {
			return nil, fmt.Errorf("--secret %s: the environment variable %s is unset or empty", n, n)
		}
		out[n] = v
	}
	return out, nil
}

// addTOTPFlag defines --totp on fs.
func addTOTPFlag(fs *flag.FlagSet) *listFlag {
	var names listFlag
	fs.Var(&names, "totp", "a `NAME` whose authenticator key (base32 as a site shows it, or an otpauth://totp/ URI), read from the environment variable NAME,\n"+
		"makes the one-time code the agent types as {{NAME}}: the code current as it is typed, never shown to the agent, masked as a --secret is, and so is the key (repeatable)")
	return &names
}

// totpKeys reads the authenticator key of each --totp name from the
// environment. An unset or empty variable, or one that holds no key, is
// refused, as is a name --secret gives too (secrets): {{NAME}} must mean
// one thing. Errors name the variable, never its value.
func totpKeys(names []string, getenv func(string) string, secrets map[string]string) (map[string]totp.Key, error) {
	if len(names) == 0 {
		return nil, nil
	}
	out := make(map[string]totp.Key, len(names))
	for _, n := range names {
		if !secretName.MatchString(n) {
			return nil, fmt.Errorf("--totp %q: want the name of an environment variable (letters, digits, _)", n)
		}
		if _, ok := secrets[n]; ok {
			return nil, fmt.Errorf("--totp %s: %s is a --secret too; give each {{NAME}} one meaning", n, n)
		}
		v := getenv(n)
		if strings.TrimSpace(v) == "" {
			return nil, fmt.Errorf("--totp %s: the environment variable %s is unset or empty", n, n)
		}
		k, err := totp.Parse(v)
		if err != nil {
			return nil, fmt.Errorf("--totp %s: the environment variable %s holds no authenticator key: %w (want the base32 key a site shows when you set up two-step sign-in, or an otpauth://totp/ URI)", n, n, err)
		}
		out[n] = k
	}
	return out, nil
}
