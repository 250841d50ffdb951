package jsonmember

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/triage-go/triage/internal/jsonscan"
)

// textValue decodes a valid value without the space around it, from one
// copy of its text: the strings it holds that need no decoding (most) are
// slices of it, not copies of their own, and its objects and arrays are
// walked without closures.
func textValue(s string) (any, error) {
	switch s[0] {
	case '{':
		m := map[string]any{}
		i := jsonscan.SkipSpace(s, 1)
		for s[i] != '}' {
			end := jsonscan.StringEnd(s, i)
			key, _ := textString(s[i:end])                          // a valid document's: it decodes
			i = jsonscan.SkipSpace(s, jsonscan.SkipSpace(s, end)+1) // past ':'
			vend := jsonscan.ValueEnd(s, i)
			v, err := textValue(s[i:vend])
			if err != nil {
				return nil, err
			}
			m[key] = v
			if i = jsonscan.SkipSpace(s, vend); s[i] == ',' {
				i = jsonscan.SkipSpace(s, i+1)
			}
		}
		return m, nil
	case '[':
		a := []any{}
		i := jsonscan.SkipSpace(s, 1)
		for s[i] != ']' {
			end := jsonscan.ValueEnd(s, i)
			v, err := textValue(s[i:end])
			if err != nil {
				return nil, err
			}
			a = append(a, v)
			if i = jsonscan.SkipSpace(s, end); s[i] == ',' {
				i = jsonscan.SkipSpace(s, i+1)
			}
		}
		return a, nil
	case '"':
		return textString(s)
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case 'n':
		return nil, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// encoding/json fails the same way on a number beyond float64.
		var v any
		return nil, json.Unmarshal([]byte(s), &v)
	}
	return f, nil
}

// textString decodes a JSON string: a slice of raw when plain (see
// jsonscan.Plain), else through encoding/json.
func textString(raw string) (string, error) {
	if isPlain(raw) {
		return raw[1 : len(raw)-1], nil
	}
	var s string
	err := json.Unmarshal([]byte(raw), &s)
	return s, err
}

// isPlain reports whether raw is a JSON string that jsonscan.Plain takes as
// it is.
func isPlain(raw string) bool {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	body := raw[1 : len(raw)-1]
	for i := 0; i < len(body); i++ {
		if c := body[i]; c == '\\' || c == '"' || c < 0x20 {
			return false
		}
	}
	return utf8.ValidString(body)
}
