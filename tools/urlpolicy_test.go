package tools

import (
	"strings"
	"testing"
)

func TestURLPolicy(t *testing.T) {
	allowed := []string{
		"http://127.0.0.1:8080/account",
		"https://example.com/",
		"HTTPS://Example.com/path?q=1",
		"about:blank",
		"http://169.254.169.25.example.com/", // a name, not the address
		"http://10.0.0.1/",
	}
	for _, u := range allowed {
		if err := (URLPolicy{}).Check(u); err != nil {
			t.Errorf("Check(%q) = %v, want nil", u, err)
		}
	}
	refused := map[string]string{
		"file:///etc/passwd":                       `scheme "file" is not allowed`,
		"FILE:///etc/passwd":                       `scheme "file" is not allowed`,
		"chrome://settings":                        `scheme "chrome" is not allowed`,
		"javascript:alert(1)":                      `scheme "javascript" is not allowed`,
		"data:text/html,hi":                        `scheme "data" is not allowed`,
		"view-source:http://a.com":                 `scheme "view-source" is not allowed`,
		"example.com":                              "no scheme",
		"http://169.254.169.254/latest/meta-data/": "cloud metadata address",
		"http://2852039166/":                       "cloud metadata address",
		"http://0xa9fea9fe/":                       "cloud metadata address",
		"http://0251.0376.0251.0376/":              "cloud metadata address",
		"http://169.254.43518/":                    "cloud metadata address",
		"http://[::ffff:169.254.169.254]/":         "cloud metadata address",
		"http://[fd00:ec2::254]/":                  "cloud metadata address",
		"http://metadata.google.internal/":         "cloud metadata address",
		"http://100.100.100.200/":                  "cloud metadata address",
	}
	for u, want := range refused {
		err := (URLPolicy{}).Check(u)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check(%q) = %v, want an error containing %q", u, err, want)
		}
	}
	p := URLPolicy{AllowSchemes: []string{"file"}, AllowMetadata: true}
	for _, u := range []string{"file:///tmp/x.html", "http://169.254.169.254/"} {
		if err := p.Check(u); err != nil {
			t.Errorf("with everything allowed, Check(%q) = %v", u, err)
		}
	}
	if err := p.Check("chrome://settings"); err == nil {
		t.Error("chrome: allowed although only file was")
	}
}
