package checkpoint

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/snapshot"
)

func TestRequestLines(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		r    Request
		want []string
	}{
		{"fill", Request{Kind: KindCheckpoint, Concrete: &Action{Verb: VerbFill, Role: "textbox", Name: "Amount", Value: "129"},
			Title: "Transfer", URL: "https://bank.example/transfer", Reason: "The page matches checkpoint \"transfer\"."},
			[]string{"Action: fill", `Element: textbox "Amount"`, `Value: "129"`, `Page: "Transfer"`, "URL: https://bank.example/transfer",
				`Reason: The page matches checkpoint "transfer".`}},
		{"masked fill", Request{Kind: KindCheckpoint, Concrete: &Action{Verb: VerbFill, Role: "textbox", Name: "API key", Value: "{{API_KEY}}", Masked: true}},
			[]string{"Action: fill", `Element: textbox "API key"`, "Value: {{API_KEY}} (masked: a password or secret is never shown)"}},
		{"nameless field", Request{Kind: KindCheckpoint, Concrete: &Action{Verb: VerbFill, Role: "textbox", FieldName: "password", Value: "••••", Masked: true}},
			[]string{"Action: fill", `Element: textbox ""`, `Field: "password" (its name or id in the page)`, "Value: •••• (masked: a password or secret is never shown)"}},
		{"select", Request{Kind: KindCheckpoint, Concrete: &Action{Verb: VerbSelect, Role: "combobox", Name: "Reason", Options: []Option{{Text: "Too expensive", Value: "price"}}}},
			[]string{"Action: select", `Element: combobox "Reason"`, `Option: "Too expensive" (value "price")`}},
		{"select several", Request{Kind: KindCheckpoint, Concrete: &Action{Verb: VerbSelect, Role: "listbox", Name: "Genres",
			Options: []Option{{Text: "Drama", Value: "Drama"}, {Text: "Jazz", Value: "jazz"}}}},
			[]string{"Action: select", `Element: listbox "Genres"`, `Options: "Drama", "Jazz" (value "jazz")`}},
		{"select none of several", Request{Kind: KindCheckpoint, Concrete: &Action{Verb: VerbSelect, Role: "listbox", Name: "Genres"}},
			[]string{"Action: select", `Element: listbox "Genres"`, "Options: no option"}},
		{"dialog", Request{Kind: KindCheckpoint, Concrete: &Action{Verb: VerbClick, Role: "button", Name: "OK",
			Dialog: &snapshot.Dialog{Type: "confirm", Message: "Leave checkout?\nYour order will not be placed."}}},
			[]string{"Action: click", `Element: button "OK"`, `Dialog: confirm "Leave checkout?\nYour order will not be placed."`}},
		{"press", Request{Kind: KindCheckpoint, Concrete: &Action{Verb: VerbPress, Role: "textbox", Name: "Card number", Value: "Enter"}},
			[]string{"Action: press", `Element: textbox "Card number"`, "Key: Enter"}},
		{"drag", Request{Kind: KindCheckpoint, Concrete: &Action{Verb: VerbDrag, Role: "button", Name: "Write tests", Value: `region "Done column"`}},
			[]string{"Action: drag", `Element: button "Write tests"`, `Drop on: region "Done column"`}},
		{"upload", Request{Kind: KindCheckpoint, Concrete: &Action{Verb: VerbUpload, Role: "button", Name: "Choose file", Value: "cv.pdf, photo.png"}},
			[]string{"Action: upload", `Element: button "Choose file"`, "Files: cv.pdf, photo.png"}},
		{"navigate", Request{Kind: KindCheckpoint, Concrete: &Action{Verb: VerbNavigate, Value: "https://shop.example/pay"}},
			[]string{"Action: navigate", "Destination: https://shop.example/pay"}},
		{"agent, concrete", Request{Kind: KindAgent, Concrete: &Action{Verb: VerbClick, Role: "button", Name: "Go back"},
			Words: "go back to the account", Reason: "the user changed their mind"},
			[]string{"Action: click", `Element: button "Go back"`, "Reason (the agent's words): the user changed their mind",
				`The agent's own words: "go back to the account"`}},
		{"agent, words only", Request{Kind: KindAgent, Action: "finish the cancellation"},
			[]string{`The agent's own words: "finish the cancellation"`,
				"This approves nothing by itself: the agent named no concrete action, so it will be asked again before any action that needs approval."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.r.Lines(); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("Lines =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// TestRequestEscapes: what a page or the model wrote cannot repaint a
// terminal, start a line of its own, or reverse what a person reads.
func TestRequestEscapes(t *testing.T) {
	t.Parallel()
	evil := "Pay\x1b[2J\x1b[1;1HApproved\u202etxt.exe\r\nOK"
	r := Request{
		Kind:     KindAgent,
		Concrete: &Action{Verb: VerbFill, Role: "textbox", Name: evil, Value: evil, Options: []Option{{Text: evil, Value: "v"}}, Dialog: &snapshot.Dialog{Type: "confirm", Message: evil}},
		Action:   "fill " + evil,
		Words:    evil,
		Reason:   evil,
		Title:    evil,
		URL:      "https://x.example/" + evil,
	}
	r.Concrete.Verb = Verb(evil)
	texts := append(r.Lines(), r.Prompt(), Request{Action: evil}.Prompt())
	for _, line := range texts {
		for _, bad := range []string{"\x1b", "\u202e", "\r", "\n"} {
			if strings.Contains(line, bad) {
				t.Errorf("%q holds %q", line, bad)
			}
		}
	}
	if got, want := (Request{Action: "click " + evil}).Prompt(), `The system wants to proceed with: click Pay\x1b[2J\x1b[1;1HApproved\u202etxt.exe\r\nOK. Approve?`; got != want {
		t.Errorf("Prompt = %s, want %s", got, want)
	}
}

func ExampleRequest_Lines() {
	for _, a := range []Action{
		{Verb: VerbClick, Role: "button", Name: "Place order — $129"},
		{Verb: VerbFill, Role: "textbox", Name: "Amount", Value: "129"},
		{Verb: VerbFill, Role: "textbox", Name: "Password", Value: "••••••", Masked: true},
		{Verb: VerbSelect, Role: "combobox", Name: "Reason", Options: []Option{{Text: "Too expensive", Value: "price"}}},
		{Verb: VerbPress, Role: "textbox", Name: "Card number", Value: "Enter", SubmitsPayment: true},
		{Verb: VerbClick, Role: "button", Name: "OK", Dialog: &snapshot.Dialog{Type: "confirm", Message: "Leave checkout?"}},
	} {
		r := Request{Kind: KindCheckpoint, Action: a.String(), Concrete: &a, Title: "Checkout", URL: "https://shop.example/checkout"}
		fmt.Println(r.Prompt())
		for _, l := range r.Lines() {
			fmt.Println("  " + l)
		}
	}
	// Output:
	// The system wants to proceed with: click button "Place order — $129". Approve?
	//   Action: click
	//   Element: button "Place order — $129"
	//   Page: "Checkout"
	//   URL: https://shop.example/checkout
	// The system wants to proceed with: fill textbox "Amount" with "129". Approve?
	//   Action: fill
	//   Element: textbox "Amount"
	//   Value: "129"
	//   Page: "Checkout"
	//   URL: https://shop.example/checkout
	// The system wants to proceed with: fill textbox "Password" with "••••••". Approve?
	//   Action: fill
	//   Element: textbox "Password"
	//   Value: •••••• (masked: a password or secret is never shown)
	//   Page: "Checkout"
	//   URL: https://shop.example/checkout
	// The system wants to proceed with: select "Too expensive" (value "price") in combobox "Reason". Approve?
	//   Action: select
	//   Element: combobox "Reason"
	//   Option: "Too expensive" (value "price")
	//   Page: "Checkout"
	//   URL: https://shop.example/checkout
	// The system wants to proceed with: press textbox "Card number" with key Enter. Approve?
	//   Action: press
	//   Element: textbox "Card number"
	//   Key: Enter
	//   Page: "Checkout"
	//   URL: https://shop.example/checkout
	// The system wants to proceed with: click button "OK" of confirm dialog "Leave checkout?". Approve?
	//   Action: click
	//   Element: button "OK"
	//   Dialog: confirm "Leave checkout?"
	//   Page: "Checkout"
	//   URL: https://shop.example/checkout
}

// shot returns a white w×h screenshot in the format ("png" or "jpeg").
func shot(t *testing.T, format string, w, h int) *snapshot.Screenshot {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	var buf bytes.Buffer
	var err error
	if format == "jpeg" {
		err = jpeg.Encode(&buf, img, nil)
	} else {
		err = png.Encode(&buf, img)
	}
	if err != nil {
		t.Fatal(err)
	}
	return &snapshot.Screenshot{MIMEType: "image/" + format, Width: w, Height: h, Data: buf.Bytes()}
}

func isRed(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r > 0xa000 && g < 0x4000 && b < 0x4000
}

func isWhite(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r > 0xe000 && g > 0xe000 && b > 0xe000
}

func TestMarkTarget(t *testing.T) {
	t.Parallel()
	// A 200×100 image of a 100×50 CSS px viewport (device scale 2): the box
	// (10,10)+(20×10) is image pixels (20,20)–(60,40); the mark is 3 px
	// outside it.
	vp := snapshot.Viewport{Width: 100, Height: 50}
	box := snapshot.BBox{X: 10, Y: 10, Width: 20, Height: 10}
	for _, format := range []string{"png", "jpeg"} {
		t.Run(format, func(t *testing.T) {
			in := shot(t, format, 200, 100)
			out := MarkTarget(in, box, vp)
			if out == in || out.MIMEType != in.MIMEType || out.Width != 200 || out.Height != 100 {
				t.Fatalf("MarkTarget = %+v", out)
			}
			img, got, err := image.Decode(bytes.NewReader(out.Data))
			if err != nil || got != format {
				t.Fatalf("decode: %s, %v", got, err)
			}
			// JPEG blurs edges: sample the middle of each 3 px stroke.
			for _, p := range []image.Point{{18, 30}, {61, 30}, {40, 18}, {40, 41}, {18, 18}} {
				if !isRed(img.At(p.X, p.Y)) {
					t.Errorf("%v is %v, want red", p, img.At(p.X, p.Y))
				}
			}
			for _, p := range []image.Point{{40, 30}, {24, 24}, {14, 30}, {40, 14}, {100, 80}} {
				if !isWhite(img.At(p.X, p.Y)) {
					t.Errorf("%v is %v, want untouched", p, img.At(p.X, p.Y))
				}
			}
			if !isWhite(mustDecode(t, in).At(18, 30)) {
				t.Error("MarkTarget drew on the original")
			}
		})
	}
	// With nothing to draw on, the screenshot comes back as it was.
	plain := shot(t, "png", 200, 100)
	bad := &snapshot.Screenshot{MIMEType: "image/png", Data: []byte("png")}
	empty := &snapshot.Screenshot{MIMEType: "image/png"}
	for _, c := range []struct {
		name string
		in   *snapshot.Screenshot
		box  snapshot.BBox
		vp   snapshot.Viewport
	}{
		{"box outside the image", plain, snapshot.BBox{X: 500, Y: 500, Width: 10, Height: 10}, vp},
		{"no viewport", plain, box, snapshot.Viewport{}},
		{"undecodable", bad, box, vp},
		{"empty", empty, box, vp},
		{"no screenshot", nil, box, vp},
	} {
		if out := MarkTarget(c.in, c.box, c.vp); out != c.in {
			t.Errorf("%s: MarkTarget = %+v, want the screenshot unchanged", c.name, out)
		}
	}
}

func mustDecode(t *testing.T, s *snapshot.Screenshot) image.Image {
	t.Helper()
	img, _, err := image.Decode(bytes.NewReader(s.Data))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestGateMarksTheTarget: the request a person sees carries the screenshot
// with the target's box drawn on it.
func TestGateMarksTheTarget(t *testing.T) {
	t.Parallel()
	h := &human{decision: Decision{Approved: true, Channel: ChannelWeb}}
	g := demoGate(t, h, Options{})
	page := snap(t, finishPage)
	page.Viewport = snapshot.Viewport{Width: 100, Height: 50}
	page.Screenshot = shot(t, "png", 200, 100)
	a := finishClick
	a.Box = &snapshot.BBox{X: 10, Y: 10, Width: 20, Height: 10}
	if _, err := g.Authorize(t.Context(), page, a); err != nil {
		t.Fatal(err)
	}
	r := h.asked[0]
	if r.Screenshot == nil || r.Screenshot == page.Screenshot || !isRed(mustDecode(t, r.Screenshot).At(18, 30)) {
		t.Errorf("request screenshot not marked: %+v", r.Screenshot)
	}
	// Without a box, the page's screenshot as it is.
	if _, err := g.Authorize(t.Context(), page, finishClick); err != nil {
		t.Fatal(err)
	}
	if h.asked[1].Screenshot != page.Screenshot {
		t.Error("a request without a box got another screenshot")
	}
}
