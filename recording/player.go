package recording

import _ "embed" // the player's script and style

// The player a page shows a recording with: PlayerMarkup where it goes,
// PlayerStyle in a style element, the data (Player as JSON) in
// <script type="application/json" id="recording-data">, then PlayerScript.
// The script sets every text of the data as text, never as markup.
var (
	//go:embed player.js
	PlayerScript string
	//go:embed player.css
	PlayerStyle string
)

// PlayerMarkup is the player's element; PlayerScript fills it in.
const PlayerMarkup = `<section id="recording"><h2>Recording</h2>
<img class="rec-frame" alt="the page as recorded">
<div class="rec-controls"><button type="button" class="rec-play">Play</button><input type="range" class="rec-scrub" min="0" max="0" step="100" value="0" aria-label="time"><span class="rec-time"></span></div>
<div class="rec-bar"></div>
<ol class="rec-marks"></ol>
</section>`
