package browser

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// Inspection is what the check before an action found out about a node, in
// one look: whether it is still there and the same, whether it can be acted
// on, and where to act.
type Inspection struct {
	// AXRole and AXName are the node's role and accessible name now.
	AXRole string
	AXName string
	// DocumentURL is the URL of the document that holds the node.
	DocumentURL string
	Tag         string
	InputType   string
	// Password is set for a field that takes a password by any sign:
	// its type, a password's autocomplete, or its text drawn as discs.
	Password   bool
	Editable   bool
	Disabled   bool
	ReadOnly   bool
	Scrollable bool
	// Visible is false when the node has no box to act on.
	Visible bool
	// X and Y are the click point in main-viewport CSS pixels.
	X, Y float64
	// Covered names what a hit test at the click point landed on, when that
	// is not the node or inside it; empty otherwise.
	Covered string
	// Box is the node's whole box in main-viewport CSS pixels, zero when it
	// is not visible: what a person's screenshot marks.
	Box Box
	// Autocomplete is the node's autocomplete attribute, and FieldName its
	// name attribute, else its id, else its aria-label, else its label's
	// text: what says that a field takes a payment card.
	Autocomplete string
	FieldName    string
	// SubmitsPayment is true for a submit control (a button whose type is
	// submit or unset, an input of type submit or image) of a form that
	// holds a payment-card field (an autocomplete token starting with cc-,
	// or a field name, as FieldName, matching PaymentFieldPattern), or of
	// any form of a page where a frame holds one: hosted card fields live
	// in a frame of another site, outside the form.
	SubmitsPayment bool
	// EnterSubmitsPayment is true when Enter on the node submits such a
	// form: it is such a submit control, or a text field of such a form.
	EnterSubmitsPayment bool
	// SubmitsAccountChange is true for a submit control of a form that
	// changes the account it is sent to: it sets a password, or changes
	// an email, phone or user name, and is no sign-in (js/inspect.js,
	// accountForm). EnterSubmitsAccountChange is the same for Enter on the
	// node, which submits its form by the form's default button.
	SubmitsAccountChange, EnterSubmitsAccountChange bool
	// Activates is the control a click on the node activates when that is
	// another element: the control of a label the node is in. Its
	// SubmitsPayment says whether it submits a payment form. Nil
	// otherwise.
	Activates        *Activation
	ActivatesPayment bool
	// SubmitsForm is true for a submit control of a form: a click on it
	// sends the form.
	SubmitsForm bool
	// FormAction is the URL the node's form is sent to when the node
	// submits it: a submit control's formaction, else the form's action;
	// empty outside a form.
	FormAction string
	// Via says where a click on the node goes when that is not the node's
	// own box: "label" for a control a person cannot point at (transparent,
	// tiny, covered or without a box of its own) that is used through its
	// visible label; "drawing" for an element whose box is empty or
	// covered and that is drawn elsewhere (a pseudo-element outside it, a
	// child that overflows it). X, Y and Box are then that place's. Empty
	// otherwise.
	Via string
	// StandIn says that the node is a form control a person cannot see
	// (transparent, or too small to point at): what covers it is what the
	// page draws in its place.
	StandIn bool
	// Origin is the origin of the node's document, which an about:blank
	// or about:srcdoc document inherits from the one that made it; "null"
	// for an opaque one.
	Origin string
}

// Box is a rectangle in CSS pixels.
type Box struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// PaymentFieldPattern is the case-insensitive regular expression (in the
// syntax Go and JavaScript share) that marks a payment-card field by its
// field name. Package checkpoint decides on fills with the same pattern
// (IsPaymentField); a test in package tools keeps the two in step.
const PaymentFieldPattern = `card.?num|cc.?num|cvc|cvv|csc|security.?code|expir`

// inspectResult is what inspectJS reports.
type inspectResult struct {
	Connected      bool    `json:"connected"`
	DocumentURL    string  `json:"documentURL"`
	Tag            string  `json:"tag"`
	InputType      string  `json:"inputType"`
	Password       bool    `json:"password"`
	Editable       bool    `json:"editable"`
	Disabled       bool    `json:"disabled"`
	ReadOnly       bool    `json:"readOnly"`
	Scrollable     bool    `json:"scrollable"`
	Visible        bool    `json:"visible"`
	X              float64 `json:"x"`
	Y              float64 `json:"y"`
	Covered        string  `json:"covered"`
	Box            Box     `json:"box"`
	Autocomplete   string  `json:"autocomplete"`
	FieldName      string  `json:"fieldName"`
	SubmitsPayment bool    `json:"submitsPayment"`
	EnterSubmits   bool    `json:"enterSubmitsPayment"`
	SubmitsAccount bool    `json:"submitsAccount"`
	EnterAccount   bool    `json:"enterSubmitsAccount"`
	Submits        bool    `json:"submits"`
	Implicit       bool    `json:"implicit"`
	Form           bool    `json:"form"`
	DocOrigin      string  `json:"docOrigin"`
	FormAction     string  `json:"formAction"`
	Label          bool    `json:"label"`
	Zero           bool    `json:"zero"`
	StandIn        bool    `json:"standIn"`
	Via            string  `json:"via"`
}

type axValue struct {
	Value json.RawMessage `json:"value"`
}

func (v *axValue) String() string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(v.Value, &s) == nil {
		return s
	}
	return string(v.Value)
}

type partialAXTree struct {
	Nodes []struct {
		Ignored          bool              `json:"ignored"`
		Role             *axValue          `json:"role"`
		Name             *axValue          `json:"name"`
		BackendDOMNodeID cdp.BackendNodeID `json:"backendDOMNodeId"`
	} `json:"nodes"`
}

// Inspect checks a node before an action: the accessibility tree's role and
// name for it now and, in the same moment, its document, state, box and what
// a hit test at its click point lands on. With scroll, a node outside the
// viewport is scrolled into view first. It returns ErrDetached when the node
// is gone.
func (t *Context) Inspect(ctx context.Context, backendNodeID int64, scroll bool) (*Inspection, error) {
	return t.inspect(ctx, nodeOf(backendNodeID), scroll, true)
}

// inspect is Inspect; with label, it follows a label the node is in to the
// control a click activates (once: labels can point at each other).
func (t *Context) inspect(ctx context.Context, node nodeID, scroll, label bool) (*Inspection, error) {
	type axAnswer struct {
		role, name string
		err        error
	}
	axc := make(chan axAnswer, 1)
	go func() {
		r, err := t.route(ctx, node)
		if err != nil {
			axc <- axAnswer{err: err}
			return
		}
		defer r.cancel()
		tree, err := chromedp.Call(r.ctx, cmdPartialAXTree, map[string]any{"backendNodeId": r.local, "fetchRelatives": false})
		if err != nil {
			axc <- axAnswer{err: err}
			return
		}
		for _, n := range tree.Nodes {
			if n.BackendDOMNodeID == r.local {
				axc <- axAnswer{role: n.Role.String(), name: n.Name.String()}
				return
			}
		}
		axc <- axAnswer{}
	}()
	var r inspectResult
	n, err := t.node(ctx, node)
	if err == nil {
		err = n.call(ctx, inspectJS, &r, scroll, PaymentFieldPattern, nil)
		// Released in the background: nothing waits on it, and every
		// action's plan would otherwise pay a round trip for it.
		go n.release(ctx)
	}
	ax := <-axc
	if err != nil {
		return nil, fmt.Errorf("inspect node %s: %w", node, err)
	}
	if !r.Connected {
		return nil, fmt.Errorf("inspect node %s: %w", node, ErrDetached)
	}
	if err == nil && r.Connected && (r.Submits || r.Implicit) && !r.EnterSubmits && t.framesHoldPayment(ctx) {
		// Hosted card fields (Stripe's, Braintree's) live in frames of
		// another site, outside the form the page submits: a submit on a
		// page that embeds a card field submits a payment.
		r.SubmitsPayment, r.EnterSubmits = r.Submits, true
	}
	if n.frame != nil && r.Visible {
		if err := t.placeInPage(ctx, n.frame, &r, scroll); err != nil {
			return nil, fmt.Errorf("inspect node %s: %w", node, err)
		}
	}
	if ax.err != nil {
		return nil, fmt.Errorf("inspect node %s: accessibility: %w", node, ax.err)
	}
	if r.Via == "" && node.frame == 0 && (r.Zero || r.Visible && r.Covered != "") {
		if err := t.placeDrawn(ctx, node, &r); err != nil {
			return nil, fmt.Errorf("inspect node %s: %w", node, err)
		}
	}
	var act *Activation
	var actPayment bool
	if r.Label && label {
		if act, actPayment, err = t.labelControl(ctx, node); err != nil {
			return nil, fmt.Errorf("inspect node %s: %w", node, err)
		}
	}
	return &Inspection{
		Activates: act, ActivatesPayment: actPayment,
		AXRole: ax.role, AXName: ax.name,
		DocumentURL: r.DocumentURL, Tag: r.Tag, InputType: r.InputType, Password: r.Password, Editable: r.Editable,
		Disabled: r.Disabled, ReadOnly: r.ReadOnly, Scrollable: r.Scrollable,
		Visible: r.Visible, X: r.X, Y: r.Y, Covered: r.Covered,
		Box:          r.Box,
		Autocomplete: r.Autocomplete, FieldName: r.FieldName, SubmitsPayment: r.SubmitsPayment,
		EnterSubmitsPayment: r.EnterSubmits, SubmitsForm: r.Submits && r.Form, Origin: r.DocOrigin, FormAction: r.FormAction,
		SubmitsAccountChange: r.SubmitsAccount, EnterSubmitsAccountChange: r.EnterAccount,
		Via: r.Via, StandIn: r.StandIn,
	}, nil
}
