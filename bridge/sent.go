package bridge

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/triage-go/triage/fault"
)

// maxShownID bounds an id a failure's text shows: the input schema's own
// bound, in runes.
const maxShownID = 128

// sentID is an id a call's arguments carried (agentId, sessionId,
// errorId), as a failure's text says it even when the call failed before
// it was read: a prompt too large, arguments that do not match the schema.
type sentID struct {
	given bool   // the arguments have the member
	str   bool   // and it is a string
	shown string // its text (a string's value, else its JSON), made safe by showID
}

// sentIDs reads the ids a call's arguments carry, leniently: whatever the
// arguments hold, nothing fails here.
func sentIDs(args json.RawMessage) map[string]sentID {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return nil
	}
	out := map[string]sentID{}
	for _, key := range []string{"agentId", "sessionId", "errorId"} {
		raw, ok := m[key]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			out[key] = sentID{given: true, str: true, shown: showID(s)}
			continue
		}
		var b bytes.Buffer
		if json.Compact(&b, raw) != nil {
			b.Reset()
			b.Write(raw)
		}
		out[key] = sentID{given: true, shown: showID(b.String())}
	}
	return out
}

// showID makes an id safe to show in a failure's text: redacted (an id
// may be a pasted secret), control and format characters (line breaks,
// bidirectional overrides) replaced by U+FFFD, and cut to maxShownID
// runes with an ellipsis.
func showID(s string) string {
	if len(s) > 4*maxShownID*utf8.UTFMax {
		s = s[:4*maxShownID*utf8.UTFMax] // never redact or map megabytes
	}
	s = printable(fault.Redact(s))
	if utf8.RuneCountInString(s) > maxShownID {
		s = string([]rune(s)[:maxShownID-1]) + "…"
	}
	return s
}

// printable replaces what would break a failure's text, or hide part of
// it, by U+FFFD: invalid UTF-8, control characters (line breaks) and
// format characters (bidirectional overrides). A message or an id may
// echo what a client sent.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}
