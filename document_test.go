package triage_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/triage-go/triage"
)

// documentReport is a report of query_engine with more data members.
func documentReport(queryID, members string) []byte {
	return []byte(`{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:05Z","status":"error",` +
		`"data":{"error_type":"query_error","error_code":"DB_TIMEOUT","message":"Query timed out after 30s",` +
		`"query_id":"` + queryID + `"` + members + `}}`)
}

// FuzzReportDocument: of any report DecodeReport takes, Document makes
// JSON text that decodes to the same report, its context the redacted
// one the handler sees.
func FuzzReportDocument(f *testing.F) {
	f.Add(documentReport("q_1", `,"context":{"row_count":48000000,"id":12345678901234567890,"api_key":"sk-proj-0123456789abcdef"}`))
	f.Add(documentReport("q_1", `,"context":{"note":"a","note":"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"},"context":{"b":[1,{"c":"password=x"}]}`))
	f.Add(documentReport("q_1", `,"context":null,"x":{"y":"<&>"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		rep, err := triage.DecodeReport(body)
		if err != nil {
			return
		}
		stored, err := rep.Document()
		if err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		if !utf8.Valid(stored) || !json.Valid(stored) {
			t.Fatalf("%q: stored %q", body, stored)
		}
		again, err := triage.DecodeReport(stored)
		if err != nil {
			t.Fatalf("%q: stored %s does not decode: %v", body, stored, err)
		}
		// The context as stored, and as the handler has it (redacted once).
		// By the members' exact names, as DecodeReport reads them
		// (encoding/json would match a struct's field "Context" to a
		// member "ConteXt" as well).
		var top, data map[string]json.RawMessage
		var context any
		if err := json.Unmarshal(stored, &top); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(top["data"], &data); err != nil {
			t.Fatal(err)
		}
		if raw, ok := data["context"]; ok {
			if err := json.Unmarshal(raw, &context); err != nil {
				t.Fatal(err)
			}
		}
		var want any
		b, _ := json.Marshal(rep.Data.Context)
		_ = json.Unmarshal(b, &want)
		if !reflect.DeepEqual(context, want) {
			t.Fatalf("%q: stored context %v, the handler's %v", body, context, want)
		}
		// The rest, as decoded again.
		rep.Data.Context, again.Data.Context = nil, nil
		w, _ := json.Marshal(rep)
		g, _ := json.Marshal(again)
		if string(g) != string(w) {
			t.Fatalf("%q: stored %s\n decodes to %s\n      want %s", body, stored, g, w)
		}
	})
}
