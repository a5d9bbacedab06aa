package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestFirst(t *testing.T) {
	t.Parallel()
	unavailable := ApproverFunc(func(context.Context, Request) (Decision, error) {
		return Decision{}, errors.New("elicitation: " + ErrNoApprover.Error())
	})
	none := ApproverFunc(func(context.Context, Request) (Decision, error) {
		return Decision{}, ErrNoApprover
	})
	web := ApproverFunc(func(context.Context, Request) (Decision, error) {
		return Decision{Approved: true, Channel: ChannelWeb}, nil
	})
	broken := ApproverFunc(func(context.Context, Request) (Decision, error) { return Decision{}, errors.New("boom") })

	if d, err := (First{none, web}).Approve(t.Context(), Request{ID: "x"}); err != nil || d.Channel != ChannelWeb {
		t.Errorf("falls through: %+v %v", d, err)
	}
	if _, err := (First{broken, web}).Approve(t.Context(), Request{ID: "x"}); err == nil || err.Error() != "boom" {
		t.Errorf("a real failure does not fall through: %v", err)
	}
	if _, err := (First{none, none}).Approve(t.Context(), Request{ID: "x"}); !errors.Is(err, ErrNoApprover) {
		t.Errorf("none: %v", err)
	}
	// An error that merely says the words is not ErrNoApprover.
	if _, err := (First{unavailable, web}).Approve(t.Context(), Request{ID: "x"}); errors.Is(err, ErrNoApprover) || err == nil {
		t.Errorf("lookalike: %v", err)
	}
}

func ExampleFirst() {
	// --approver auto: the client's elicitation when it can, else the console.
	elicitation := ApproverFunc(func(context.Context, Request) (Decision, error) {
		return Decision{}, fmt.Errorf("elicitation: %w: the MCP client did not declare elicitation", ErrNoApprover)
	})
	console := ApproverFunc(func(_ context.Context, r Request) (Decision, error) {
		fmt.Println("console asks:", r.Prompt())
		return Decision{Approved: true, Channel: ChannelWeb}, nil
	})
	d, err := First{elicitation, console}.Approve(context.Background(), Request{Action: `click button "Pay"`})
	fmt.Println(d.Approved, d.Channel, err)
	// Output:
	// console asks: The system wants to proceed with: click button "Pay". Approve?
	// true web <nil>
}
