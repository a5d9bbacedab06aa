package snapshot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMarkdownGolden renders recorded captures as markdown and compares them
// with testdata/markdown (rewritten with -update): the cross-site capture's
// frame at its place, tables, headings and refs that the table holds.
func TestMarkdownGolden(t *testing.T) {
	caps := loadCaptures(t)
	for _, name := range []string{"account", "cross-site", "long", "survey", "widgets"} {
		t.Run(name, func(t *testing.T) {
			c, ok := caps[name]
			if !ok {
				t.Fatalf("no capture %s", name)
			}
			_, table, _, blocks, found := BuildMarkdown(c, Options{MaxElements: 5000, TokenBudget: 1 << 30}, 1, Target{})
			if !found {
				t.Fatal("the page is not found")
			}
			md, end := PageMarkdown(blocks, 0, 1<<30)
			if end != len(blocks) {
				t.Fatalf("paged at %d of %d with no budget", end, len(blocks))
			}
			for _, f := range strings.Fields(md) {
				i := strings.Index(f, "@e")
				if i < 0 || (i > 0 && f[i-1] != '[' && f[i-1] != '(') {
					continue
				}
				ref := strings.TrimRight(f[i:], ")]")
				if _, ok := table[ref]; !ok {
					t.Errorf("the markdown shows %s, which the table lacks", ref)
				}
			}
			path := filepath.Join("testdata", "markdown", name+".md")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(md+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if md+"\n" != string(want) {
				t.Errorf("markdown of %s differs from %s:\n%s", name, path, md)
			}
		})
	}
}

func TestPageMarkdown(t *testing.T) {
	head := "| a | b |\n| --- | --- |"
	blocks := []Block{
		{Text: "# Title"},
		{Text: head, Gap: true},
		{Text: "| 1 | x |", Head: head},
		{Text: "| 2 | y |", Head: head},
		{Text: "after", Gap: true},
		{Text: strings.Repeat("word ", 40)},
	}
	tests := []struct {
		name     string
		from     int
		max      int
		want     string
		wantNext int
	}{
		{"all", 0, 1 << 20, "# Title\n\n" + head + "\n| 1 | x |\n| 2 | y |\n\nafter\n" + strings.TrimSpace(strings.Repeat("word ", 40)) + " ", 6},
		{"stops between blocks", 0, 40, "# Title\n\n" + head, 2},
		{"a page inside a table repeats its header", 3, 60, head + "\n| 2 | y |\n\nafter", 5},
		{"a block over the budget alone is cut", 5, 22, "word word word word", 6},
		{"past the end", 6, 100, "", 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, next := PageMarkdown(blocks, tc.from, tc.max)
			if got != tc.want || next != tc.wantNext {
				t.Errorf("PageMarkdown(from %d, %d) = %q, %d; want %q, %d", tc.from, tc.max, got, next, tc.want, tc.wantNext)
			}
		})
	}
}
