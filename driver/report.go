package driver

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"

	"github.com/chaperone-mcp/chaperone/recording"
)

// reportTemplate is report.html: one self-contained file, screenshots
// inline, readable in any browser; its one script is the player of the
// session's recording (recording.PlayerScript), whose frames are files in
// the record's recording directory beside it, and whose data, like every
// text here, is escaped by html/template.
var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"dollars": func(f float64) string { return fmt.Sprintf("$%.4f", f) },
	"inc":     func(i int) int { return i + 1 },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Chaperone run: {{.Start.Goal}}</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.4em}
.outcome{padding:.6em 1em;border-radius:6px;font-weight:600}
.ok{background:#e3f6e5;color:#145c1e}.fail{background:#fbe4e4;color:#8a1c1c}
table.summary td{padding:.15em 1em .15em 0}
.turn{border-top:1px solid #ddd;padding:1em 0;display:grid;grid-template-columns:1fr 1fr;gap:1em}
.turn h2{font-size:1.05em;margin:0 0 .4em}
.shot{max-width:100%;border:1px solid #ccc}
.meta{color:#666;font-size:.9em}
.said{font-style:italic;color:#444}
.approval{font-weight:600}
code{background:#f3f3f3;padding:0 .2em}
{{with .Recording}}{{.Style}}{{end}}
</style>
</head>
<body>
<h1>Chaperone run</h1>
<p><strong>Goal:</strong> <span id="goal">{{.Start.Goal}}</span></p>
{{with .End}}<p id="outcome" class="outcome {{if .Result.Success}}ok{{else}}fail{{end}}">
{{if .Result.Success}}Succeeded{{else}}Failed{{end}}: {{.Result.Reason}}{{with .Result.Detail}} — {{.}}{{end}}</p>{{end}}
<table class="summary">
<tr><td>Model</td><td>{{.Start.Model}}</td></tr>
{{with .Start.Replay}}<tr><td>Replay of</td><td id="replay">{{.}}</td></tr>{{end}}
<tr><td>Started</td><td>{{.Start.Time.Format "2006-01-02 15:04:05 MST"}}</td></tr>
{{with .End}}<tr><td>Turns</td><td>{{.Result.Turns}}</td></tr>
<tr><td>Tokens</td><td id="tokens">{{.Result.Tokens.InputTokens}} in, {{.Result.Tokens.OutputTokens}} out{{with .Result.Tokens}}{{if or .CacheReadTokens .CacheWriteTokens}} · of the input, {{.CacheReadTokens}} read from the prompt cache, {{.CacheWriteTokens}} written to it{{end}}{{end}}</td></tr>
<tr><td>Cost</td><td id="cost">{{dollars .Result.Cost}}{{if not .Result.Priced}} (no price on file for this model){{end}}</td></tr>{{end}}
</table>
{{with .Recording}}{{.Markup}}
<script type="application/json" id="recording-data">{{.Data}}</script>
<script>{{.Script}}</script>{{end}}
<section id="timeline">
<div class="turn" data-turn="0">
<div><h2>Start</h2><p class="meta">{{.Start.URL}}</p></div>
<div>{{with index .Shots 0}}<img class="shot" alt="initial screenshot" src="{{.}}">{{end}}</div>
</div>
{{range $i, $t := .Turns}}<div class="turn" data-turn="{{$t.Turn}}">
<div>
<h2>Turn {{$t.Turn}}: {{if $t.Tool}}<code>{{$t.Tool}}{{with $t.Target}}({{.}}){{end}}</code>{{else}}no tool call{{end}}</h2>
{{with $t.Said}}<p class="said">“{{.}}”</p>{{end}}
{{with $t.Replay}}<p class="replay">Step {{.}}</p>{{end}}
{{with $t.Result}}<p>Result: <strong class="result">{{.}}</strong></p>{{end}}
{{with $t.Approval}}<p class="approval">Human: {{.}}</p>{{end}}
{{with $t.Message}}<p>{{.}}</p>{{end}}
{{with $t.Skipped}}<p class="meta">Not executed (one tool call per turn): {{range .}}<code>{{.}}</code> {{end}}</p>{{end}}
{{with $t.Error}}<p class="fail">Error: {{.}}</p>{{end}}
{{with $t.Note}}<p class="note">Told the model: {{.}}</p>{{end}}
<p class="meta">{{$t.Time.Format "15:04:05"}} · request ≈{{$t.RequestTokens}} tokens · {{$t.InputTokens}} in{{if or $t.CacheReadTokens $t.CacheWriteTokens}} ({{$t.CacheReadTokens}} cache read, {{$t.CacheWriteTokens}} cache write){{end}} / {{$t.OutputTokens}} out · {{$t.LatencyMS}} ms · {{$t.Attempts}} attempt(s){{if $t.DroppedTurns}} · {{$t.DroppedTurns}} early turns summarised{{end}}</p>
{{with $t.URL}}<p class="meta">{{.}}</p>{{end}}
</div>
<div>{{with index $.Shots (inc $i)}}<img class="shot" alt="screenshot after turn {{$t.Turn}}" src="{{.}}">{{end}}</div>
</div>
{{end}}</section>
</body>
</html>
`))

// reportData is what the template renders. Shots[0] is the initial
// screenshot, Shots[i] that of the i-th turn record, as data: URIs.
type reportData struct {
	Start StartRecord
	Turns []TurnRecord
	End   *reportEnd
	Shots []template.URL
	// Recording is the session's recording, when it has one.
	Recording *reportRecording
}

// reportRecording is the player of the run's recording.
type reportRecording struct {
	Style  template.CSS
	Markup template.HTML
	Data   recording.Player
	Script template.JS
}

// RecordingDir is the directory of a run record that holds the session's
// recording, which report.html plays.
const RecordingDir = "recording"

// recordingPlayer returns the player of the record's recording, or nil
// when it has none.
func (r *Recorder) recordingPlayer() *reportRecording {
	rec, err := recording.Read(filepath.Join(r.dir, RecordingDir))
	if err != nil {
		return nil
	}
	return &reportRecording{Style: template.CSS(recording.PlayerStyle), Markup: template.HTML(recording.PlayerMarkup),
		Data: rec.Player(RecordingDir + "/"), Script: template.JS(recording.PlayerScript)}
}

type reportEnd struct {
	Result Result
}

func (r *Recorder) writeReport() error {
	data := reportData{Start: r.start, Turns: r.turns, Recording: r.recordingPlayer()}
	if r.end != nil {
		data.End = &reportEnd{Result: r.end.Result}
	}
	data.Shots = append(data.Shots, r.dataURI(r.start.Screenshot))
	for _, t := range r.turns {
		data.Shots = append(data.Shots, r.dataURI(t.Screenshot))
	}
	var buf bytes.Buffer
	if err := reportTemplate.Execute(&buf, data); err != nil {
		return fmt.Errorf("render report: %w", err)
	}
	if err := r.writeFile(ReportName, buf.Bytes()); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// dataURI inlines a screenshot file of the record, or returns "".
func (r *Recorder) dataURI(name string) template.URL {
	if name == "" {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(r.dir, name))
	if err != nil {
		r.keep(fmt.Errorf("inline screenshot: %w", err))
		return ""
	}
	mime := "image/png"
	if strings.HasSuffix(name, ".jpg") {
		mime = "image/jpeg"
	}
	// The bytes are our own screenshot, base64-encoded: safe as a URL.
	return template.URL("data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b))
}
