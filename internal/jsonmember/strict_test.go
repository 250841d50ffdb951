package jsonmember

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
)

type strictItem struct {
	N int `json:"n"`
}

type strictDoc struct {
	Fields   []string          `json:"fields"`
	Synonyms map[string]string `json:"synonyms"`
	Items    []strictItem      `json:"items"`
	At       *time.Time        `json:"at"`
	Data     map[string]any    `json:"data"`
	On       bool              `json:"on"`
}

var strictDec = NewStrict[strictDoc]()

// TestStrict: every member at fault is named by its path, in document
// order, down to the array item and map entry.
func TestStrict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     []fault.FieldError
	}{
		{"Unknown", `{"fields":[],"x":1,"items":[{"n":1,"m":2}],"y":{}}`, []fault.FieldError{
			{Field: "x", Message: "is not a member of this document"},
			{Field: "items[0].m", Message: "is not a member of this document"},
			{Field: "y", Message: "is not a member of this document"}}},
		{"NamesMatchExactly", `{"Fields":["a"]}`, []fault.FieldError{{Field: "Fields", Message: "is not a member of this document"}}},
		{"WrongTypes", `{"fields":["a",3],"synonyms":{"s":true},"items":[{"n":"1"}],"on":"yes","data":[]}`, []fault.FieldError{
			{Field: "fields[1]", Message: "must be a string, got number"},
			{Field: "synonyms.s", Message: "must be a string, got boolean"},
			{Field: "items[0].n", Message: "must be a number, got string"},
			{Field: "on", Message: "must be a boolean, got string"},
			{Field: "data", Message: "must be an object, got array"}}},
		{"NotAnObject", `[1]`, []fault.FieldError{{Field: "(root)", Message: "must be an object, got array"}}},
		{"NotText", `{"fields":["a\ud800"],"x":1}`, []fault.FieldError{{Field: "fields[0]",
			Message: `holds \ud800, half of a UTF-16 surrogate pair without the other half, which is not a character`}}},
		{"EncodingJSON", `{"items":[{"n":1.5}]}`, []fault.FieldError{{Field: "items.n", Message: "must be a number, got number 1.5"}}},
		{"Time", `{"at":"noon"}`, []fault.FieldError{{Field: "(root)", Message: `parsing time "noon" as "2006-01-02T15:04:05Z07:00": cannot parse "noon" as "2006"`}}},
		{"NotJSON", `{"fields":`, []fault.FieldError{{Field: "(root)", Message: "invalid JSON"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := strictDec.Decode([]byte(tt.in))
			ve, ok := errors.AsType[*ValidationError](err)
			if !ok {
				t.Fatalf("err = %v, want a *ValidationError", err)
			}
			if !reflect.DeepEqual(ve.FieldErrors(), tt.want) {
				t.Errorf("field errors\n%q\nwant\n%q", ve.FieldErrors(), tt.want)
			}
		})
	}
}

// TestStrictAccepts: a valid document decodes as encoding/json decodes it,
// null included, and duplicate members keep the last.
func TestStrictAccepts(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`{}`, `null`, `{"fields":null,"synonyms":null,"items":[null,{"n":2}],"data":{"x":[1,{"y":null}]}}`,
		`{"fields":["a"],"synonyms":{"b":"a"},"at":"2025-08-08T10:15:00Z","on":true,"on":false}`} {
		got, err := strictDec.Decode([]byte(in))
		var want strictDoc
		if jerr := json.Unmarshal([]byte(in), &want); err != nil || jerr != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, %v; encoding/json %+v, %v", in, got, err, want, jerr)
		}
	}
}

// TestStrictBounds: a hostile document lists at most MaxFieldErrors
// members, and a long name is cut.
func TestStrictBounds(t *testing.T) {
	t.Parallel()
	in := []byte(`{"fields":[` + repeat(`1`, 150) + `],"x":1}`)
	_, err := strictDec.Decode(in)
	ve, ok := errors.AsType[*ValidationError](err)
	if !ok || len(ve.Fields) != MaxFieldErrors || ve.Omitted != 51 {
		t.Fatalf("err = %v", err)
	}
	if got := ve.FieldErrors()[MaxFieldErrors]; got.Message != "has 51 more invalid members, not listed" {
		t.Errorf("last field error %+v", got)
	}
	_, err = strictDec.Decode([]byte(`{"` + longName(400) + `":1}`))
	if ve, ok := errors.AsType[*ValidationError](err); !ok || len(ve.Fields[0].Field) > maxTextPath+len("…") {
		t.Errorf("err = %v", err)
	}
}

func repeat(s string, n int) string {
	out := s
	for range n - 1 {
		out += "," + s
	}
	return out
}

func longName(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'n'
	}
	return string(b)
}

// FuzzStrict checks Strict on any input: it never panics; it fails with a
// *ValidationError naming at least one member, or returns what
// encoding/json decodes, and only for valid UTF-8 text.
func FuzzStrict(f *testing.F) {
	for _, s := range []string{`{"fields":["a"],"synonyms":{"b":"a"}}`, `{"items":[{"n":1,"m":2}],"x":null}`,
		`{"fields":["a",3],"data":{"k":[1]}}`, "{\"fields\":[\"\xff\"]}", `[]`, `{"at":"2025-08-08T10:15:00Z"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := strictDec.Decode(raw)
		if err != nil {
			ve, ok := errors.AsType[*ValidationError](err)
			if !ok || len(ve.Fields) == 0 {
				t.Fatalf("%q: error %v is not a *ValidationError naming a member", raw, err)
			}
			return
		}
		var want strictDoc
		if jerr := json.Unmarshal(raw, &want); jerr != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: %+v; encoding/json %+v, %v", raw, got, want, jerr)
		}
		if TextErrors(raw) != nil {
			t.Fatalf("%q: accepted strings that are not text", raw)
		}
	})
}
