package jsonmember

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func fieldList(data []byte) []string {
	var out []string
	for _, fe := range TextErrors(data) {
		out = append(out, fe.Field)
	}
	return out
}

func TestTextErrors(t *testing.T) {
	for _, c := range []struct {
		doc  string
		want []string
	}{
		{`{"a":"plain","b":[1,"x",{"c":null}],"d":"caf\u00e9 \ud83d\ude00 😀 \\ud800"}`, nil},
		{`"` + "\xff" + `"`, []string{"(root)"}},
		{`{"a":"x` + "\xff\xfe" + `"}`, []string{"a"}},
		{`{"a":{"b":["ok","` + "\xc3\x28" + `"]}}`, []string{"a.b[1]"}},
		{`{"k` + "\x80" + `":1}`, []string{"k\uFFFD"}},
		{`{"a":"\ud800"}`, []string{"a"}},
		{`{"a":"\uDFFF"}`, []string{"a"}},
		{`{"a":"\ud800\u0041"}`, []string{"a"}},
		{`{"a":"\udc00\ud800"}`, []string{"a"}},
		{`{"a":"x\ud83d"}`, []string{"a"}},
		{`{"a":"\ud83d\ude00\ud83d"}`, []string{"a"}},
		{`{"a":"\\\ud800"}`, []string{"a"}}, // an escaped backslash, then the escape
		{`{"a":"\\ud800"}`, nil},            // an escaped backslash, then text
		{`[{"x":"` + "\xff" + `"},{"y":"\ud800"}]`, []string{"[0].x", "[1].y"}},
		{` { "a" : [ "` + "\xff" + `" , 2 ] } `, []string{"a[0]"}},
	} {
		if got := fieldList([]byte(c.doc)); !slices.Equal(got, c.want) {
			t.Errorf("%q: %q, want %q", c.doc, got, c.want)
		}
	}
	errs := TextErrors([]byte(`{"a":"\ud800"}`))
	if len(errs) != 1 || !strings.Contains(errs[0].Message, `\ud800`) {
		t.Errorf("surrogate message: %+v", errs)
	}
	if errs := TextErrors([]byte(`{"a":"` + "\xff" + `"}`)); len(errs) != 1 || errs[0].Message != "is not valid UTF-8" {
		t.Errorf("UTF-8 message: %+v", errs)
	}
}

func TestTextErrorsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 100 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\"\xff\"")
	}
	b.WriteString("]")
	errs := TextErrors([]byte(b.String()))
	if len(errs) != MaxTextErrors+1 || errs[MaxTextErrors].Field != "(root)" ||
		!strings.Contains(errs[MaxTextErrors].Message, fmt.Sprint(100-MaxTextErrors)) {
		t.Errorf("%d errors, the last %+v", len(errs), errs[len(errs)-1])
	}
}

// TestTextErrorsLongPaths: a path is cut at 256 bytes, on a rune, however
// long the names and deep the nesting, and the walk stays linear.
func TestTextErrorsLongPaths(t *testing.T) {
	name := strings.Repeat("é", 300)
	var b strings.Builder
	const depth = 2000
	for range depth {
		b.WriteString(`{"` + name + `":`)
	}
	b.WriteString("\"\xff\"")
	b.WriteString(strings.Repeat("}", depth))
	doc := []byte(b.String())
	if !json.Valid(doc) {
		t.Fatal("not JSON")
	}
	start := time.Now()
	errs := TextErrors(doc)
	if len(errs) != 1 || len(errs[0].Field) > 256+len("…") || !utf8.ValidString(errs[0].Field) ||
		!strings.HasPrefix(errs[0].Field, "éé") || !strings.HasSuffix(errs[0].Field, "…") {
		t.Fatalf("%d errors: %q", len(errs), errs)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}

// FuzzTextErrors holds TextErrors to encoding/json on any valid document:
// it never panics; a document that is not UTF-8 has an error; a document
// it passes decodes with encoding/json without a replacement character
// that the document did not hold; every path it names is text.
func FuzzTextErrors(f *testing.F) {
	for _, s := range []string{`{"a":"b"}`, `{"a":["` + "\xff" + `",{"b":"\ud800"}]}`, `"\ud83d\ude00"`, `"\\ud800"`,
		`{"k` + "\xfe" + `":"\udc00"}`, `[1,true,null,"\ufffd","` + "\xef\xbf\xbd" + `"]`, `"\uD800\uDC00"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		errs := TextErrors(data)
		if !utf8.Valid(data) && len(errs) == 0 {
			t.Fatalf("%q: not UTF-8, no error", data)
		}
		for _, fe := range errs {
			if fe.Field == "" || !utf8.ValidString(fe.Field) || fe.Message == "" {
				t.Fatalf("%q: field error %+v", data, fe)
			}
		}
		if len(errs) > 0 {
			return
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber() // a number beyond float64 is valid JSON
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		held := strings.Count(string(data), "\uFFFD") + strings.Count(strings.ToLower(string(data)), `\ufffd`)
		if got := replacements(v); got > held {
			t.Fatalf("%q: passed, but encoding/json made %d replacement characters of it (it held %d)", data, got, held)
		}
	})
}

// replacements counts the U+FFFD in a decoded value's strings and names.
func replacements(v any) int {
	switch x := v.(type) {
	case string:
		return strings.Count(x, "\uFFFD")
	case []any:
		n := 0
		for _, e := range x {
			n += replacements(e)
		}
		return n
	case map[string]any:
		n := 0
		for k, e := range x {
			n += strings.Count(k, "\uFFFD") + replacements(e)
		}
		return n
	}
	return 0
}
