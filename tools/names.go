package tools

// The names of the tools, as MCP clients call them. Code outside this package
// (the driver, the demo, tests) uses these constants, never the strings.
const (
	GetSnapshot     = "get_snapshot"
	Click           = "browser_click"
	Fill            = "browser_fill"
	Select          = "browser_select"
	Scroll          = "browser_scroll"
	RequestApproval = "request_human_approval"
	CompleteTask    = "complete_task"
)
