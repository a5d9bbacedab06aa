package snapshot

import "github.com/chaperone-mcp/chaperone/capture"

// dialogElement is one element of an open JavaScript dialog, with its target.
type dialogElement struct {
	el     Element
	target Target
}

// dialogElements shows an open JavaScript dialog as an alertdialog named with
// its message, holding a text box for a prompt (its value the default
// prompt), an OK button and, except for an alert, a Cancel button. Their
// targets carry Dialog ("prompt", "accept", "dismiss") instead of a node; the
// alertdialog itself has neither and cannot be acted on.
func dialogElements(d *capture.Dialog) []dialogElement {
	if d == nil {
		return nil
	}
	name := cutName(collapseSpace(d.Message))
	if name == "" {
		name = d.Type + " dialog"
	}
	on := []string{"visible", "enabled"}
	els := []dialogElement{{
		el:     Element{Role: "alertdialog", Name: name, State: []string{"visible"}},
		target: Target{Role: "alertdialog", Name: name, AXRole: "alertdialog", AXName: d.Message},
	}}
	if d.Type == "prompt" {
		v := d.DefaultPrompt
		e := Element{Role: "textbox", Name: name, State: on}
		if v != "" {
			e.Value = &v
		}
		els = append(els, dialogElement{e, Target{Role: "textbox", Name: name, AXRole: "textbox", AXName: name, Dialog: "prompt", Editable: true}})
	}
	els = append(els, dialogElement{
		Element{Role: "button", Name: "OK", State: on},
		Target{Role: "button", Name: "OK", AXRole: "button", AXName: "OK", Dialog: "accept"},
	})
	if d.Type != "alert" {
		els = append(els, dialogElement{
			Element{Role: "button", Name: "Cancel", State: on},
			Target{Role: "button", Name: "Cancel", AXRole: "button", AXName: "Cancel", Dialog: "dismiss"},
		})
	}
	return els
}
