package fault

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// sanitizedByJSON is what AppendSanitizedMember stands for: raw decoded
// (numbers as json.Number), SanitizeDetails on {name: value}, the value
// encoded again by encoding/json without HTML escaping.
func sanitizedByJSON(t *testing.T, name string, raw []byte) (string, bool) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	v, ok := SanitizeDetails(map[string]any{name: v})[name]
	if !ok {
		return "", false
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n"), true
}

// sanitizeSeeds are documents whose sanitizing takes each path: names
// sorted, given twice, escaped, named for a credential; strings escaped,
// not UTF-8, holding a secret, a separator, HTML; numbers as written;
// white space; nesting past the bound.
var sanitizeSeeds = []struct{ name, raw string }{
	{"context", `{"row_count":48000000,"id":12345678901234567890,"api_key":"sk-proj-0123456789abcdef","f":1.50e+3,"n":-0}`},
	{"context", ` { "b" : [ 1 , {"c":"password=hunter2"} , null, true ] , "a":"x" , "a" : "y" } `},
	{"context", `{"note":"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln","html":"<a href=\"x\">&amp;</a>","sep":"a\u2028b` + "\u2029" + `"}`},
	{"context", `{"\u0061pi_key":"x","\u00e9t\u00e9":"\ud83d\ude00","bad":"\ud800","ctl":"a\u0001\b\f\n\r\t","raw":"` + "\xff\xfe" + `"}`},
	{"context", `{"Z":1,"a":2,"É":3,"_":4,"":5,"A":{"token":"t","max_tokens":9}}`},
	{"api_key", `{"a":1}`},
	{"x-auth-token", `"v"`},
	{"fault", `{"code":"TIMEOUT","message":"token=abc at /x","details":{"headers":{"a":"b"},"url":"https://u:p@h/"}}`},
	{"list", `[[],{},"",0,[{"password":1,"k":[{"stack":"x"}]}]]`},
	{"deep", strings.Repeat(`{"a":`, 40) + `1` + strings.Repeat(`}`, 40)},
	{"deep", strings.Repeat(`[`, 34) + `"x",1` + strings.Repeat(`]`, 34)},
	{"deep", `{"k":` + strings.Repeat(`[`, 31) + `[1,[2,[3]]]` + strings.Repeat(`]`, 31) + `}`},
	{"long", `"` + strings.Repeat("é", 700) + `"`},
	{"s", `"ok"`}, {"n", `1e400`}, {"b", `false`}, {"z", `null`},
}

func TestAppendSanitizedMember(t *testing.T) {
	for _, c := range sanitizeSeeds {
		want, wantKept := sanitizedByJSON(t, c.name, []byte(c.raw))
		var b bytes.Buffer
		b.WriteString("prefix")
		kept, err := AppendSanitizedMember(&b, c.name, []byte(c.raw))
		if err != nil {
			t.Fatalf("%s %q: %v", c.name, c.raw, err)
		}
		got, _ := strings.CutPrefix(b.String(), "prefix")
		if kept != wantKept || got != want {
			t.Errorf("%s %q:\n got %t %s\nwant %t %s", c.name, c.raw, kept, got, wantKept, want)
		}
	}
	var b bytes.Buffer
	if _, err := AppendSanitizedMember(&b, "context", []byte(`{"a":`)); err == nil || b.Len() != 0 {
		t.Errorf("invalid JSON: %v, wrote %q", err, b.String())
	}
}

// FuzzAppendSanitizedMember: for any valid JSON value, the bytes
// encoding/json makes of it decoded and sanitized.
func FuzzAppendSanitizedMember(f *testing.F) {
	for _, c := range sanitizeSeeds {
		f.Add(c.name, []byte(c.raw))
	}
	f.Fuzz(func(t *testing.T, name string, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		want, wantKept := sanitizedByJSON(t, name, raw)
		var b bytes.Buffer
		kept, err := AppendSanitizedMember(&b, name, raw)
		if err != nil || kept != wantKept || b.String() != want {
			t.Fatalf("%q %q:\n got %t %s (%v)\nwant %t %s", name, raw, kept, b.String(), err, wantKept, want)
		}
	})
}

// redactedSecret is registered by the AppendRedactedString tests: text
// that holds it is not plain for Redact whatever else it holds.
const redactedSecret = "appendredacted-0f3a9c"

var redactedStringSeeds = []string{
	`""`, `"sales"`, `"2015-01-01"`, `"héllo wörld"`, `"a\"b"`, `"a\\nb"`, `"tab\there"`,
	`"\u2028"`, "\"\u2028\"", "\"\u2029x\"", `"\ud800"`, "\"\xff\"", `"<&>"`,
	`"api_key=abc123"`, `"Bearer abcdef"`, `"token"`, `"https://u:p@host/x"`,
	`"line\n    at foo (x.js:1:2)"`, `"x\n  at y"`, `"at home"`, `"` + redactedSecret + `"`, `"pre ` + redactedSecret + ` post"`,
}

// TestAppendRedactedString: raw as it is only where AppendJSONString of the
// redacted text would write it, a registered secret included.
func TestAppendRedactedString(t *testing.T) {
	RegisterSecret(redactedSecret)
	long := `"` + strings.Repeat("a", maxRedactedLen+1) + `"`
	for _, raw := range append(redactedStringSeeds, long) {
		checkRedactedString(t, []byte(raw))
	}
	var b bytes.Buffer
	AppendRedactedString(&b, []byte(`"pre `+redactedSecret+` post"`))
	if strings.Contains(b.String(), redactedSecret) {
		t.Errorf("registered secret kept: %s", b.String())
	}
}

// FuzzAppendRedactedString: for any JSON string, what AppendJSONString
// writes of its text decoded and redacted.
func FuzzAppendRedactedString(f *testing.F) {
	RegisterSecret(redactedSecret)
	for _, raw := range redactedStringSeeds {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		raw = bytes.TrimSpace(raw)
		if !json.Valid(raw) || len(raw) < 2 || raw[0] != '"' {
			return
		}
		checkRedactedString(t, raw)
	})
}

func checkRedactedString(t *testing.T, raw []byte) {
	t.Helper()
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	var want, got bytes.Buffer
	AppendJSONString(&want, Redact(s))
	AppendRedactedString(&got, raw)
	if got.String() != want.String() {
		t.Errorf("%q:\n got %s\nwant %s", raw, got.String(), want.String())
	}
}
