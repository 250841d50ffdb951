package jsonmember

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonscan"
)

// MaxTextErrors bounds the field errors TextErrors lists: past it, one
// more says how many strings are left.
const MaxTextErrors = 20

// TextErrors lists the strings of a JSON document that are not Unicode
// text, each as a field error naming its member by its path
// ("data.context.note", "fields[2]"; "(root)" for the document itself):
// a string that holds bytes that are not UTF-8, or a \u escape of a UTF-16
// surrogate that is not half of a pair ("\ud800"). Member names are
// checked as their values are. It returns nil when every string is text.
//
// encoding/json takes both silently (each becomes U+FFFD when it decodes a
// string; the bytes stay as they are in a json.RawMessage), and a database
// or a strict client refuses them; a service that refuses them at the door
// stores and answers only text. data must be valid JSON (json.Valid); it
// lists at most MaxTextErrors, then one field error, "(root)", saying how
// many more there are.
func TextErrors(data []byte) []fault.FieldError {
	if utf8.Valid(data) && !mayHoldSurrogate(data) {
		return nil // the common case: one pass, no walk
	}
	w := textWalker{data: data}
	w.value(jsonscan.SkipSpace(data, 0))
	if w.more > 0 {
		w.errs = append(w.errs, fault.FieldError{Field: "(root)",
			Message: "holds " + strconv.Itoa(w.more) + " more strings that are not Unicode text"})
	}
	return w.errs
}

// mayHoldSurrogate reports whether data has a \u escape that may be a
// surrogate's (\ud800 to \udfff); an escaped backslash before "ud" is a
// false alarm, which only costs the walk.
func mayHoldSurrogate(data []byte) bool {
	for i := 0; ; {
		j := bytes.Index(data[i:], []byte(`\u`))
		if j < 0 {
			return false
		}
		i += j + 2
		if i < len(data) && (data[i] == 'd' || data[i] == 'D') {
			return true
		}
	}
}

type textWalker struct {
	data []byte
	path []segment // where the walk is: built into a string only for an error
	errs []fault.FieldError
	more int
}

// segment is a step of a member path: a member's name, or an element's
// index when name is empty and index not negative.
type segment struct {
	name  string
	index int
}

// maxTextPath bounds a path a field error names, in bytes: a document of
// long names nested deep would otherwise make one of megabytes.
const maxTextPath = 256

func (w *textWalker) add(msg string) {
	if len(w.errs) >= MaxTextErrors {
		w.more++
		return
	}
	var b strings.Builder
	for _, seg := range w.path {
		if b.Len() > maxTextPath {
			break
		}
		if seg.index >= 0 {
			b.WriteString("[" + strconv.Itoa(seg.index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg.name[:min(len(seg.name), maxTextPath+1)]) // cut again below, on a rune
	}
	path := cut(b.String())
	if path == "" {
		path = "(root)"
	}
	w.errs = append(w.errs, fault.FieldError{Field: path, Message: msg})
}

// cut bounds a path a field error names to maxTextPath bytes, cutting on
// a rune and marking the cut with "…".
func cut(path string) string {
	if len(path) <= maxTextPath {
		return path
	}
	n := maxTextPath
	for n > 0 && !utf8.RuneStart(path[n]) {
		n--
	}
	return path[:n] + "…"
}

func itoa(i int) string { return strconv.Itoa(i) }

// value checks the valid value at i and returns the index after it.
func (w *textWalker) value(i int) int {
	data := w.data
	switch data[i] {
	case '{':
		i = jsonscan.SkipSpace(data, i+1)
		if data[i] == '}' {
			return i + 1
		}
		for {
			end := jsonscan.StringEnd(data, i)
			name, _ := jsonscan.String(data[i:end]) // a valid document's: it decodes
			w.path = append(w.path, segment{name: name, index: -1})
			if msg := textProblem(data[i+1 : end-1]); msg != "" {
				w.add("has a name that " + msg)
			}
			i = jsonscan.SkipSpace(data, jsonscan.SkipSpace(data, end)+1) // past ':'
			i = jsonscan.SkipSpace(data, w.value(i))
			w.path = w.path[:len(w.path)-1]
			if data[i] == '}' {
				return i + 1
			}
			i = jsonscan.SkipSpace(data, i+1) // past ','
		}
	case '[':
		i = jsonscan.SkipSpace(data, i+1)
		if data[i] == ']' {
			return i + 1
		}
		for n := 0; ; n++ {
			w.path = append(w.path, segment{index: n})
			i = jsonscan.SkipSpace(data, w.value(i))
			w.path = w.path[:len(w.path)-1]
			if data[i] == ']' {
				return i + 1
			}
			i = jsonscan.SkipSpace(data, i+1)
		}
	case '"':
		end := jsonscan.StringEnd(data, i)
		if msg := textProblem(data[i+1 : end-1]); msg != "" {
			w.add(msg)
		}
		return end
	}
	return jsonscan.ValueEnd(data, i)
}

// textProblem says what keeps the body of a valid JSON string (between
// its quotes, escapes as they are) from being Unicode text; "" when
// nothing does.
func textProblem(body []byte) string {
	if !utf8.Valid(body) {
		return "is not valid UTF-8"
	}
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			continue
		}
		i++ // the escaped character: a valid string has one
		if body[i] != 'u' {
			continue
		}
		r := hex4(body[i+1 : i+5])
		i += 4
		if !utf16.IsSurrogate(r) {
			continue
		}
		if r < 0xdc00 && i+6 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
			if low := hex4(body[i+3 : i+7]); low >= 0xdc00 && low <= 0xdfff {
				i += 6 // a pair: one character
				continue
			}
		}
		return `holds \u` + strconv.FormatInt(int64(r), 16) + `, half of a UTF-16 surrogate pair without the other half, which is not a character`
	}
	return ""
}

// hex4 reads the four hexadecimal digits of a \u escape (a valid
// document's).
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
