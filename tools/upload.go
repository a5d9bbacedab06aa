package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// uploadInput is the arguments of browser_upload.
type uploadInput struct {
	Ref   string   `json:"ref"`
	Paths []string `json:"paths"`
}

// upload runs browser_upload: a file input gets the files directly; any
// other element is clicked, and the file chooser it opens gets them. Every
// file must lie inside Config.UploadDir.
func (s *Session) upload(ctx context.Context, c *call, in uploadInput) (string, error) {
	files, err := s.uploadFiles(in.Paths)
	if err != nil {
		return "", err
	}
	want, err := fileInfos(files)
	if err != nil {
		return "", err
	}
	var msg string
	var holder int64
	_, err = s.committed(ctx, c, func(ctx context.Context) (planned, error) { return s.planUpload(ctx, in.Ref, files) },
		func(ctx context.Context, p planned) error {
			input := p.insp.Tag == "input" && p.insp.InputType == "file"
			holder = p.t.BackendNodeID
			var err error
			msg, err = s.settle(ctx, c, s.config.ActionTimeout, func(ctx context.Context) error {
				if input {
					return s.tab.SetFiles(ctx, holder, files, want)
				}
				var err error
				holder, err = s.tab.ChooseFiles(ctx, p.t.BackendNodeID, p.insp.X, p.insp.Y, files, want, s.config.ActionTimeout/2)
				if errors.Is(err, browser.ErrNoFileChooser) {
					return fail(toolapi.InvalidParams, "Clicking %s (%s %q) opened no file chooser: give the ref of a file input, or of the button that opens one.", p.t.Ref, p.t.Role, p.t.Name)
				}
				return err
			}, fmt.Sprintf("Gave %s %s %q the files %s.", p.t.Ref, p.t.Role, p.t.Name, p.action.Value))
			return err
		})
	if err != nil {
		return "", err
	}
	if err := s.checkFiles(ctx, holder, files, want); err != nil {
		return "", err
	}
	return msg, nil
}

// fileInfos are the name and size of each file, what a file input must
// hold once given them.
func fileInfos(files []string) ([]browser.FileInfo, error) {
	want := make([]browser.FileInfo, len(files))
	for i, f := range files {
		info, err := os.Stat(f)
		if err != nil {
			return nil, fail(toolapi.ActionFailed, "%s cannot be read: %v.", f, err)
		}
		want[i] = browser.FileInfo{Name: filepath.Base(f), Size: info.Size()}
	}
	return want, nil
}

// checkFiles checks that the file input holder holds the very files the
// person approved (want, of files), in order, by name and size, once the
// page has settled: a page's change handler can swap them.
func (s *Session) checkFiles(ctx context.Context, holder int64, files []string, want []browser.FileInfo) error {
	ctx, cancel := context.WithTimeout(ctx, s.config.ActionTimeout)
	defer cancel()
	held, err := s.tab.Files(ctx, holder)
	if errors.Is(err, browser.ErrDetached) || (err == nil && len(held) == 0) {
		// The page removed or emptied the input, as many do once they
		// have read it: nothing is left to differ from what was approved.
		return nil
	}
	if err != nil {
		return fail(toolapi.ActionFailed, "The files were given, but what the page holds could not be checked: %v.", err)
	}
	if !slices.Equal(held, want) {
		return fail(toolapi.ActionFailed, "The page does not hold the files that were approved: it holds %s, not %s. Check the page before going on.", fileList(held), strings.Join(files, ", "))
	}
	return nil
}

// fileList says files as a person reads them: name and size.
func fileList(files []browser.FileInfo) string {
	if len(files) == 0 {
		return "no file"
	}
	s := make([]string, len(files))
	for i, f := range files {
		s[i] = fmt.Sprintf("%q (%d bytes)", f.Name, f.Size)
	}
	return strings.Join(s, ", ")
}

// planUpload plans giving files to ref: a file input, hidden or not, needs
// no box; anything else is clicked, so it is checked like a click target.
func (s *Session) planUpload(ctx context.Context, ref string, files []string) (planned, error) {
	t, err := s.target(ref)
	if err != nil {
		return planned{}, err
	}
	if t.Dialog != "" {
		return planned{}, fail(toolapi.InvalidParams, "%s belongs to a dialog, which takes no files.", t.Ref)
	}
	insp, err := s.check(ctx, t, false)
	if err != nil {
		return planned{}, err
	}
	if insp.Tag != "input" || insp.InputType != "file" {
		if insp, err = s.check(ctx, t, true); err != nil {
			return planned{}, err
		}
	}
	a := s.actionOn(checkpoint.VerbUpload, t, insp)
	// The whole path, once links are followed: two files of one name in
	// two folders must not look the same to the person.
	a.Value = strings.Join(files, ", ")
	if a.Activates == nil && (insp.Tag != "input" || insp.InputType != "file") {
		// The element is clicked to open a chooser: judged as that click.
		a.Activates = &checkpoint.Control{Role: a.Role, Name: a.Name, SubmitsPayment: insp.SubmitsPayment}
	}
	return planned{t: t, insp: insp, action: a}, nil
}

// uploadFiles resolves the paths an agent gave, relative ones against
// Config.UploadDir, and refuses any that is not a regular file inside that
// directory once every symbolic link is followed. It returns the resolved
// paths, which are what the browser reads.
func (s *Session) uploadFiles(paths []string) ([]string, error) {
	if s.config.UploadDir == "" {
		return nil, fail(toolapi.InvalidParams, "Uploads are off: this server has no upload directory (--upload-dir).")
	}
	if len(paths) == 0 {
		return nil, fail(toolapi.InvalidParams, "browser_upload needs paths: one or more files in the upload directory.")
	}
	dir, err := filepath.EvalSymlinks(s.config.UploadDir)
	if err != nil {
		return nil, fail(toolapi.ActionFailed, "The upload directory cannot be read: %v.", err)
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, fail(toolapi.ActionFailed, "The upload directory cannot be read: %v.", err)
	}
	files := make([]string, len(paths))
	for i, p := range paths {
		full := p
		if !filepath.IsAbs(full) {
			full = filepath.Join(dir, p)
		}
		real, err := filepath.EvalSymlinks(full)
		if err != nil {
			return nil, fail(toolapi.InvalidParams, "%q: no such file in the upload directory.", p)
		}
		rel, err := filepath.Rel(dir, real)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			return nil, fail(toolapi.InvalidParams, "%q is outside the upload directory once links are followed: only files inside it may be uploaded.", p)
		}
		info, err := os.Stat(real)
		if err != nil || !info.Mode().IsRegular() {
			return nil, fail(toolapi.InvalidParams, "%q is not a regular file.", p)
		}
		files[i] = real
	}
	return files, nil
}
