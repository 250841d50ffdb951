package jsonmember

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/triage-go/triage/fault"
)

func TestValidationErrorText(t *testing.T) {
	t.Parallel()
	cause := errors.New("boom")
	tests := []struct {
		name string
		err  *ValidationError
		want string
	}{
		{"Full", &ValidationError{Package: "present", Fields: []fault.FieldError{{Field: "p.seq", Message: "out of range"}}, Err: cause},
			`present: member "p.seq": out of range: boom`},
		{"NoPackage", &ValidationError{Fields: []fault.FieldError{{Field: "id", Message: "is required"}}}, `member "id": is required`},
		{"List", &ValidationError{Package: "agui", Subject: "RunAgentInput", Err: cause, Omitted: 2, Fields: []fault.FieldError{
			{Field: "(root)", Message: "is not valid UTF-8"}, {Field: "a", Message: "is required"},
			{Field: "b[0]", Message: "must be a string, not a number"}, {Field: "c", Message: "is required"}}},
			`agui: invalid RunAgentInput: the document is not valid UTF-8; member "a" is required; member "b[0]" must be a string, not a number (and 3 more)`},
		{"Root", Decoder{Package: "jsonrpc"}.Invalid("", "a response needs %s", "result or error"),
			"jsonrpc: a response needs result or error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestValidationErrorIsInvalidRequest(t *testing.T) {
	t.Parallel()
	err := Decoder{Package: "x"}.Wrap("", "invalid JSON", errors.New("eof"))
	f := fault.From(err)
	want := []fault.FieldError{{Field: "(root)", Message: "invalid JSON"}}
	if f.Code != fault.InvalidRequest || !reflect.DeepEqual(f.FieldErrors, want) {
		t.Errorf("fault.From = %s %v, want INVALID_REQUEST %v", f.Code, f.FieldErrors, want)
	}
	if errors.Unwrap(err).Error() != "eof" {
		t.Errorf("Unwrap = %v", errors.Unwrap(err))
	}
}

// TestErrors: a collector lists MaxFieldErrors members, counts the rest,
// and its error matches the sentinel it is given.
func TestErrors(t *testing.T) {
	t.Parallel()
	var c Errors
	if c.Err("x", "Doc", nil) != nil {
		t.Fatal("an empty collector made an error")
	}
	sentinel := errors.New("x: invalid Doc")
	for range MaxFieldErrors + 5 {
		c.Add("", "is %s", "wrong")
	}
	err := c.Err("x", "Doc", sentinel)
	var ve *ValidationError
	if !errors.As(err, &ve) || !errors.Is(err, sentinel) || c.Len() != MaxFieldErrors+5 {
		t.Fatalf("err = %v, Len = %d", err, c.Len())
	}
	got := ve.FieldErrors()
	if len(got) != MaxFieldErrors+1 || got[0] != (fault.FieldError{Field: "(root)", Message: "is wrong"}) ||
		got[MaxFieldErrors].Message != "has 5 more invalid members, not listed" {
		t.Errorf("FieldErrors = %v … %v", got[0], got[len(got)-1])
	}
}

func TestInt(t *testing.T) {
	t.Parallel()
	dec := Decoder{}
	for in, want := range map[string]int64{"429": 429, "429.0": 429, "-9007199254740991": -MaxSafeInteger} {
		if got, err := dec.Int(json.RawMessage(in), "n"); err != nil || got != want {
			t.Errorf("Int(%s) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"1.5", "9007199254740992", "1e400", `"1"`, "null", ""} {
		if _, err := dec.Int(json.RawMessage(in), "n"); err == nil {
			t.Errorf("Int(%s) succeeded", in)
		}
	}
}

func TestSafeDetails(t *testing.T) {
	t.Parallel()
	if got := SafeDetails(nil); got == nil || len(got) != 0 {
		t.Errorf("SafeDetails(nil) = %#v, want an empty map", got)
	}
	got := SafeDetails(map[string]any{
		"n":        60,
		"password": "hunter2",
		"bad":      json.Number("not a number"),
		"creds":    struct{ User, Password string }{"ann", "x"},
	})
	want := map[string]any{"n": json.Number("60"), "creds": map[string]any{"User": "ann"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SafeDetails = %#v, want %#v", got, want)
	}
}

func TestPeerCause(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ text, cause, want string }{
		{"", "", ""},
		{"peer said x", "", "peer said x"},
		{"", "Bearer abcdefgh", "Bearer [REDACTED]"},
		{"boom", "token=abc", "boom: token=[REDACTED]"},
	} {
		if got := PeerCause(c.text, c.cause); got != c.want {
			t.Errorf("PeerCause(%q, %q) = %q, want %q", c.text, c.cause, got, c.want)
		}
	}
}

// FuzzString checks the decoder's shortcut for plain strings against
// encoding/json: any JSON string decodes to the same text either way.
func FuzzString(f *testing.F) {
	for _, s := range []string{`"plain"`, `"esc\"aped"`, `"\u00e9t\u00e9"`, "\"caf\xc3\xa9\"", "\"bad\xff\"", `""`, "\"tab\there\""} {
		f.Add([]byte(s))
	}
	d := Decoder{Package: "test"}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want string
		wantErr := json.Unmarshal(raw, &want)
		got, err := d.String(raw, "s")
		if wantErr != nil || Kind(raw) != "string" {
			if err == nil && wantErr != nil {
				t.Fatalf("%q: decoded %q, encoding/json says %v", raw, got, wantErr)
			}
			return
		}
		if err != nil || got != want {
			t.Fatalf("%q: got %q, %v; encoding/json %q", raw, got, err, want)
		}
	})
}

// FuzzMembers checks Object's splitter against encoding/json: any JSON
// object splits into the same members with the same raw values (as JSON:
// encoding/json keeps the values' bytes too), and Object refuses what
// encoding/json refuses.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, ` { "a" : 1 , "b":[1,{"c":"]}"}], "a":null } `, `{"k\u00e9y":"v\"q\\"}`,
		"{\"bad\xff\":true}", `{"a":{"b":{"c":[[],{}]}},"n":-1.5e3}`, `{"a":1,}`, `[1]`, `{"a":"x"} x`} {
		f.Add([]byte(s))
	}
	d := Decoder{Package: "test"}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want map[string]json.RawMessage
		wantErr := json.Unmarshal(raw, &want)
		got, err := d.Object(raw, "")
		if wantErr != nil || Kind(raw) != "object" {
			if err == nil {
				t.Fatalf("%q: split into %v, encoding/json says %v", raw, got, wantErr)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d members, encoding/json %d", raw, len(got), len(want))
		}
		for k, w := range want {
			g, ok := got[k]
			if !ok || !bytes.Equal(g, w) {
				t.Fatalf("%q: member %q = %q, encoding/json %q", raw, k, g, w)
			}
			// The member variants, which trust that a member of a valid
			// document is valid, answer as their validating twins do.
			sub, subErr := d.Object(g, k)
			subM, subMErr := d.ObjectOfMember(g, k)
			if (subErr != nil) != (subMErr != nil) || len(sub) != len(subM) {
				t.Fatalf("%q: member %q: Object %v, %v; ObjectOfMember %v, %v", raw, k, sub, subErr, subM, subMErr)
			}
			for sk, sv := range sub {
				if !bytes.Equal(subM[sk], sv) {
					t.Fatalf("%q: member %q.%q: Object %q, ObjectOfMember %q", raw, k, sk, sv, subM[sk])
				}
			}
			v, vErr := Value(g)
			vM, vMErr := ValueOfMember(g)
			if (vErr != nil) != (vMErr != nil) || !reflect.DeepEqual(v, vM) {
				t.Fatalf("%q: member %q: Value %#v, %v; ValueOfMember %#v, %v", raw, k, v, vErr, vM, vMErr)
			}
		}
	})
}

// FuzzValue holds Value to encoding/json: any input decodes to the same
// value, or fails in both.
func FuzzValue(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,-0,"x\"y",true,false,null,{}],"b":{"c":[]}}`, `"caf\u00e9"`, `1e400`,
		` [ ] `, `{"a":1,"a":2}`, "\"bad\xff\"", `{"k":`, `-`, `0.1e-7`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want any
		wantErr := json.Unmarshal(raw, &want)
		got, err := Value(raw)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, encoding/json %v", raw, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: %#v, encoding/json %#v", raw, got, want)
		}
	})
}

// FuzzItems holds ItemsOfMember and StringOfMember to encoding/json, on
// the members of any valid JSON object: an array splits into the same
// items (their bytes as they are), a string decodes to the same text, and
// a value of another type is refused by both.
func FuzzItems(f *testing.F) {
	for _, s := range []string{`{"a":[]}`, `{"a":[ 1 , "x]" , {"b":[2]} , null ]}`, `{"a":"plain","b":"esc\u00e9\n"}`,
		"{\"a\":\"bad\xff\"}", `{"a":{"b":1},"c":true,"d":-0.5}`, `{"a":[[],[[]],{}]}`, `{"a":"\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return
		}
		for k, v := range m {
			var wantItems []json.RawMessage
			wantErr := json.Unmarshal(v, &wantItems)
			got, err := ItemsOfMember(v)
			if (err != nil) != (wantErr != nil || Kind(v) != "array") {
				t.Fatalf("%q: member %q: ItemsOfMember %v; encoding/json %v", raw, k, err, wantErr)
			}
			if err == nil && !reflect.DeepEqual(got, wantItems) {
				t.Fatalf("%q: member %q: items %q; encoding/json %q", raw, k, got, wantItems)
			}
			var wantS string
			wantErr = json.Unmarshal(v, &wantS)
			s, ok := StringOfMember(v)
			if ok != (wantErr == nil && Kind(v) == "string") || s != wantS {
				t.Fatalf("%q: member %q: StringOfMember %q, %v; encoding/json %q, %v", raw, k, s, ok, wantS, wantErr)
			}
		}
	})
}
