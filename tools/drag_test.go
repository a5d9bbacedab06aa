package tools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

func TestDrag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                 string
		fromRole, from       string
		toRole, to           string
		resultID, wantResult string
	}{
		{"HTML5 drag and drop onto a region", "button", "Write tests", "region", "Done column", "board-result", "Write tests is in Done column"},
		{"a sortable list on pointer events", "option", "Gamma", "option", "Alpha", "queue-order", "Gamma, Alpha, Beta"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := openWith(t, "/variants/drag", Config{Caps: []string{toolapi.CapDrag}})
			s := h.snap(true)
			h.ok(toolapi.Drag, map[string]any{"from_ref": browsertest.Ref(t, s, tc.fromRole, tc.from), "to_ref": browsertest.Ref(t, s, tc.toRole, tc.to)})
			if got := h.evalString(`document.getElementById('` + tc.resultID + `').textContent`); got != tc.wantResult {
				t.Errorf("#%s = %q, want %q", tc.resultID, got, tc.wantResult)
			}
		})
	}
}

// TestDragAndUploadAreGated: a profile's rule for drag or upload stops the
// action until a person approves; the person sees what moves where, or
// which files go, and a rejection leaves the page as it was.
func TestDragAndUploadAreGated(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cv.txt"), []byte("curriculum"), 0o600); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, profile string
		tool                string
		args                func(s *snapshot.Snapshot) map[string]any
		wantShown           string
		resultID            string
	}{
		{"drag", "/variants/drag", `{"name":"board","gated_actions":[{"name":"move cards","verb":"drag"}]}`, toolapi.Drag,
			func(s *snapshot.Snapshot) map[string]any {
				return map[string]any{"from_ref": browsertest.Ref(t, s, "button", "Write tests"), "to_ref": browsertest.Ref(t, s, "region", "Done column")}
			}, `drag button "Write tests" to region "Done column"`, "board-result"},
		{"upload", "/variants/upload", `{"name":"files","gated_actions":[{"name":"send files","verb":"upload"}]}`, toolapi.Upload,
			func(s *snapshot.Snapshot) map[string]any {
				return map[string]any{"ref": browsertest.Ref(t, s, "button", "Choose file"), "paths": []string{"cv.txt"}}
			}, `upload button "Choose file" with ` + filepath.Join(real, "cv.txt"), "chosen"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := openGated(t, tc.path, tc.profile, false, Config{Caps: []string{toolapi.CapAll}, UploadDir: dir})
			before := g.evalString(`document.getElementById('` + tc.resultID + `').textContent`)
			r := g.act(tc.tool, tc.args(g.snap(true)))
			wantError(t, r, toolapi.HumanRejected)
			asked := g.person.Requests()
			if len(asked) != 1 || asked[0].Concrete == nil || asked[0].Concrete.String() != tc.wantShown {
				t.Fatalf("the person was asked %+v, want once about %q", asked, tc.wantShown)
			}
			if after := g.evalString(`document.getElementById('` + tc.resultID + `').textContent`); after != before {
				t.Errorf("a rejected %s changed the page: %q, was %q", tc.name, after, before)
			}
		})
	}
}
