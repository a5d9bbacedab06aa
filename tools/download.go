package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// Defaults of the download caps, when Config does not say.
const (
	// DefaultMaxDownloadSize caps one download.
	DefaultMaxDownloadSize = 100 << 20
	// DefaultMaxDownloadsTotal caps the bytes of a session's downloads
	// together: five of the largest one allows.
	DefaultMaxDownloadsTotal = 500 << 20
	// DefaultMaxDownloads caps how many downloads a session may begin: an
	// agent's task saves a few files (statements, invoices, reports); a
	// page that begins dozens on one click is flooding the directory.
	// Above the 64 one action may hold, so a legitimate batch is not cut.
	DefaultMaxDownloads = 100
)

// downloads is where a session's files go: what its pages download, and
// the screenshots and PDFs it saves.
type downloads struct {
	dir string
	// temp says the directory was made for the session, and goes with it.
	temp bool
	// tab is the tab set up to save there; a session moved to another
	// browser has a new tab, set up again before its next action.
	tab *browser.Context
	// quota bounds the session's downloads together, whichever tab or
	// browser they come through.
	quota *browser.DownloadQuota
}

// openDownloads makes the session's download directory, unless
// Config.DownloadDir names one, and has the tab save its downloads there.
func (s *Session) openDownloads(ctx context.Context) error {
	if s.dl.dir == "" {
		if s.config.DownloadDir != "" {
			// The browser wants an absolute path.
			dir, err := filepath.Abs(s.config.DownloadDir)
			if err != nil {
				return fmt.Errorf("the download directory: %w", err)
			}
			s.dl.dir = dir
		} else {
			dir, err := os.MkdirTemp("", "chaperone-downloads-")
			if err != nil {
				return fmt.Errorf("making the session's download directory: %w", err)
			}
			s.dl.dir, s.dl.temp = dir, true
		}
	}
	max := s.config.MaxDownloadSize
	if max <= 0 {
		max = DefaultMaxDownloadSize
	}
	if s.dl.quota == nil {
		count, total := s.config.MaxDownloads, s.config.MaxDownloadsTotal
		if count <= 0 {
			count = DefaultMaxDownloads
		}
		if total <= 0 {
			total = DefaultMaxDownloadsTotal
		}
		s.dl.quota = browser.NewDownloadQuota(count, total)
	}
	if err := s.tab.SetDownloads(ctx, browser.DownloadOptions{Dir: s.dl.dir, MaxBytes: max, Quota: s.dl.quota}); err != nil {
		return err
	}
	s.dl.tab = s.tab
	return nil
}

// downloadsReady sets the session's tab up for downloads, when it is not
// yet (a session made from a tab, or moved to another browser).
func (s *Session) downloadsReady(ctx context.Context) {
	if s.dl.tab == s.tab {
		return
	}
	if err := s.openDownloads(ctx); err != nil {
		s.log.Warn("downloads not set up: the pages' downloads are refused", "err", err)
	}
}

// closeDownloads removes the directory made for the session, with what is
// in it.
func (s *Session) closeDownloads() {
	if !s.dl.temp || s.dl.dir == "" {
		return
	}
	if err := os.RemoveAll(s.dl.dir); err != nil {
		s.log.Warn("removing the session's download directory", "dir", s.dl.dir, "err", err)
	}
	s.dl = downloads{}
}

// downloadsNote waits for the downloads the action started (within the
// navigation timeout) and says what became of each; "" when there were
// none.
func (s *Session) downloadsNote(ctx context.Context) string {
	if s.dl.tab != s.tab {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, s.config.NavigationTimeout)
	defer cancel()
	var notes []string
	for _, d := range s.tab.TakeDownloads(ctx) {
		notes = append(notes, downloadSentence(d))
	}
	return strings.Join(notes, " ")
}

// downloadSentence says what became of a download. Names from the page are
// quoted with escapes: a page chooses them.
func downloadSentence(d browser.Download) string {
	switch d.State {
	case browser.DownloadSaved:
		msg := fmt.Sprintf("Downloaded %q (%s, %s) to %s.", d.Name, browser.FormatBytes(d.Bytes), d.Type, d.Path)
		if d.Suggested != d.Name {
			msg += fmt.Sprintf(" The server named it %q.", d.Suggested)
		}
		return msg
	case browser.DownloadInProgress:
		return fmt.Sprintf("A download of %q from %s is still under way (%s so far); get_snapshot lists it once it ends.", d.Suggested, d.URL, browser.FormatBytes(d.Bytes))
	}
	return fmt.Sprintf("The download of %q from %s was not saved: %s.", d.Suggested, d.URL, d.Reason)
}

// downloadNotes lists the session's last downloads in the snapshot's notes.
func (s *Session) downloadNotes(snap *snapshot.Snapshot) {
	if s.dl.tab != s.tab || snap == nil {
		return
	}
	for _, d := range s.tab.Downloads() {
		if d.State == browser.DownloadSaved {
			snap.Notes = append(snap.Notes, fmt.Sprintf("downloaded %q (%s, %s): %s", d.Name, browser.FormatBytes(d.Bytes), d.Type, d.Path))
		} else {
			snap.Notes = append(snap.Notes, fmt.Sprintf("download %q not saved: %s", d.Suggested, d.Reason))
		}
	}
}

// saveFile writes data into the session's download directory under name,
// made unique, and returns its path.
func (s *Session) saveFile(ctx context.Context, name string, data []byte) (string, error) {
	if s.dl.dir == "" {
		if err := s.openDownloads(ctx); err != nil {
			return "", err
		}
	}
	f, n, err := browser.CreateUnique(s.dl.dir, name)
	if err != nil {
		return "", fmt.Errorf("saving %s: %w", name, err)
	}
	path := f.Name()
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = os.Remove(path)
		return "", fmt.Errorf("saving %s: %w", n, werr)
	}
	return path, nil
}

// joinMessage puts a note after a message.
func joinMessage(msg, note string) string {
	return strings.TrimSpace(msg + " " + note)
}
