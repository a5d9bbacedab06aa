package browser

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/chromedp/chromedp"
)

// FindBinary returns the browser binary that Launch would use: path if it is
// not empty, then $CHROME_PATH, then the usual names and places on Linux and
// macOS. It returns an error wrapping ErrNoBrowser when there is none.
func FindBinary(path string) (string, error) {
	if path != "" {
		p, err := exec.LookPath(path)
		if err != nil {
			return "", fmt.Errorf("%w at %s: %w", ErrNoBrowser, path, err)
		}
		return p, nil
	}
	if env := os.Getenv("CHROME_PATH"); env != "" {
		p, err := exec.LookPath(env)
		if err != nil {
			return "", fmt.Errorf("%w at CHROME_PATH=%s: %w", ErrNoBrowser, env, err)
		}
		return p, nil
	}
	candidates := []string{
		"chromium", "chromium-browser", "google-chrome", "google-chrome-stable",
		"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome",
		"/snap/bin/chromium", "/usr/local/bin/chromium", "/usr/local/bin/chrome",
	}
	if runtime.GOOS == "darwin" {
		candidates = append(candidates,
			"/Applications/Chromium.app/Contents/MacOS/Chromium",
			"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
		)
	}
	for _, c := range candidates {
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: set Options.Path or CHROME_PATH, or install one "+
		"(Debian/Ubuntu: apt-get install chromium); tried %s", ErrNoBrowser, strings.Join(candidates, ", "))
}

// execOptions are the flags of a launched browser.
func (b *Browser) execOptions() []chromedp.ExecAllocatorOption {
	noSandbox := b.opts.NoSandbox || os.Geteuid() == 0
	o := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(b.path),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		// Set explicitly (also to false), so that chromedp adds nothing.
		chromedp.Flag("no-sandbox", noSandbox),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-hang-monitor", true),
		chromedp.Flag("disable-client-side-phishing-detection", true),
		// The omnibox popup is a WebUI page that headless Chromium loads,
		// never shown, in a renderer of its own per browser context: some
		// 35 MB of PSS and half the CPU of opening a session
		// (BenchmarkMemory, BenchmarkStepCPU). PreloadTopChromeWebUI
		// would load other such pages ahead of use.
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints,"+
			"WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,PreloadTopChromeWebUI"),
		// Every tab has a window of its own; none may be throttled as a
		// background window.
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-ipc-flooding-protection", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.WindowSize(b.opts.ViewportWidth, b.opts.ViewportHeight),
	}
	if !b.opts.Headed {
		o = append(o, chromedp.Flag("headless", true), chromedp.Flag("hide-scrollbars", true))
	}
	if b.opts.UserDataDir != "" {
		o = append(o, chromedp.UserDataDir(b.opts.UserDataDir))
	}
	return o
}
