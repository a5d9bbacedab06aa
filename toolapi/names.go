// Package toolapi is the tools' contract as every side of it reads it: the
// tool and capability names, the error codes, the result types, the compact
// text a model reads, and Tools, the way a caller (the driver, a test) calls
// the tools in process or over MCP. It sits below tools, server and driver,
// so that none of them links another's dependencies: the driver needs no
// browser, the server no model (docs/architecture.md, "Packages").
package toolapi

// The names of the tools, as MCP clients call them. Code uses these
// constants, never the strings.
const (
	GetSnapshot     = "get_snapshot"
	Click           = "browser_click"
	Fill            = "browser_fill"
	Select          = "browser_select"
	Scroll          = "browser_scroll"
	Extract         = "browser_extract"
	RequestApproval = "request_human_approval"
	CompleteTask    = "complete_task"

	// Listed by default too: an agent cannot work without them.
	Navigate = "browser_navigate"
	PressKey = "browser_press_key"

	// Opt-in, each under the capability of the same group (Config.Caps).
	Tabs    = "browser_tabs"
	WaitFor = "browser_wait_for"
	Hover   = "browser_hover"
	Upload  = "browser_upload"
	Drag    = "browser_drag"

	Screenshot = "browser_screenshot"
	PDF        = "browser_pdf"

	// The developer's view: read-only, under CapDevtools.
	Console = "browser_console"
	Network = "browser_network"
	// Evaluate runs the agent's JavaScript, each script approved by a
	// person first; only under CapEval.
	Evaluate = "browser_evaluate"
)

// The capabilities that turn on opt-in tools (Config.Caps, --caps).
const (
	CapTabs     = "tabs"     // browser_tabs
	CapWait     = "wait"     // browser_wait_for
	CapHover    = "hover"    // browser_hover
	CapUpload   = "upload"   // browser_upload
	CapDrag     = "drag"     // browser_drag
	CapFiles    = "files"    // browser_screenshot, browser_pdf
	CapVision   = "vision"   // browser_click at x,y (and hover there)
	CapDevtools = "devtools" // browser_console, browser_network
	CapAll      = "all"      // every opt-in tool but browser_evaluate
	// CapEval turns on browser_evaluate; CapAll does not: it must be
	// named.
	CapEval = "eval"
)

// Capabilities returns the names Config.Caps accepts, CapAll and CapEval
// last.
func Capabilities() []string {
	return []string{CapTabs, CapWait, CapHover, CapUpload, CapDrag, CapFiles, CapVision, CapDevtools, CapAll, CapEval}
}

// Named reports whether CapAll leaves the capability c out, so that only
// its own name turns it on.
func Named(c string) bool { return c == CapEval }
