package handler

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/triage-go/triage/fault"
)

// FuzzDecodeReport checks the report decoder on any input: it never panics;
// it returns a report or an INVALID_REQUEST fault with at least one field
// error, never both or neither; a report it returns validates, and
// survives a round trip through its own JSON.
func FuzzDecodeReport(f *testing.F) {
	f.Add([]byte(validReport))
	f.Fuzz(func(t *testing.T, raw []byte) {
		r, err := DecodeReport(raw)
		if err != nil {
			var fe *fault.Error
			if !errors.As(err, &fe) || fe.Code != fault.InvalidRequest || len(fe.FieldErrors) == 0 {
				t.Fatalf("error %v is not an INVALID_REQUEST fault with field errors", err)
			}
			if r != nil {
				t.Fatal("both a report and an error")
			}
			return
		}
		if r == nil {
			t.Fatal("neither a report nor an error")
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("a decoded report does not validate: %v", err)
		}
		again, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		r2, err := DecodeReport(again)
		if err != nil {
			t.Fatalf("the report's own JSON does not decode: %v\n%s", err, again)
		}
		if r2.AgentID != r.AgentID || !r2.Timestamp.Equal(r.Timestamp) || r2.Data.ErrorType != r.Data.ErrorType ||
			r2.Data.ErrorCode != r.Data.ErrorCode || r2.Data.Message != r.Data.Message || r2.Data.QueryID != r.Data.QueryID ||
			(r2.Data.Fault == nil) != (r.Data.Fault == nil) {
			t.Fatalf("round trip changed the report:\n%+v\n%+v", r, r2)
		}
		if Fingerprint(r) != Fingerprint(r2) {
			t.Fatal("round trip changed the fingerprint")
		}
	})
}

// FuzzOneLine holds oneLine's shortcut to what it shortcuts: any text
// comes out as strings.Fields and a join make it.
func FuzzOneLine(f *testing.F) {
	for _, s := range []string{"plain words here", " lead", "trail ", "two  spaces", "tab\there", "nbsp\u00a0x", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if isOneLine(s) && strings.Join(strings.Fields(s), " ") != s {
			t.Fatalf("%q is taken as one line, but Fields and Join make %q", s, strings.Join(strings.Fields(s), " "))
		}
	})
}
