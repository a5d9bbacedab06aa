package driver_test

import (
	"context"
	"fmt"

	"github.com/chaperone-mcp/chaperone/driver"
	"github.com/chaperone-mcp/chaperone/driver/drivertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// A scripted model drives the mock browser: it finds the button by name in
// the latest snapshot, clicks it, and completes the task.
func ExampleRun() {
	home := &snapshot.Snapshot{
		Page:     snapshot.Page{URL: "https://shop.test/account"},
		Elements: []snapshot.Element{{Ref: "@e4", Role: "button", Name: "Cancel subscription"}},
	}
	cancelled := &snapshot.Snapshot{Page: snapshot.Page{URL: "https://shop.test/cancelled"}}
	browser := &drivertest.MockBrowser{
		Page:    home,
		Actions: map[string]drivertest.MockOutcome{toolapi.Click + " @e4": {Snapshot: cancelled}},
		Done:    func(p *snapshot.Snapshot) bool { return p == cancelled },
	}
	model := &driver.ScriptedModel{Steps: []driver.Step{
		driver.ActOn(toolapi.Click, "button", "Cancel subscription", nil),
		driver.Call(toolapi.CompleteTask, map[string]string{"status": "success", "reason": "cancelled"}),
	}}
	res, err := driver.Run(context.Background(), driver.Config{
		Model: model, Tools: browser, Goal: "Cancel my subscription",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Success, res.Reason, res.Turns)
	for _, c := range browser.Calls() {
		fmt.Println(c.Name, string(c.Args))
	}
	// Output:
	// true completed 2
	// get_snapshot {}
	// browser_click {"ref":"@e4"}
	// complete_task {"reason":"cancelled","status":"success"}
}

// The system prompt: five rules, the goal, then the site's guidance.
func ExampleSystemPrompt() {
	p := driver.SystemPrompt("Cancel my subscription", "The cancel link is under Account.")
	fmt.Println(len(p) < 4000)
	// Output: true
}

// A run's cost at the model's list price.
func ExamplePriceOf() {
	p, ok := driver.PriceOf("claude-sonnet-5-5")
	fmt.Printf("%v $%.4f\n", ok, p.Cost(driver.Usage{InputTokens: 20_000, OutputTokens: 1_000}))
	// Output: true $0.0500
}
