package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/tools"
)

// mcpbManifest is the part of packaging/mcpb/manifest.json the code must
// agree with.
type mcpbManifest struct {
	ManifestVersion string `json:"manifest_version"`
	Name            string `json:"name"`
	Version         string `json:"version"`
	Repository      struct {
		URL string `json:"url"`
	} `json:"repository"`
	Server struct {
		Type       string `json:"type"`
		EntryPoint string `json:"entry_point"`
		MCPConfig  struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcp_config"`
	} `json:"server"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
	UserConfig map[string]struct {
		Type string `json:"type"`
	} `json:"user_config"`
}

// registryEntry is the part of server.json the code must agree with.
type registryEntry struct {
	Schema     string `json:"$schema"`
	Name       string `json:"name"`
	Version    string `json:"version"`
	Repository struct {
		URL    string `json:"url"`
		Source string `json:"source"`
	} `json:"repository"`
	Packages []struct {
		RegistryType string `json:"registryType"`
		Identifier   string `json:"identifier"`
		Version      string `json:"version"`
		Transport    struct {
			Type string `json:"type"`
		} `json:"transport"`
	} `json:"packages"`
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// serveFlags are the flags `chaperone serve -h` of the built binary lists.
func serveFlags(t *testing.T) map[string]bool {
	t.Helper()
	out, _ := exec.Command(bin, "serve", "-h").CombinedOutput()
	flags := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  --([a-z0-9-]+)`).FindAllStringSubmatch(string(out), -1) {
		flags[m[1]] = true
	}
	if !flags["url"] || !flags["profile"] {
		t.Fatalf("chaperone serve -h lists no --url or --profile:\n%s", out)
	}
	return flags
}

// The Claude Desktop bundle's manifest and the MCP registry entry agree
// with the code: the tools the manifest lists are exactly the default
// tools, the server runs `chaperone serve` from the bundle, each user
// setting is passed as a flag serve has (and each setting passed is
// declared), and the versions and repository agree.
func TestPackagingAgreesWithCode(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	var m mcpbManifest
	readJSON(t, filepath.Join(root, "packaging", "mcpb", "manifest.json"), &m)
	var s registryEntry
	readJSON(t, filepath.Join(root, "server.json"), &s)

	defs, err := tools.DefinitionsFor(nil)
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, d := range defs {
		want = append(want, d.Name)
	}
	for _, tl := range m.Tools {
		got = append(got, tl.Name)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the manifest lists tools %v; the default tools are %v", got, want)
	}

	if m.ManifestVersion != "0.3" || m.Server.Type != "binary" || m.Server.EntryPoint != "server/chaperone" ||
		m.Server.MCPConfig.Command != "${__dirname}/server/chaperone" {
		t.Errorf("manifest server = %+v (manifest_version %q)", m.Server, m.ManifestVersion)
	}
	args := m.Server.MCPConfig.Args
	if len(args) == 0 || args[0] != "serve" {
		t.Fatalf("the manifest's args %q do not start with serve", args)
	}

	flags := serveFlags(t)
	ref := regexp.MustCompile(`\$\{user_config\.([A-Za-z0-9_]+)\}`)
	used := map[string]bool{}
	for _, a := range args[1:] {
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !strings.HasPrefix(a, "--") || !flags[name] {
			t.Errorf("the manifest passes %q: serve has no such flag", a)
		}
		for _, r := range ref.FindAllStringSubmatch(a, -1) {
			used[r[1]] = true
			if _, ok := m.UserConfig[r[1]]; !ok {
				t.Errorf("the manifest passes %q: no user_config %q", a, r[1])
			}
		}
	}
	for k, v := range m.Server.MCPConfig.Env {
		for _, r := range ref.FindAllStringSubmatch(v, -1) {
			t.Errorf("the manifest passes user_config %q in $%s: pass it as a flag, which this test checks", r[1], k)
		}
	}
	for k := range m.UserConfig {
		if !used[k] {
			t.Errorf("user_config %q is passed to nothing", k)
		}
	}

	if s.Name != "io.github.chaperone-mcp/chaperone" || !strings.Contains(s.Schema, "/schemas/2025-12-11/") {
		t.Errorf("server.json names %q with schema %q", s.Name, s.Schema)
	}
	if m.Version == "" || s.Version != m.Version {
		t.Errorf("versions disagree: manifest %q, server.json %q", m.Version, s.Version)
	}
	if s.Repository.URL != m.Repository.URL || s.Repository.Source != "github" {
		t.Errorf("repositories disagree: manifest %q, server.json %+v", m.Repository.URL, s.Repository)
	}
	if len(s.Packages) == 0 {
		t.Fatal("server.json lists no packages")
	}
	asset := regexp.MustCompile(`^` + regexp.QuoteMeta(s.Repository.URL+"/releases/download/v"+s.Version+"/chaperone_"+s.Version+"_") + `(linux|darwin|windows)_(amd64|arm64)\.mcpb$`)
	seen := map[string]bool{}
	for _, p := range s.Packages {
		if p.RegistryType != "mcpb" || p.Transport.Type != "stdio" || p.Version != s.Version || !asset.MatchString(p.Identifier) {
			t.Errorf("package %+v is not this version's release bundle", p)
		}
		seen[p.Identifier] = true
	}
	if len(seen) != 6 {
		t.Errorf("server.json lists %d bundles, want one for each of 6 platforms", len(seen))
	}
}
