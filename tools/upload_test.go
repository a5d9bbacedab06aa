package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

func TestUpload(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	write := func(path, content string) {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "cv.txt"), "curriculum")
	write(filepath.Join(dir, "photo.txt"), "a photo")
	write(filepath.Join(outside, "secret.txt"), "do not send")
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		uploadDir string
		control   string // the button or input's accessible name
		role      string
		paths     []string
		wantCode  toolapi.Code
		// want is what the page shows of the files, in #attached or
		// #chosen; wantMsg is in the refusal's message.
		field, want, wantMsg string
	}{
		{"a file input, two files", dir, "Attachments", "button", []string{"cv.txt", filepath.Join(dir, "photo.txt")}, "", "attached", "cv.txt (10 bytes), photo.txt (7 bytes)", ""},
		{"a button over a hidden input", dir, "Choose file", "button", []string{"photo.txt"}, "", "chosen", "photo.txt (7 bytes)", ""},
		{"outside the directory", dir, "Attachments", "button", []string{filepath.Join(outside, "secret.txt")}, toolapi.InvalidParams, "attached", "", "outside the upload directory"},
		{"out through ..", dir, "Attachments", "button", []string{"../" + filepath.Base(outside) + "/secret.txt"}, toolapi.InvalidParams, "attached", "", "outside the upload directory"},
		{"out through a symlink", dir, "Attachments", "button", []string{"link.txt"}, toolapi.InvalidParams, "attached", "", "outside the upload directory once links are followed"},
		{"a directory", dir, "Attachments", "button", []string{"sub"}, toolapi.InvalidParams, "attached", "", "not a regular file"},
		{"a missing file", dir, "Attachments", "button", []string{"nope.txt"}, toolapi.InvalidParams, "attached", "", "no such file"},
		{"no upload directory", "", "Attachments", "button", []string{filepath.Join(dir, "cv.txt")}, toolapi.InvalidParams, "attached", "", "--upload-dir"},
		{"an element that opens no chooser", dir, "Profile photo", "heading", []string{"cv.txt"}, toolapi.InvalidParams, "chosen", "", "opened no file chooser"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := openWith(t, "/variants/upload", Config{Caps: []string{toolapi.CapUpload}, UploadDir: tc.uploadDir})
			s := h.snap(true)
			r := h.act(toolapi.Upload, map[string]any{"ref": browsertest.Ref(t, s, tc.role, tc.control), "paths": tc.paths})
			got := h.evalString(`document.getElementById('` + tc.field + `').textContent`)
			if tc.wantCode != "" {
				wantError(t, r, tc.wantCode)
				if !strings.Contains(r.Message, tc.wantMsg) {
					t.Errorf("message %q does not say %q", r.Message, tc.wantMsg)
				}
				if !strings.Contains(strings.Join(tc.paths, " "), outside) && strings.Contains(r.Message, outside) {
					t.Errorf("message %q tells where a link leads outside", r.Message)
				}
				if got != "" {
					t.Errorf("a refused upload reached the page: %q", got)
				}
				return
			}
			if !r.Success {
				t.Fatalf("%s: %s", *r.Error, r.Message)
			}
			if got != tc.want {
				t.Errorf("the page shows %q, want %q", got, tc.want)
			}
		})
	}
}
