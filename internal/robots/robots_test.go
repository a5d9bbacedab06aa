package robots

import (
	"strings"
	"testing"
)

func TestAllowed(t *testing.T) {
	const mixed = `# a comment line
User-agent: *
Disallow: /private
Allow: /private/open
Disallow: /*.pdf$
Disallow: /search?q=
Disallow:

User-agent: OtherBot
Disallow: /
`
	const own = `User-agent: *
Disallow: /

user-agent: CHAPERONE   # ours, in any case
Disallow: /admin
Allow: /admin/help
`
	const ownEmpty = `User-agent: *
Disallow: /

User-agent: Chaperone
`
	const sharedGroup = `User-agent: GoogleBot
User-agent: Chaperone
Disallow: /shared
`
	tests := []struct {
		name     string
		body     string
		path     string
		want     bool
		wantRule string
	}{
		{"nothing matches", mixed, "/public", true, ""},
		{"disallowed prefix", mixed, "/private/x", false, "Disallow: /private"},
		{"prefix without slash", mixed, "/privateer", false, "Disallow: /private"},
		{"longer allow wins", mixed, "/private/open/page", true, "Allow: /private/open"},
		{"end anchor matches", mixed, "/docs/a.pdf", false, "Disallow: /*.pdf$"},
		{"end anchor needs the end", mixed, "/docs/a.pdf?x=1", true, ""},
		{"query counts", mixed, "/search?q=shoes", false, "Disallow: /search?q="},
		{"another query", mixed, "/search?page=2", true, ""},
		{"empty disallow disallows nothing", mixed, "/", true, ""},
		{"other bot's group ignored", mixed, "/anything", true, ""},
		{"own group replaces star", own, "/public", true, ""},
		{"own group disallows", own, "/admin/users", false, "Disallow: /admin"},
		{"own group allows longer", own, "/admin/help", true, "Allow: /admin/help"},
		{"own empty group allows all", ownEmpty, "/anything", true, ""},
		{"group of several agents", sharedGroup, "/shared/x", false, "Disallow: /shared"},
		{"robots.txt always allowed", "User-agent: *\nDisallow: /\n", "/robots.txt", true, ""},
		{"disallow all", "User-agent: *\nDisallow: /\n", "/", false, "Disallow: /"},
		{"empty file", "", "/x", true, ""},
		{"garbage lines skipped", "<html>\nnot robots\nUser-agent *\n", "/x", true, ""},
		{"wildcard in the middle", "User-agent: *\nDisallow: /a/*/edit\n", "/a/42/edit?x", false, "Disallow: /a/*/edit"},
		{"wildcard needs its tail", "User-agent: *\nDisallow: /a/*/edit\n", "/a/42/view", true, ""},
		{"equal length: allow wins", "User-agent: *\nDisallow: /page\nAllow: /page\n", "/page", true, "Allow: /page"},
		{"escapes compare in one case", "User-agent: *\nDisallow: /caf%c3%a9\n", "/caf%C3%A9/menu", false, "Disallow: /caf%C3%A9"},
		{"non-ASCII pattern matches its escape", "User-agent: *\nDisallow: /café\n", "/caf%C3%A9", false, "Disallow: /caf%C3%A9"},
		{"an escaped unreserved letter is the letter", "User-agent: *\nDisallow: /private\n", "/%70rivate/x", false, "Disallow: /private"},
		{"escaped in the pattern too", "User-agent: *\nDisallow: /%7Euser\n", "/~user/page", false, "Disallow: /~user"},
		{"a reserved character stays escaped", "User-agent: *\nDisallow: /a/b\n", "/a%2Fb", true, ""},
		{"CRLF lines", "User-agent: *\r\nDisallow: /x\r\n", "/x", false, "Disallow: /x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, rule := Parse([]byte(tc.body), "Chaperone").Allowed(tc.path)
			if got != tc.want || rule != tc.wantRule {
				t.Errorf("Allowed(%q) = %v, %q; want %v, %q", tc.path, got, rule, tc.want, tc.wantRule)
			}
		})
	}
}

func TestDisallowAll(t *testing.T) {
	r := DisallowAll()
	if ok, why := r.Allowed("/"); ok || why == "" {
		t.Errorf("DisallowAll allows /: %v, %q", ok, why)
	}
	if ok, _ := r.Allowed("/robots.txt"); !ok {
		t.Error("DisallowAll disallows /robots.txt itself")
	}
	if ok, _ := (Rules{}).Allowed("/x"); !ok {
		t.Error("the zero Rules disallow a path")
	}
}

func TestParseReadsOnlyMaxSize(t *testing.T) {
	body := "User-agent: *\n" + strings.Repeat("# padding line\n", MaxSize/15+1) + "Disallow: /late\n"
	if ok, _ := Parse([]byte(body), "Chaperone").Allowed("/late"); !ok {
		t.Error("a rule past MaxSize was applied")
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"/", "/", true},
		{"/a", "/abc", true},
		{"/a$", "/a", true},
		{"/a$", "/ab", false},
		{"*", "/anything", true},
		{"/*", "/", true},
		{"/*x*y$", "/1x2y", true},
		{"/*x*y$", "/1x2y3", false},
		{"/b", "/a", false},
	}
	for _, tc := range tests {
		if got := match(tc.pattern, tc.path); got != tc.want {
			t.Errorf("match(%q, %q) = %v, want %v", tc.pattern, tc.path, got, tc.want)
		}
	}
}
