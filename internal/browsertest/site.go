package browsertest

import (
	"fmt"
	"net/http"
)

// siteHandler serves a stand-in for the demo site until package fixtures
// has it: the flow's pages, each with its heading and the button to the
// next.
func siteHandler() http.Handler {
	pages := []struct{ path, title, button, next string }{
		{"/account", "Your account", "Cancel Membership", "/retention"},
		{"/retention", "Before you go", "Continue to Cancel", "/survey"},
		{"/survey", "Why are you leaving?", "Continue", "/finish"},
		{"/finish", "Finish cancellation", "Finish Cancellation", "/cancelled"},
		{"/cancelled", "Your membership has been cancelled", "", ""},
	}
	mux := http.NewServeMux()
	for _, p := range pages {
		mux.HandleFunc("GET "+p.path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<!doctype html><title>%s</title><h1>%s</h1>", p.title, p.title)
			if p.button != "" {
				fmt.Fprintf(w, `<form action="%s"><button>%s</button></form>`, p.next, p.button)
			}
		})
	}
	mux.Handle("GET /{$}", http.RedirectHandler("/account", http.StatusFound))
	return mux
}
