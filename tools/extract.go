package tools

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// extractInput is the arguments of browser_extract.
type extractInput struct {
	Ref       string                  `json:"ref,omitempty"`
	Cursor    string                  `json:"cursor,omitempty"`
	MaxTokens *int                    `json:"max_tokens,omitempty"`
	Selector  string                  `json:"selector,omitempty"`
	Fields    map[string]extractField `json:"fields,omitempty"`
	Limit     int                     `json:"limit,omitempty" schema:"default=100"`
}

// budget is tokens(def), or why it is out of bounds.
func (in extractInput) budget(def int) (int, error) {
	n := in.tokens(def)
	if n < extractMinTokens || n > extractMaxTokens {
		return n, fmt.Errorf("max_tokens %d: want %d to %d", n, extractMinTokens, extractMaxTokens)
	}
	return n, nil
}

// tokens is max_tokens, or def when none was given. Its default depends on
// the mode (a page of markdown, or items up to what any call may read),
// which no one default in the schema can say.
func (in extractInput) tokens(def int) int {
	if in.MaxTokens == nil {
		return def
	}
	return *in.MaxTokens
}

// The bounds of browser_extract's arguments.
const (
	extractTokens    = 2000
	extractMinTokens = 100
	extractMaxTokens = 20_000
	extractMaxLimit  = 1000
	extractMaxFields = 20
	// extractValueLen is where an item's value is cut: a field that
	// matched the whole page must not flood the answer.
	extractValueLen = 500
)

// extractSnapshot is how much of the page the markdown's ref table covers:
// all of it, so that every link and control the markdown shows has a live
// ref.
var extractSnapshot = snapshot.Options{MaxElements: 5000, TokenBudget: 1 << 30, TextBudget: 1}

// ExtractResult is the answer to browser_extract: the page's content as
// markdown (one page of it, with the cursor of the next), or the items a
// selector found.
type ExtractResult struct {
	Success bool          `json:"success"`
	Error   *toolapi.Code `json:"error"`
	Message string        `json:"message,omitempty"`
	URL     string        `json:"url"`
	Title   string        `json:"title,omitempty"`
	// Markdown is one page of the content; its refs are live.
	Markdown string `json:"markdown,omitempty"`
	// NextCursor continues the markdown where this page stops; "" at the
	// end.
	NextCursor string `json:"next_cursor,omitempty"`
	// Fields are the items' field names, in the order of the text's
	// columns; Items the items (at most the limit), Total how many match.
	Fields []string            `json:"fields,omitempty"`
	Items  []map[string]string `json:"items,omitempty"`
	Total  int                 `json:"total,omitempty"`
}

// Render is the result as the model reads it: the page line and what the
// server says (what was cut, the next cursor) first, then the markdown or a
// table of the items, so that nothing the page writes can pass for the
// server's word about the paging ("the end").
func (r ExtractResult) Render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "page %q %s%s\n", r.Title, r.URL, snapshot.Untrusted)
	if r.Message != "" {
		b.WriteString(r.Message + "\n")
	}
	if r.Markdown != "" {
		b.WriteString(r.Markdown + "\n")
	}
	if len(r.Fields) > 0 {
		b.WriteString("| " + strings.Join(r.Fields, " | ") + " |\n")
		for _, it := range r.Items {
			b.WriteString("|")
			for _, f := range r.Fields {
				b.WriteString(" " + strings.ReplaceAll(it[f], "|", `\|`) + " |")
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// extract runs browser_extract.
func (s *Session) extract(ctx context.Context, c *call, in extractInput) Output {
	if msg := s.recover(ctx); msg != "" {
		return s.failed(ctx, c, toolapi.ActionFailed, msg)
	}
	if doc, err := s.currentPDF(ctx); err != nil {
		return s.failed(ctx, c, toolapi.ActionFailed, s.clip(err.Error(), messageLimit))
	} else if doc != nil {
		return s.extractPDF(ctx, c, in, doc)
	}
	var region snapshot.Target
	if in.Ref != "" {
		t, ok := s.live[in.Ref]
		if !ok || t.BackendNodeID == 0 {
			return s.failed(ctx, c, toolapi.RefInvalid, fmt.Sprintf("ref %s is not in the newest snapshot: take refs from the newest result", in.Ref))
		}
		region = t
	}
	if in.Selector != "" || len(in.Fields) > 0 {
		return s.extractItems(ctx, c, in, region)
	}
	return s.extractMarkdown(ctx, c, in, region)
}

// extractMarkdown answers the markdown of the page or region from a fresh
// capture, one page of blocks from the cursor on, within the token budget.
// The capture's ref table, which covers the whole page, becomes the live
// one, so that the refs the markdown shows can be acted on next.
func (s *Session) extractMarkdown(ctx context.Context, c *call, in extractInput, region snapshot.Target) Output {
	tokens, err := in.budget(extractTokens)
	if err != nil {
		return s.failed(ctx, c, toolapi.InvalidParams, err.Error())
	}
	from, mark, err := parseCursor(in.Cursor)
	if err != nil {
		return s.failed(ctx, c, toolapi.InvalidParams, err.Error())
	}
	cctx, cancel := context.WithTimeout(ctx, s.config.SnapshotTimeout)
	defer cancel()
	opts := s.config.Capture
	opts.Screenshot = false
	page, err := s.tab.Capture(cctx, opts)
	if err != nil {
		return s.failed(ctx, c, toolapi.ActionFailed, fmt.Sprintf("extract: look at the page: %v", err))
	}
	snap, table, next, blocks, found := snapshot.BuildMarkdown(page, extractSnapshot, s.next, region)
	s.secrets.redactSnapshot(snap)
	s.live, s.last, s.next = table, snap, next
	if !found {
		return s.failed(ctx, c, toolapi.RefInvalid, fmt.Sprintf("ref %s is gone from the page", in.Ref))
	}
	if from > len(blocks) {
		return s.failed(ctx, c, toolapi.InvalidParams, fmt.Sprintf("cursor %q is past the end: the content has %d blocks", in.Cursor, len(blocks)))
	}
	r := ExtractResult{Success: true, URL: s.secrets.redact(snap.Page.URL), Title: s.secrets.redact(snap.Page.Title)}
	var notes []string
	if snap.Dialog != nil {
		notes = append(notes, fmt.Sprintf("A %s dialog is open (%q): get_snapshot shows its buttons.", snap.Dialog.Type, clip(s.secrets.redact(snap.Dialog.Message), 200)))
	}
	if from > 0 && blockMark(blocks[from-1]) != mark {
		notes = append(notes, "The page changed since that cursor: some content may repeat or be missed.")
	}
	text, end := snapshot.PageMarkdown(blocks, from, tokens)
	r.Markdown = s.secrets.redact(text)
	switch {
	case len(blocks) == 0:
		notes = append(notes, "No readable text here.")
	case end < len(blocks):
		r.NextCursor = strconv.Itoa(end) + ":" + blockMark(blocks[end-1])
		notes = append(notes, fmt.Sprintf("Blocks %d–%d of %d; cut at about %d tokens: %d blocks left, next cursor %q.", from+1, end, len(blocks), tokens, len(blocks)-end, r.NextCursor))
	default:
		notes = append(notes, fmt.Sprintf("Blocks %d–%d of %d: the end.", from+1, end, len(blocks)))
	}
	r.Message = s.clip(strings.Join(notes, " "), resultLimit)
	return Output{Value: r}
}

// extractItems answers the items the selector finds, with the fields read
// from each.
func (s *Session) extractItems(ctx context.Context, c *call, in extractInput, region snapshot.Target) Output {
	if in.Selector == "" {
		return s.failed(ctx, c, toolapi.InvalidParams, "fields need a selector for the items")
	}
	limit := in.Limit
	if limit < 1 || limit > extractMaxLimit {
		return s.failed(ctx, c, toolapi.InvalidParams, fmt.Sprintf("limit %d: want 1 to %d", limit, extractMaxLimit))
	}
	// Items are bounded by limit first: the token budget cuts them only
	// when asked for, or at the most any call may read, since an agent
	// that asked for 50 items by limit wants the 50.
	tokens, err := in.budget(extractMaxTokens)
	if err != nil {
		return s.failed(ctx, c, toolapi.InvalidParams, err.Error())
	}
	if len(in.Fields) > extractMaxFields {
		return s.failed(ctx, c, toolapi.InvalidParams, fmt.Sprintf("%d fields: at most %d", len(in.Fields), extractMaxFields))
	}
	fields := make(map[string]string, len(in.Fields))
	for k, f := range in.Fields {
		fields[k] = f.spec
	}
	if len(fields) == 0 {
		fields = map[string]string{"text": ""}
	}
	found, err := s.tab.Extract(ctx, region.BackendNodeID, in.Selector, fields, limit)
	if errors.Is(err, browser.ErrSelector) {
		return s.failed(ctx, c, toolapi.InvalidParams, s.secrets.redact(err.Error()))
	}
	if err != nil {
		code := toolapi.ActionFailed
		if errors.Is(err, context.DeadlineExceeded) {
			code = toolapi.Timeout
		}
		return s.failed(ctx, c, code, err.Error())
	}
	r := ExtractResult{Success: true, URL: s.secrets.redact(s.tab.URL()), Total: found.Total, Items: found.Items}
	if s.last != nil && s.last.Page.URL == s.tab.URL() {
		r.Title = s.secrets.redact(s.last.Page.Title)
	}
	r.Fields = slices.Sorted(func(yield func(string) bool) {
		for k := range fields {
			if !yield(k) {
				return
			}
		}
	})
	// Each value is redacted alone, then all of them, item by item and
	// field by field, as one run: a page may spread a code over fields.
	var run []*string
	for _, it := range r.Items {
		for _, k := range r.Fields {
			if v, ok := it[k]; ok {
				v = s.secrets.redact(v)
				run = append(run, &v)
				it[k] = v
			}
		}
	}
	s.secrets.redactRun(run)
	for i, k := 0, 0; k < len(r.Items); k++ {
		for _, f := range r.Fields {
			if _, ok := r.Items[k][f]; ok {
				r.Items[k][f] = *run[i]
				i++
			}
		}
	}
	// The items stop where their text would pass the token budget, as
	// the markdown does.
	size, kept := 0, 0
	for _, it := range r.Items {
		for k, v := range it {
			if len(v) > extractValueLen {
				v = clip(v, extractValueLen)
			}
			it[k] = v
			size += snapshot.TextTokens(v) + 2
		}
		if kept > 0 && size > tokens {
			break
		}
		kept++
	}
	cutByBudget := kept < len(r.Items)
	r.Items = r.Items[:kept]
	msg := fmt.Sprintf("%d items of %d matching %q.", len(r.Items), found.Total, in.Selector)
	switch {
	case cutByBudget:
		msg += fmt.Sprintf(" %d more past max_tokens %d: a narrower selector or fewer fields, or a region ref.", found.Total-len(r.Items), tokens)
	case found.Total > len(r.Items):
		msg += fmt.Sprintf(" %d more past limit %d.", found.Total-len(r.Items), limit)
	}
	if found.FramesFailed > 0 {
		msg += fmt.Sprintf(" %d cross-site frames did not answer.", found.FramesFailed)
	}
	r.Message = s.clip(msg, resultLimit)
	if r.Items == nil {
		r.Items = []map[string]string{}
	}
	return Output{Value: r}
}

// parseCursor reads a cursor "<block>:<mark>"; "" is the start.
func parseCursor(c string) (int, string, error) {
	if c == "" {
		return 0, "", nil
	}
	n, mark, _ := strings.Cut(c, ":")
	from, err := strconv.Atoi(n)
	if err != nil || from < 0 {
		return 0, "", fmt.Errorf("cursor %q: use next_cursor of the previous result", c)
	}
	return from, mark, nil
}

// blockMark fingerprints a block, so that a cursor can tell the page
// changed under it.
func blockMark(b snapshot.Block) string {
	h := fnv.New32a()
	h.Write([]byte(b.Text))
	return strconv.FormatUint(uint64(h.Sum32()), 36)
}

// extractArgsInvalid answers arguments that do not decode, with a fresh
// snapshot like every failed action.
func (s *Session) extractArgsInvalid(ctx context.Context, c *call, err error) Output {
	return s.failed(ctx, c, toolapi.InvalidParams, err.Error())
}
