package urlpolicy

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestURLPolicy(t *testing.T) {
	allowed := []string{
		"http://127.0.0.1:8080/account",
		"https://example.com/",
		"HTTPS://Example.com/path?q=1",
		"about:blank",
		"about:srcdoc",
		"about:blank#top",
		"http://169.254.169.25.example.com/", // a name, not the address
		"http://10.0.0.1/",
		"http://169.255.0.1/",
		"http://[fe00::1]/",
		"http://bücher.example/",
	}
	for _, u := range allowed {
		if err := (Policy{}).Check(u); err != nil {
			t.Errorf("Check(%q) = %v, want nil", u, err)
		}
	}
	refused := map[string]string{
		"file:///etc/passwd":       `scheme "file" is not allowed`,
		"FILE:///etc/passwd":       `scheme "file" is not allowed`,
		"chrome://settings":        `scheme "chrome" is not allowed`,
		"javascript:alert(1)":      `scheme "javascript" is not allowed`,
		"data:text/html,hi":        `scheme "data" is not allowed`,
		"blob:https://a.com/1-2-3": `scheme "blob" is not allowed`,
		"view-source:http://a.com": `scheme "view-source" is not allowed`,
		"example.com":              "no scheme",
		"http://exa mple.com/":     "not a valid URL",
		// Every spelling of the metadata address a browser accepts.
		"http://169.254.169.254/latest/meta-data/": "169.254.169.254 is a cloud metadata address",
		"http://2852039166/":                       "2852039166 is 169.254.169.254, a cloud metadata address",
		"http://0xa9fea9fe/":                       "0xa9fea9fe is 169.254.169.254, a cloud metadata address",
		"http://0XA9FEA9FE/":                       "is 169.254.169.254, a cloud metadata address",
		"http://0251.0376.0251.0376/":              "0251.0376.0251.0376 is 169.254.169.254, a cloud metadata address",
		"http://0xa9.0xfe.0xa9.0xfe/":              "is 169.254.169.254, a cloud metadata address",
		"http://169.254.43518/":                    "169.254.43518 is 169.254.169.254, a cloud metadata address",
		"http://169.16689662/":                     "169.16689662 is 169.254.169.254, a cloud metadata address",
		"http://169.254.169.254.:80/":              "a cloud metadata address",
		"http://user:pw@169.254.169.254/":          "169.254.169.254 is a cloud metadata address",
		"http://[::ffff:169.254.169.254]/":         "::ffff:169.254.169.254 is 169.254.169.254, a cloud metadata address",
		"http://[::ffff:a9fe:a9fe]/":               "is 169.254.169.254, a cloud metadata address",
		"http://[64:ff9b::a9fe:a9fe]/":             "a cloud metadata address",
		"http://[fd00:ec2::254]/":                  "fd00:ec2::254 is a cloud metadata address",
		"http://[FD00:EC2:0::254]/":                "is fd00:ec2::254, a cloud metadata address",
		"http://[fd20:ce::254]/":                   "fd20:ce::254 is a cloud metadata address",
		"http://100.100.100.200/":                  "100.100.100.200 is a cloud metadata address",
		"http://169.254.170.2/v2/credentials":      "169.254.170.2 is a cloud metadata address",
		"http://metadata.google.internal/":         "metadata.google.internal is a cloud metadata address",
		"http://METADATA.google.internal./":        "metadata.google.internal is a cloud metadata address",
		"http://metadata/computeMetadata/v1/":      "metadata is a cloud metadata address",
		// IDN: full-width digits and ideographic full stops map to ASCII.
		"http://１６９．２５４．１６９．２５４/":          "is 169.254.169.254, a cloud metadata address",
		"http://169。254。169。254/":          "is 169.254.169.254, a cloud metadata address",
		"http://ｍｅｔａｄａｔａ.google.internal/": "metadata.google.internal is a cloud metadata address",
		// The link-local ranges the metadata services live in.
		"http://169.254.1.2/":      "169.254.1.2 is a link-local address",
		"http://[fe80::1]/":        "fe80::1 is a link-local address",
		"http://[fe80::1%25eth0]/": "is fe80::1, a link-local address",
		"http://[febf::1]/":        "febf::1 is a link-local address",
		// Spellings net/url reads without a host, or with another one
		// than the browser's (issue 27).
		"http:169.254.169.254/latest/":       "169.254.169.254 is a cloud metadata address",
		"http:/0xa9fea9fe/":                  "0xa9fea9fe is 169.254.169.254",
		`http:\\169.254.169.254/`:            "169.254.169.254 is a cloud metadata address",
		"http://169.254.169.%32%35%34/":      "is 169.254.169.254, a cloud metadata address",
		"ht\ttp://169.254.1\n69.254/":        "a cloud metadata address",
		"http://metadata.goo%67le.internal/": "metadata.google.internal is a cloud metadata address",
		"http://exa*mple.com/":               "not a valid URL",
	}
	for u, want := range refused {
		err := (Policy{}).Check(u)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check(%q) = %v, want an error containing %q", u, err, want)
		}
		if _, ok := errors.AsType[*Refusal](err); err != nil && !ok {
			t.Errorf("Check(%q) = %T, want a *Refusal", u, err)
		}
	}
	p := Policy{AllowSchemes: []string{"file", "data"}, AllowMetadata: true}
	for _, u := range []string{"file:///tmp/x.html", "data:text/html,hi", "http://169.254.169.254/", "http://0xa9fea9fe/", "http://[fe80::1]/"} {
		if err := p.Check(u); err != nil {
			t.Errorf("with everything allowed, Check(%q) = %v", u, err)
		}
	}
	if err := p.Check("chrome://settings"); err == nil {
		t.Error("chrome: allowed although only file was")
	}
}

// fakeResolver answers from a table; a name not in it does not resolve.
type fakeResolver map[string][]string

func (f fakeResolver) LookupNetIP(_ context.Context, network, host string) ([]netip.Addr, error) {
	if network != "ip" {
		return nil, errors.New("unexpected network " + network)
	}
	list, ok := f[host]
	if !ok {
		return nil, errors.New("no such host")
	}
	var out []netip.Addr
	for _, s := range list {
		out = append(out, netip.MustParseAddr(s))
	}
	return out, nil
}

func TestURLPolicyResolves(t *testing.T) {
	r := fakeResolver{
		"metadata.attacker.example": {"169.254.169.254"},
		"mapped.attacker.example":   {"93.184.216.34", "::ffff:169.254.169.254"},
		"v6.attacker.example":       {"fd00:ec2::254"},
		"ll.attacker.example":       {"fe80::1%eth0"},
		"shop.example":              {"93.184.216.34", "2606:2800:220:1::1"},
		"xn--bcher-kva.example":     {"169.254.169.254"},
	}
	cases := []struct {
		url, want string // want "" means allowed
	}{
		{"https://shop.example/cart", ""},
		{"https://unknown.example/", ""}, // does not resolve: the browser cannot reach it either
		{"http://10.0.0.1/", ""},         // an address: nothing to resolve
		{"http://metadata.attacker.example/latest/", "metadata.attacker.example resolves to 169.254.169.254, a cloud metadata address"},
		{"http://METADATA.Attacker.Example./", "metadata.attacker.example resolves to 169.254.169.254"},
		{"http://mapped.attacker.example/", "mapped.attacker.example resolves to 169.254.169.254, a cloud metadata address"},
		{"http://v6.attacker.example/", "v6.attacker.example resolves to fd00:ec2::254, a cloud metadata address"},
		{"http://ll.attacker.example/", "ll.attacker.example resolves to fe80::1, a link-local address"},
		{"http://bücher.example/", "xn--bcher-kva.example resolves to 169.254.169.254"},
	}
	for _, c := range cases {
		err := Policy{}.CheckResolved(context.Background(), c.url, r)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("CheckResolved(%q) = %v, want nil", c.url, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("CheckResolved(%q) = %v, want an error containing %q", c.url, err, c.want)
		}
	}
	if err := (Policy{AllowMetadata: true}).CheckResolved(context.Background(), "http://metadata.attacker.example/", r); err != nil {
		t.Errorf("with --allow-metadata, a name resolving to it was refused: %v", err)
	}
	// The check the browser applies says the reason alone.
	err := Policy{}.DocumentCheck(r)(context.Background(), "http://metadata.attacker.example/x?token=1")
	if err == nil || err.Error() != "metadata.attacker.example resolves to 169.254.169.254, a cloud metadata address" {
		t.Errorf("DocumentCheck = %v, want the reason alone", err)
	}
}

func TestURLPolicyOrigins(t *testing.T) {
	p := Policy{
		AllowedOrigins: []string{"https://shop.example", "http://127.0.0.1:8080", "https://*.cdn.example", "https://bücher.example/"},
		BlockedOrigins: []string{"https://ads.cdn.example"},
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	cases := []struct {
		url, want string
	}{
		{"https://shop.example/cart", ""},
		{"HTTPS://SHOP.example:443/", ""},
		{"http://127.0.0.1:8080/account", ""},
		{"http://2130706433:8080/account", ""}, // 127.0.0.1 spelled as a number
		{"https://img.cdn.example/a.png", ""},
		{"https://a.b.cdn.example/", ""},
		{"https://xn--bcher-kva.example/", ""},
		{"about:blank", ""},
		{"https://cdn.example/", "https://cdn.example is not an allowed origin (allowed: https://shop.example, http://127.0.0.1:8080, https://*.cdn.example, https://bücher.example/)"},
		{"http://shop.example/", "http://shop.example is not an allowed origin"},
		{"https://shop.example:8443/", "https://shop.example:8443 is not an allowed origin"},
		{"http://localhost:8080/", "http://localhost:8080 is not an allowed origin"},
		{"https://evilshop.example/", "https://evilshop.example is not an allowed origin"},
		{"https://ads.cdn.example/x", "https://ads.cdn.example is a blocked origin"},
		{"http://169.254.169.254/", "a cloud metadata address"},
	}
	for _, c := range cases {
		err := p.Check(c.url)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("Check(%q) = %v, want nil", c.url, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("Check(%q) = %v, want an error containing %q", c.url, err, c.want)
		}
	}
	// Blocked origins alone leave the rest open.
	b := Policy{BlockedOrigins: []string{"http://localhost:9000"}}
	if err := b.Check("http://127.0.0.1:9000/"); err != nil {
		t.Errorf("blocked localhost, 127.0.0.1 refused: %v", err)
	}
	if err := b.Check("http://LOCALHOST:9000/x"); err == nil || !strings.Contains(err.Error(), "http://localhost:9000 is a blocked origin") {
		t.Errorf("blocked localhost, localhost: %v", err)
	}
	// A profile's origins add to the flag's.
	w := Policy{AllowedOrigins: []string{"https://a.example"}}.WithAllowedOrigins("https://b.example")
	if w.Check("https://a.example/") != nil || w.Check("https://b.example/") != nil || w.Check("https://c.example/") == nil {
		t.Errorf("WithAllowedOrigins: %+v", w)
	}
	for _, bad := range []string{"example.com", "https://", "https://a.example/path", "https://*.10.0.0.1", "https://a.example?q=1", "https://u@a.example"} {
		if err := (Policy{AllowedOrigins: []string{bad}}).Validate(); err == nil {
			t.Errorf("Validate accepted allowed origin %q", bad)
		}
		if err := (Policy{BlockedOrigins: []string{bad}}).Validate(); err == nil || !strings.Contains(err.Error(), "--blocked-origins") {
			t.Errorf("Validate of blocked origin %q = %v", bad, err)
		}
	}
}

// countingResolver counts the lookups it answers.
type countingResolver struct {
	fakeResolver
	n int
}

func (c *countingResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	c.n++
	return c.fakeResolver.LookupNetIP(ctx, network, host)
}

// The browser's check keeps a name's addresses: a page loads many documents
// from one host.
func TestDocumentCheckKeepsAnswers(t *testing.T) {
	r := &countingResolver{fakeResolver: fakeResolver{"shop.example": {"93.184.216.34"}, "meta.example": {"169.254.169.254"}}}
	check := Policy{}.DocumentCheck(r)
	for range 3 {
		if err := check(context.Background(), "https://shop.example/x"); err != nil {
			t.Fatal(err)
		}
		if err := check(context.Background(), "https://meta.example/x"); err == nil {
			t.Fatal("meta.example allowed")
		}
	}
	if r.n != 2 {
		t.Errorf("%d lookups for two names, want 2", r.n)
	}
}
