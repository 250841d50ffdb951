package problem_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/wire/problem"
)

// FuzzParse checks the decoder's invariants on any input: Parse never
// panics and fails only for what is not a JSON object; a parsed problem
// has a type and in-range status and retry_after, encodes, and parses back
// to an equal problem; and Fault always gives a fault with a code and an
// error status, which From writes again with that code and status, and
// takes its Message from the document only under a code the table knows.
//
// The seed corpus is in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := problem.Parse(data)
		if err != nil {
			if p != nil {
				t.Fatalf("Parse returned a problem and an error: %v", err)
			}
			trimmed := bytes.TrimLeft(data, " \t\r\n")
			if json.Valid(data) && len(trimmed) > 0 && trimmed[0] == '{' {
				t.Fatalf("Parse rejected a JSON object: %v", err)
			}
			return
		}
		if p.Type == "" {
			t.Error("parsed problem has no type")
		}
		if p.Status != 0 && (p.Status < 100 || p.Status > 599) {
			t.Errorf("status %d out of range", p.Status)
		}
		if p.RetryAfter < 0 || p.RetryAfter > fault.Seconds(fault.MaxRetryAfter) {
			t.Errorf("retry_after %d out of range", p.RetryAfter)
		}

		b, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("a parsed problem does not encode: %v", err)
		}
		again, err := problem.Parse(b)
		if err != nil {
			t.Fatalf("an encoded problem does not parse: %v\n%s", err, b)
		}
		if !reflect.DeepEqual(again, p) {
			t.Fatalf("round trip changed the problem:\nfirst  %+v\nsecond %+v\nencoded %s", p, again, b)
		}

		flt := p.Fault()
		if flt == nil {
			t.Fatal("Fault() = nil")
		}
		if flt.Code == "" {
			t.Error("Fault() has no code")
		}
		if s := flt.HTTPStatus(); s < 400 || s > 599 {
			t.Errorf("Fault() status %d is not an error status", s)
		}
		if p.Code != "" && flt.Code != p.Code {
			t.Errorf("Fault() code %q, problem code %q", flt.Code, p.Code)
		}
		if flt.RetryAfter < 0 || flt.RetryAfter > fault.MaxRetryAfter {
			t.Errorf("Fault() retry after %v out of range", flt.RetryAfter)
		}
		// A peer's text is the Message only under a code the table knows.
		if !p.Code.Known() && flt.Message != fault.New(flt.Code, "").Message {
			t.Errorf("Fault() took the message %q from a document with code %q", flt.Message, p.Code)
		}
		if _, err := json.Marshal(flt); err != nil {
			t.Errorf("Fault() does not encode: %v", err)
		}
		// Relaying the fault writes the same code and status.
		relay := problem.From(flt, &problem.Options{Debug: true})
		if relay.Code != flt.Code || relay.Status != flt.HTTPStatus() {
			t.Errorf("relayed as %s %d, fault is %s %d", relay.Code, relay.Status, flt.Code, flt.HTTPStatus())
		}
		if _, err := json.Marshal(relay); err != nil {
			t.Errorf("relayed problem does not encode: %v", err)
		}
	})
}
