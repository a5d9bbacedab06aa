package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	cdpbrowser "github.com/chromedp/cdproto/browser"
)

// Saving a finished download: the name the page gave, made safe and
// unique, or nothing when it was cancelled.

// downloadRefusal is why a download may not be kept: the state it ends in
// and the reason it gives.
type downloadRefusal struct {
	state  DownloadState
	reason string
}

// tooLarge is the refusal of a download over the cap of one.
func tooLarge(cap int64) downloadRefusal {
	return downloadRefusal{DownloadTooLarge, fmt.Sprintf("it is larger than the %s cap (--max-download-size); it was cancelled and nothing of it was kept", FormatBytes(cap))}
}

// settle ends a download: the file the browser saved under the guid is
// renamed to a safe, unique name, or removed when the download was
// cancelled or refused (too large, past the session's quota). A file
// kept is counted in the quota.
func (td *tabDownloads) settle(d *download, opts DownloadOptions, refused downloadRefusal, state cdpbrowser.DownloadProgressState) Download {
	r := Download{Suggested: d.suggested, URL: d.url}
	src := filepath.Join(opts.Dir, filepath.Base(d.guid))
	removeLeft := func() { removePartial(src) }
	fi, err := os.Lstat(src)
	if refused.state == "" && err == nil && opts.MaxBytes > 0 && fi.Size() > opts.MaxBytes {
		refused = tooLarge(opts.MaxBytes)
	}
	if refused.state == "" && err == nil && fi.Mode().IsRegular() && state == cdpbrowser.DownloadProgressStateCompleted {
		if why := opts.Quota.keep(d, fi.Size()); why != "" {
			refused = downloadRefusal{DownloadOverQuota, why}
		}
	}
	switch {
	case refused.state != "":
		removeLeft()
		r.State, r.Reason = refused.state, refused.reason
		r.Bytes = max(d.total, d.received)
		return r
	case state == cdpbrowser.DownloadProgressStateCanceled:
		removeLeft()
		r.State, r.Reason = DownloadCanceled, "the browser cancelled it"
		return r
	case err != nil || !fi.Mode().IsRegular():
		removeLeft()
		r.State, r.Reason = DownloadFailed, "the browser reported it saved, but no file is there"
		return r
	}
	name, err := td.place(src, opts.Dir, SafeFileName(d.suggested))
	if err != nil {
		removeLeft()
		r.State, r.Reason = DownloadFailed, err.Error()
		return r
	}
	r.State, r.Name, r.Path, r.Bytes = DownloadSaved, name, filepath.Join(opts.Dir, name), fi.Size()
	r.Type = fileType(r.Path)
	return r
}

// removePartial removes what a download not kept left under its guid:
// Chromium may leave the partial file under either name.
func removePartial(src string) {
	_ = os.Remove(src)
	_ = os.Remove(src + ".crdownload")
}

// sweepLater removes what a download not kept left, again, a while after
// it ended: Chromium may put an empty file at the download's name after it
// reported the download cancelled. The name is the guid, which no page
// chooses, so nothing else can be there.
func sweepLater(ctx context.Context, src string) {
	for _, wait := range []time.Duration{500 * time.Millisecond, 2 * time.Second, 5 * time.Second} {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		removePartial(src)
	}
}

// place renames src into dir under name made unique (CreateUnique), and
// returns the name used.
func (td *tabDownloads) place(src, dir, name string) (string, error) {
	f, n, err := CreateUnique(dir, name)
	if err != nil {
		return "", fmt.Errorf("saving the download: %w", err)
	}
	f.Close()
	dst := filepath.Join(dir, n)
	if err := os.Rename(src, dst); err != nil {
		_ = os.Remove(dst)
		return "", fmt.Errorf("saving the download: %w", err)
	}
	return n, nil
}

// CreateUnique creates a new file (0600) in dir under name, or, when that
// is taken, "stem (2).ext", "stem (3).ext" and so on, and returns it open
// for writing with the name used. It never opens or replaces a file that
// exists: the name is claimed by an exclusive create. name must be a plain
// file name (SafeFileName).
func CreateUnique(dir, name string) (*os.File, string, error) {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 1; i <= 1000; i++ {
		n := name
		if i > 1 {
			n = fmt.Sprintf("%s (%d)%s", stem, i, ext)
		}
		f, err := os.OpenFile(filepath.Join(dir, n), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		return f, n, nil
	}
	return nil, "", fmt.Errorf("no free name like %q in %s", name, dir)
}

// fileType is a file's media type: from its extension, else sniffed from
// its first bytes.
func fileType(path string) string {
	if t := mime.TypeByExtension(filepath.Ext(path)); t != "" {
		return t
	}
	f, err := os.Open(path)
	if err != nil {
		return "application/octet-stream"
	}
	defer f.Close()
	buf := make([]byte, sniffLen)
	n, _ := io.ReadFull(f, buf)
	return http.DetectContentType(buf[:n])
}

// SafeFileName makes a name a server or page gave a file safe to save under
// in a directory: only its last path element is kept (either slash counts);
// control, format (bidi overrides, zero-width) and other invisible
// characters and invalid UTF-8 go; leading dots and spaces and trailing
// dots and spaces go; it is cut to a bounded length, keeping a short
// extension; what is left empty becomes "download".
func SafeFileName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	var b strings.Builder
	for _, r := range name {
		switch {
		case unicode.IsSpace(r):
			r = ' '
		case r == utf8.RuneError, unicode.IsControl(r), unicode.Is(unicode.Cf, r),
			unicode.Is(unicode.Co, r), unicode.Is(unicode.Cs, r), r == 0xfffc:
			continue
		case strings.ContainsRune(`<>:"|?*`, r):
			r = '_'
		}
		b.WriteRune(r)
	}
	name = strings.Join(strings.Fields(b.String()), " ")
	name = strings.TrimLeft(name, ". ")
	name = strings.TrimRight(name, ". ")
	if len(name) > maxDownloadName {
		ext := filepath.Ext(name)
		if len(ext) > 16 || !utf8.ValidString(ext) {
			ext = ""
		}
		stem := strings.TrimSuffix(name, ext)
		cut := maxDownloadName - len(ext)
		for cut > 0 && !utf8.RuneStart(stem[cut]) {
			cut--
		}
		name = strings.TrimRight(stem[:cut], ". ") + ext
	}
	if name == "" {
		return "download"
	}
	return name
}

// FormatBytes writes a size for people: 512 B, 4.0 KB, 100 MB.
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	if v >= 10 || v == float64(int64(v)) {
		return fmt.Sprintf("%.0f %cB", v, "KMGTPE"[exp])
	}
	return fmt.Sprintf("%.1f %cB", v, "KMGTPE"[exp])
}
