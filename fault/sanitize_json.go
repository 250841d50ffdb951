package fault

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/triage-go/triage/internal/jsonscan"
)

// AppendSanitizedMember appends to buf the value of a details member
// named name whose value is the JSON text raw, as SanitizeDetails leaves
// it, encoded as encoding/json encodes it without HTML escaping: the
// bytes that decoding raw (numbers as json.Number), SanitizeDetails on
// {name: value}, and encoding the member's value again would give,
// without the values in between. Objects come out compact with their
// members sorted by name (the last of a name given twice), numbers as
// they were written; members named for a credential are dropped at every
// depth, every string goes through Redact, and what lies deeper than 32
// levels is dropped. kept is false, and nothing is appended, when the
// member itself is dropped (its name denotes a credential). An error, and
// nothing appended, for raw that is not valid JSON.
//
// A stored report's documents are written this way (triage.Report's
// Document): its context and free members, sanitized as the handler's
// copy was, without a map of every member and their values to build and
// encode by reflection.
func AppendSanitizedMember(buf *bytes.Buffer, name string, raw []byte) (kept bool, err error) {
	if !json.Valid(raw) {
		return false, errInvalidJSON
	}
	if sensitiveKey(name) {
		return false, nil
	}
	return appendSanitized(buf, bytes.TrimSpace(raw), 0), nil // depth 0 is kept
}

var errInvalidJSON = errors.New("fault: a details member that is not valid JSON")

// AppendJSONString appends s as encoding/json encodes a string without
// HTML escaping.
func AppendJSONString(buf *bytes.Buffer, s string) {
	if plainText(s) {
		buf.WriteByte('"')
		buf.WriteString(s)
		buf.WriteByte('"')
		return
	}
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)           // a string always encodes
	buf.Truncate(buf.Len() - 1) // Encode's newline
}

// plainText reports whether encoding/json writes s between quotes as it
// is: valid UTF-8 without quotes, backslashes, control characters or the
// line and paragraph separators (U+2028, U+2029), which it escapes.
func plainText(s string) bool { return plainChars(s) && utf8.ValidString(s) }

// plainChars is plainText but for the UTF-8 check.
func plainChars[T ~string | ~[]byte](s T) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\\' || c < 0x20 || c == 0xE2 && i+2 < len(s) && s[i+1] == 0x80 && s[i+2]&^1 == 0xA8 {
			return false
		}
	}
	return true
}

// AppendRedactedString appends raw, a valid JSON string without the space
// around it, as AppendJSONString appends the redacted text it decodes to
// (Redact; invalid UTF-8 decodes as U+FFFD): raw itself when its text is
// plain (see plainText) and Redact would leave it as it is, without a
// string of its own.
func AppendRedactedString(buf *bytes.Buffer, raw []byte) {
	if body := raw[1 : len(raw)-1]; plainChars(body) && utf8.Valid(body) && !mayHoldSecret(body) && !holdsRegistered(body) {
		buf.Write(raw)
		return
	}
	text, _ := jsonscan.String(raw) // valid: it decodes (invalid UTF-8 as U+FFFD)
	AppendJSONString(buf, Redact(text))
}

// holdsRegistered reports whether b holds a secret registered with
// RegisterSecret, which Redact replaces.
func holdsRegistered(b []byte) bool {
	secrets := registered.Load()
	if secrets == nil {
		return false
	}
	for _, secret := range *secrets {
		// secret's bytes, read only: no copy of it per string checked
		if bytes.Contains(b, unsafe.Slice(unsafe.StringData(secret), len(secret))) {
			return true
		}
	}
	return false
}

// appendSanitized appends raw, a valid JSON value without the space
// around it, as sanitizeValue at depth leaves the value it decodes to:
// false, appending nothing, when it is dropped.
func appendSanitized(buf *bytes.Buffer, raw []byte, depth int) bool {
	if depth > maxSanitizeDepth {
		return false
	}
	switch raw[0] {
	case '{':
		appendSanitizedObject(buf, raw, depth)
	case '[':
		buf.WriteByte('[')
		n, mark := 0, buf.Len()
		jsonscan.EachItem(raw, func(item []byte) {
			if n > 0 {
				buf.WriteByte(',')
			}
			if appendSanitized(buf, item, depth+1) {
				n, mark = n+1, buf.Len()
			} else {
				buf.Truncate(mark)
			}
		})
		buf.WriteByte(']')
	case '"':
		AppendRedactedString(buf, raw)
	default: // a number as it was written (json.Number), true, false, null
		buf.Write(raw)
	}
	return true
}

// jsonMember is an object's member: its decoded name and its value's text.
type jsonMember struct {
	name string
	raw  []byte
}

// appendSanitizedObject appends raw, an object, as sanitizeValue leaves
// the map it decodes to, encoded with its members sorted.
func appendSanitizedObject(buf *bytes.Buffer, raw []byte, depth int) {
	var arr [16]jsonMember
	ms := arr[:0]
	jsonscan.EachMember(raw, func(name string, val []byte) { ms = append(ms, jsonMember{name, val}) })
	// Sorted by name, a name given twice in the order given: the last is
	// the one a map keeps.
	slices.SortStableFunc(ms, func(a, b jsonMember) int { return strings.Compare(a.name, b.name) })
	buf.WriteByte('{')
	n, mark := 0, buf.Len()
	for i, m := range ms {
		if i+1 < len(ms) && ms[i+1].name == m.name || sensitiveKey(m.name) {
			continue
		}
		if n > 0 {
			buf.WriteByte(',')
		}
		AppendJSONString(buf, m.name)
		buf.WriteByte(':')
		if appendSanitized(buf, m.raw, depth+1) {
			n, mark = n+1, buf.Len()
		} else {
			buf.Truncate(mark)
		}
	}
	buf.WriteByte('}')
}
