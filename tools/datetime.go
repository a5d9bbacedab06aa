package tools

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// inputFormats says, for each input type whose value has a fixed format, the
// format the input holds and the layouts a person might type.
var inputFormats = map[string]struct {
	canonical string
	want      string
	layouts   []string
}{
	"date": {"2006-01-02", "a date such as 2011-10-11 or 10/11/2011", []string{
		"2006-01-02", "01/02/2006", "1/2/2006", "01/02/06", "1/2/06", "2006/01/02", "Jan 2, 2006",
		"January 2, 2006", "2 Jan 2006", "2 January 2006", "Jan 2 2006", "02.01.2006",
	}},
	"time": {"15:04", "a time such as 20:04 or 8:04 PM", []string{
		"15:04", "15:04:05", "3:04 PM", "3:04PM", "3:04 pm", "3:04pm", "03:04 PM", "3 PM", "3PM", "3:04:05 PM",
	}},
	"datetime-local": {"2006-01-02T15:04", "a date and time such as 2011-10-11T20:04 or 10/11/2011 8:04 PM", []string{
		"2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02 15:04", "01/02/2006 3:04 PM", "1/2/2006 3:04 PM",
		"01/02/2006 15:04", "1/2/2006 15:04", "Jan 2, 2006 3:04 PM", "January 2, 2006 3:04 PM", "2006-01-02 3:04 PM",
	}},
	"month": {"2006-01", "a month such as 2011-10 or October 2011", []string{
		"2006-01", "01/2006", "1/2006", "January 2006", "Jan 2006", "2006/01",
	}},
	"week": {"", "a week such as 2011-W41", nil},
}

// normalizeInput turns what a person would type into the value an input of
// the given type holds. Types without a fixed format pass through. The error
// names the format the input wants.
func normalizeInput(inputType, value string) (string, error) {
	v := strings.TrimSpace(value)
	switch inputType {
	case "number", "range":
		clean := strings.ReplaceAll(strings.ReplaceAll(v, ",", ""), " ", "")
		if _, err := strconv.ParseFloat(clean, 64); err != nil {
			return "", fmt.Errorf("a %s input wants a number such as 42 or 3.5, not %q", inputType, value)
		}
		return clean, nil
	case "week":
		var y, w int
		if n, _ := fmt.Sscanf(strings.ToUpper(v), "%d-W%d", &y, &w); n == 2 && w >= 1 && w <= 53 {
			return fmt.Sprintf("%04d-W%02d", y, w), nil
		}
		return "", fmt.Errorf("a week input wants a week such as 2011-W41, not %q", value)
	}
	f, ok := inputFormats[inputType]
	if !ok {
		return value, nil
	}
	for _, layout := range f.layouts {
		if t, err := time.Parse(layout, v); err == nil {
			return t.Format(f.canonical), nil
		}
	}
	return "", fmt.Errorf("a %s input wants %s, not %q", inputType, f.want, value)
}

// typedInputs are the input types whose value is set, not typed: a person
// picks it with a widget, and typing into it lands in the wrong segment.
var typedInputs = map[string]bool{
	"date": true, "time": true, "datetime-local": true, "month": true, "week": true,
	"range": true, "color": true,
}

// textInputTypes are the input types that take typed text.
var textInputTypes = map[string]bool{
	"": true, "text": true, "search": true, "email": true, "url": true, "tel": true, "password": true, "number": true,
}
