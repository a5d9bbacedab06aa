package snapshot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// TestMarkdownGolden renders recorded captures as markdown and compares them
// with testdata/markdown (rewritten with -update): the cross-site capture's
// frame at its place, tables, headings and refs that the table holds.
func TestMarkdownGolden(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	head := "| a | b |\n| --- | --- |"
	blocks := []Block{
		{Text: "# Title"},
		{Text: head, Gap: true},
		{Text: "| 1 | x |", Head: head},
		{Text: "| 2 | y |", Head: head},
		{Text: "after", Gap: true},
		{Text: strings.Repeat("word ", 40)},
	}
	tok := TextTokens
	tests := []struct {
		name     string
		from     int
		max      int
		want     string
		wantNext int
	}{
		{"all", 0, 1 << 20, "# Title\n\n" + head + "\n| 1 | x |\n| 2 | y |\n\nafter\n" + strings.Repeat("word ", 40), 6},
		{"stops between blocks", 0, tok("# Title") + 2 + tok(head), "# Title\n\n" + head, 2},
		{"a page inside a table repeats its header", 3, tok(head) + 1 + tok("| 2 | y |") + 2 + tok("after"), head + "\n| 2 | y |\n\nafter", 5},
		{"a block over the budget alone is cut", 5, 4, "word word word", 6},
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

// TestTextTokensBoundsCl100k holds TextTokens above what cl100k counts, on
// the golden markdown and on text of other kinds, since the budget a page of
// markdown keeps is a promise in a model's tokens.
func TestTextTokensBoundsCl100k(t *testing.T) {
	t.Parallel()
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("cl100k_base")
	if err != nil {
		t.Fatalf("load cl100k: %v", err)
	}
	texts := []string{
		"| R001 | Customer 1 | Lyon | 47.13 EUR |",
		"Invoice SF-1040 · February 14, 2026 · $22.99",
		"価格は月額 1,200 円です。キャンセルはいつでも可能です。",
		"Ünïcödé wörds, ёлка и ёж; مرحبا بالعالم",
		"[@e12 button \"Save\"] [Help centre](@e13) \\[x\\]",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 0000000000000000000000 ............ !!!!!!",
		"https://shop.example/path?q=a%20b&x=1#frag",
	}
	paths, _ := filepath.Glob(filepath.Join("testdata", "markdown", "*.md"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		if got, real := TextTokens(s), len(enc.Encode(s, nil, nil)); got < real {
			t.Errorf("TextTokens = %d, cl100k %d, of %.80q", got, real, s)
		}
	}
}
