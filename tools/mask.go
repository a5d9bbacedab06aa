package tools

import "encoding/json"

// maskedValue stands in the audit log for a password's value.
const maskedValue = "********"

// maskPassword returns the arguments of a call that fills a password field,
// or presses a character into one, as the audit log may see them: the value
// or key replaced by maskedValue.
// Arguments that are not a JSON object are replaced whole, since nothing says
// where in them the secret is; the log writes such arguments as text.
func maskPassword(args json.RawMessage) json.RawMessage {
	if len(args) == 0 {
		return args
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil {
		return json.RawMessage(maskedValue)
	}
	// A fill's value, or the key or the text a press typed into the
	// field.
	for _, k := range []string{"value", "key", "text"} {
		if _, ok := m[k]; ok {
			m[k] = json.RawMessage(`"` + maskedValue + `"`)
		}
	}
	masked, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage(maskedValue)
	}
	return masked
}
