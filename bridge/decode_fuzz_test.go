package bridge

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/triage-go/triage/fault"
)

// FuzzDecode: a tool call's arguments either decode into the tool's input
// or are refused as INVALID_REQUEST; nothing panics, and what decodes
// satisfies the schema's bounds.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"sessionId":"abc","prompt":"hi"}`,
		`{"sessionId":"abc","prompt":"hi","metadata":{"k":[1,2,{"x":null}]}}`,
		`{"sessionId":"","prompt":"hi"}`,
		`{"sessionId":"abc"}`,
		`{"sessionId":"abc","prompt":"hi","extra":1}`,
		`{"sessionId":1,"prompt":"hi"}`,
		`[]`, `null`, ``, `{`, `"x"`, `{"sessionId":"a\u0000","prompt":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	in, err := jsonschema.For[promptIn](nil)
	if err != nil {
		f.Fatal(err)
	}
	tighten(in)
	resolved, err := in.Resolve(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got promptIn
		err := decode(json.RawMessage(data), resolved, &got)
		if err != nil {
			if fault.CodeOf(err) != fault.InvalidRequest {
				t.Fatalf("not INVALID_REQUEST: %v", err)
			}
			return
		}
		if got.SessionID == "" || len(got.SessionID) > 128*4 || got.Prompt == "" {
			t.Fatalf("decoded %+v from %q", got, data)
		}
	})
}
