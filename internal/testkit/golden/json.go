package golden

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// Marshal returns v as JSON, failing the test when it does not encode.
func Marshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Indent returns v as JSON indented by two spaces and ending in a newline,
// as golden files hold it, failing the test when it does not encode.
func Indent(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// SameJSON reports whether two documents hold the same JSON value, numbers
// compared by their text. Two empty documents are the same; an empty and a
// non-empty one, or an invalid one, are not.
func SameJSON(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	va, errA := decode(a)
	vb, errB := decode(b)
	return errA == nil && errB == nil && reflect.DeepEqual(va, vb)
}

func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}
