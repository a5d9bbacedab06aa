package browser_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
)

// Launch a browser, open an isolated tab, load a page and take one raw look
// at it.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Account</title><h1>Your account</h1><button>Cancel Membership</button>`)
	}))
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := browser.Launch(ctx, browser.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()

	tab, err := b.NewContext(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer tab.Close()
	if err := tab.Navigate(ctx, srv.URL+"/account"); err != nil {
		log.Fatal(err)
	}
	c, err := tab.Capture(ctx, browser.CaptureOptions{Screenshot: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("title:", c.Title)
	fmt.Printf("viewport: %.0f×%.0f\n", c.Viewport.Width, c.Viewport.Height)
	fmt.Println("frames:", len(c.Frames))
	fmt.Printf("screenshot: %s %d×%d\n", c.Screenshot.MIMEType, c.Screenshot.Width, c.Screenshot.Height)
	// Output:
	// title: Account
	// viewport: 1280×720
	// frames: 1
	// screenshot: image/png 816×459
}
