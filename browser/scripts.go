package browser

import _ "embed" // the page scripts

// The page scripts. Each is one JavaScript function that runs on a node
// (Runtime.callFunctionOn) or on the main frame's window (Runtime.evaluate of
// the function applied to its arguments) as this, and takes its parameters
// as the call's arguments.
var (
	// inspectJS reports what Inspect checks before an action.
	//go:embed js/inspect.js
	inspectJS string

	// focusAndSelectJS readies a text field for Type.
	//go:embed js/focusAndSelect.js
	focusAndSelectJS string

	// fireChangeJS ends Type as leaving the field would, if the field holds
	// the text typed.
	//go:embed js/fireChange.js
	fireChangeJS string
	// shownTextJS counts the elements outside a field that show the text
	// typed into it (Typed, ShowsText).
	//go:embed js/shownText.js
	shownTextJS string

	// setValueJS sets the value of an input that has no text to type into.
	//go:embed js/setValue.js
	setValueJS string

	// maskTextJS hides a field's text for MaskText.
	//go:embed js/maskText.js
	maskTextJS string

	// guardFilesJS and readGuardJS keep SetFiles to the approved files,
	// guardOptionJS a click on a listbox's option to the option approved.
	//go:embed js/guardFiles.js
	guardFilesJS string
	//go:embed js/guardOption.js
	guardOptionJS string
	//go:embed js/readGuard.js
	readGuardJS string

	// selectOptionJS finds, and for Select picks, an option.
	//go:embed js/selectOption.js
	selectOptionJS string

	// scrollElementJS scrolls a node's content, or the node into view.
	//go:embed js/scrollElement.js
	scrollElementJS string

	// scrollPageJS scrolls the page to an edge.
	//go:embed js/scrollPage.js
	scrollPageJS string

	// armQuietWatchJS starts watching the page for changes.
	//go:embed js/armQuietWatch.js
	armQuietWatchJS string

	// waitLoadedJS waits, bounded, for the document's load event.
	//go:embed js/waitLoaded.js
	waitLoadedJS string

	// waitFirstChangeJS waits for the watched page's first change.
	//go:embed js/waitFirstChange.js
	waitFirstChangeJS string

	// waitReadyQuietSrc waits for the document to be interactive, then
	// quiet; waitReadyQuietJS is it with the quiet watch it needs.
	//go:embed js/waitReadyQuiet.js
	waitReadyQuietSrc string

	// waitQuietJS waits until the watched page has been quiet.
	//go:embed js/waitQuiet.js
	waitQuietJS string

	// activeElementJS finds the element that has focus.
	//go:embed js/activeElement.js
	activeElementJS string

	// waitForJS waits for text to appear or go, or for a node to go.
	//go:embed js/waitFor.js
	waitForJS string

	// setLocalStorageJS writes localStorage items for LoadStorageState.
	//go:embed js/setLocalStorage.js
	setLocalStorageJS string

	// readLocalStorageJS reads localStorage for StorageState.
	//go:embed js/readLocalStorage.js
	readLocalStorageJS string

	// waitFramesJS waits for the document to render frames.
	//go:embed js/waitFrames.js
	waitFramesJS string
)

// armAndWaitQuietJS arms the quiet watch and waits for quiet in one call.
var armAndWaitQuietJS = "function armAndWaitQuiet(quiet, cap) {\n(" + armQuietWatchJS + ").call(this);\n" +
	"return (" + waitQuietJS + ").call(this, quiet, cap);\n}"

// countAndFireChangeJS is fireChange that first counts, in the same call,
// the elements showing the text typed (shownText) into its result's shown:
// TypeText's count costs no round trip of its own.
var countAndFireChangeJS = "function countAndFireChange(typed, clear) {\nconst shown = (" + shownTextJS + ").call(this, typed);\n" +
	"return Object.assign((" + fireChangeJS + ").call(this, typed, clear), {shown});\n}"

// waitReadyQuietJS is waitReadyQuiet given the quiet watch as its third
// argument.
var waitReadyQuietJS = "function waitReadyQuietArmed(quiet, cap) {\nreturn (" + waitReadyQuietSrc + ").call(this, quiet, cap, " +
	armAndWaitQuietJS + ");\n}"
