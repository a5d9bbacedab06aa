package snapshot

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// interactiveRoles are the roles an agent acts on: the ARIA widget roles
// (button link checkbox radio textbox combobox listbox menuitem
// menuitemcheckbox menuitemradio tab switch slider) plus their obvious
// equivalents searchbox, spinbutton, option and treeitem.
var interactiveRoles = map[string]bool{
	"button": true, "link": true, "checkbox": true, "radio": true,
	"textbox": true, "searchbox": true, "spinbutton": true,
	"combobox": true, "listbox": true, "option": true,
	"menuitem": true, "menuitemcheckbox": true, "menuitemradio": true,
	"tab": true, "switch": true, "slider": true, "treeitem": true,
}

// containerRoles are shown although nobody clicks them: they say where the
// agent is and what covers the page.
var containerRoles = map[string]bool{
	"region": true, "dialog": true, "alert": true, "alertdialog": true,
}

// internalRoles maps Chromium's internal role names, which the tree reports
// for elements without an ARIA role of their own, to the ARIA role the agent
// knows. The input's kind says the rest (a date, a time).
var internalRoles = map[string]string{
	"DisclosureTriangle": "button", // <summary>
	"ToggleButton":       "button",
	"PopUpButton":        "combobox",
	"MenuListOption":     "option",
	"Date":               "textbox",
	"DateTime":           "textbox",
	"InputTime":          "textbox",
	"ColorWell":          "button",
	"SearchBox":          "searchbox",
	"TextField":          "textbox",
}

// rolePriority orders roles when elements must be dropped: lower is kept
// first. Roles not listed rank after all of these.
var rolePriority = map[string]int{
	"button": 0, "link": 0,
	"checkbox": 1, "radio": 1, "textbox": 1, "searchbox": 1, "spinbutton": 1, "switch": 1,
	"combobox": 2, "listbox": 2,
	"heading": 3,
	"region":  4, "dialog": 4, "alertdialog": 4, "alert": 4,
}

const otherPriority = 5

// valueRoles hold a value the agent may want to read back.
var valueRoles = map[string]bool{
	"textbox": true, "searchbox": true, "spinbutton": true, "combobox": true,
	"slider": true, "listbox": true,
}

// checkableRoles always carry checked, unchecked or mixed.
var checkableRoles = map[string]bool{
	"checkbox": true, "radio": true, "switch": true,
	"menuitemcheckbox": true, "menuitemradio": true,
}

// selectableRoles carry selected when they are.
var selectableRoles = map[string]bool{
	"tab": true, "option": true, "treeitem": true, "row": true, "gridcell": true,
}

// inputKinds are the input types whose role hides what they want.
var inputKinds = map[string]bool{
	"date": true, "time": true, "datetime-local": true, "month": true, "week": true,
	"number": true, "range": true, "email": true, "tel": true, "url": true,
	"search": true, "password": true, "color": true, "file": true,
}

// valuelessInputs never report a value: the value is not what the user sees
// or typed.
var valuelessInputs = map[string]bool{
	"checkbox": true, "radio": true, "button": true, "submit": true,
	"reset": true, "image": true, "hidden": true, "file": true, "password": true,
}

// normalRole returns the role to show for an accessibility role value.
func normalRole(r string) string {
	if m, ok := internalRoles[r]; ok {
		return m
	}
	return r
}

// axProps are the accessibility properties the builder reads.
type axProps struct {
	focusable, focused, disabled, readonly, required, busy, multiline bool
	hasChecked, hasExpanded, hasPressed, selected                     bool
	checked, editable                                                 string
	expanded, pressed                                                 bool
	level                                                             int
}

func readProps(ps []axProperty) axProps {
	var a axProps
	for i := range ps {
		v := ps[i].Value.Value
		switch ps[i].Name {
		case "focusable":
			a.focusable = v.truthy()
		case "focused":
			a.focused = v.truthy()
		case "disabled":
			a.disabled = v.truthy()
		case "readonly":
			a.readonly = v.truthy()
		case "required":
			a.required = v.truthy()
		case "busy":
			a.busy = v.truthy()
		case "multiline":
			a.multiline = v.truthy()
		case "selected":
			a.selected = v.truthy()
		case "checked":
			a.hasChecked, a.checked = true, v.String()
		case "expanded":
			a.hasExpanded, a.expanded = true, v.truthy()
		case "pressed":
			a.hasPressed, a.pressed = true, v.truthy() || v.String() == "mixed"
		case "editable":
			a.editable = v.String()
		case "level":
			if v.kind == 'n' {
				a.level = int(v.n)
			}
		}
	}
	return a
}

// cutName shortens s to maxNameLen characters followed by "..." when it is
// longer. It counts characters (runes), not bytes, and never splits one.
func cutName(s string) string {
	if len(s) <= maxNameLen {
		return s
	}
	n := 0
	for i := range s {
		if n == maxNameLen {
			return s[:i] + "..."
		}
		n++
	}
	return s
}

// collapseSpace trims s and folds each run of white space into one space; it
// returns s itself when there is nothing to fold.
func collapseSpace(s string) string {
	clean := true
	prevSpace := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			clean = false
			break
		}
		sp := c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
		if sp && (prevSpace || c != ' ') {
			clean = false
			break
		}
		prevSpace = sp
	}
	if clean && !prevSpace {
		return s
	}
	if clean && s == "" {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// iconWords are the words of icon class names that say what the icon does,
// for icon sets without a prefix ("star", "btn-reply", "more-horiz").
var iconWords = map[string]bool{
	"star": true, "reply": true, "forward": true, "more": true, "ellipsis": true, "kebab": true,
	"menu": true, "hamburger": true, "close": true, "search": true, "settings": true, "gear": true,
	"share": true, "heart": true, "like": true, "bookmark": true, "download": true, "upload": true,
	"print": true, "copy": true, "edit": true, "pencil": true, "trash": true, "delete": true,
	"remove": true, "add": true, "plus": true, "minus": true, "refresh": true, "reload": true,
	"filter": true, "sort": true, "archive": true, "flag": true, "pin": true, "attach": true,
	"attachment": true, "paperclip": true, "mail": true, "envelope": true, "calendar": true, "bell": true,
	"notifications": true, "lock": true, "unlock": true, "eye": true, "expand": true, "collapse": true,
	"chevron": true, "caret": true, "info": true, "help": true, "play": true, "pause": true,
	"mute": true, "volume": true, "undo": true, "redo": true, "save": true, "send": true,
	"retweet": true, "repost": true, "comment": true, "reblog": true,
	"cart": true, "zoom": true, "fullscreen": true, "mic": true, "camera": true, "logout": true,
}

// iconName turns an icon class list into a name: "icon-trash" gives "trash
// icon", "fa fa-star" gives "star icon", "btn-heart" gives "heart icon". It
// returns "" when no class looks like an icon.
func iconName(classes string) string {
	for _, c := range strings.Fields(classes) {
		lc := strings.ToLower(c)
		var name string
		for _, pre := range iconPrefixes {
			if strings.HasPrefix(lc, pre) && len(lc) > len(pre) {
				name = lc[len(pre):]
				break
			}
		}
		if i := strings.Index(lc, "-icon-"); name == "" && i > 0 {
			// A set's own prefix before it: jQuery UI's ui-icon-disk.
			name = lc[i+len("-icon-"):]
		}
		if name == "" {
			for _, suf := range []string{"-icon", "_icon"} {
				if strings.HasSuffix(lc, suf) && len(lc) > len(suf) {
					name = lc[:len(lc)-len(suf)]
				}
			}
		}
		if name == "" || iconModifiers[name] {
			continue
		}
		name = strings.Map(func(r rune) rune {
			if r == '-' || r == '_' {
				return ' '
			}
			return r
		}, name)
		return strings.TrimSpace(name) + " icon"
	}
	for _, c := range strings.Fields(classes) {
		for _, w := range classWords(c) {
			if iconWords[w] {
				return w + " icon"
			}
		}
	}
	return ""
}

// classWords splits a class name into lower-case words at dashes,
// underscores and lower-to-upper case changes: "btnReply-small" gives btn,
// reply, small.
func classWords(c string) []string {
	var words []string
	start := 0
	rs := []rune(c)
	for i := 0; i <= len(rs); i++ {
		end := i == len(rs)
		cut := end || rs[i] == '-' || rs[i] == '_' || (i > start && unicode.IsUpper(rs[i]) && unicode.IsLower(rs[i-1]))
		if !cut {
			continue
		}
		if i > start {
			words = append(words, strings.ToLower(string(rs[start:i])))
		}
		start = i
		if !end && (rs[i] == '-' || rs[i] == '_') {
			start = i + 1
		}
	}
	return words
}

// iconPrefixes are the class prefixes of common icon sets.
var iconPrefixes = []string{
	"icon-", "icon_", "icons-", "ico-", "fa-", "bi-", "glyphicon-", "mdi-",
	"ti-", "ion-", "ionicon-", "lucide-", "feather-", "octicon-", "material-icons-",
	"la-", "ri-", "bx-", "gg-", "codicon-",
}

// iconModifiers are icon-set classes that say how, not what.
var iconModifiers = map[string]bool{
	"solid": true, "regular": true, "light": true, "thin": true, "duotone": true,
	"brands": true, "fw": true, "lg": true, "xs": true, "sm": true, "1x": true,
	"2x": true, "3x": true, "4x": true, "5x": true, "spin": true, "pulse": true,
	"border": true, "inverse": true, "stack": true, "flip": true, "rotate": true,
	"button": true, "btn": true, "small": true, "large": true, "only": true,
	"ui": true, // jQuery UI's "ui-icon" beside the "ui-icon-disk" that says which
}

// isWordy reports whether s has a letter or digit, i.e. is worth reading.
func isWordy(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}
