package triage

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonmember"
)

// documentByMaps is Document as it was written before it wrote its
// members itself: every member in a map, the redacted ones decoded,
// redacted and encoded again by encoding/json. Document must make the
// same bytes (the stored reports of both are one format).
func documentByMaps(r *Report) (json.RawMessage, error) {
	data := maps.Clone(r.dataMembers)
	if err := redactMembersByMaps(data, func(name string) bool {
		return name == "context" || name == "fault" || !slices.Contains(dataMemberNames, name)
	}); err != nil {
		return nil, err
	}
	if raw, ok := data["message"]; ok {
		var msg string
		if json.Unmarshal(raw, &msg) == nil {
			doc, err := MarshalDocument(fault.Redact(msg))
			if err != nil {
				return nil, err
			}
			data["message"] = doc
		}
	}
	top := maps.Clone(r.members)
	doc, err := MarshalDocument(data)
	if err != nil {
		return nil, err
	}
	top["data"] = doc
	if err := redactMembersByMaps(top, func(name string) bool { return !slices.Contains(reportMemberNames, name) }); err != nil {
		return nil, err
	}
	return MarshalDocument(top)
}

func redactMembersByMaps(obj map[string]json.RawMessage, which func(string) bool) error {
	picked := map[string]any{}
	for name, raw := range obj {
		if !which(name) || jsonmember.IsNull(raw) {
			continue
		}
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			return err
		}
		picked[name] = v
		delete(obj, name)
	}
	if len(picked) == 0 {
		return nil
	}
	for name, v := range RedactContext(picked) {
		doc, err := MarshalDocument(v)
		if err != nil {
			return err
		}
		obj[name] = doc
	}
	return nil
}

// documentSeeds are reports whose documents take each path: members the
// format does not name (at the top and in data, one named for a
// credential), nulls, a context and a fault to redact, a message with a
// secret and escapes, names escaped and given twice, white space.
var documentSeeds = []string{
	`{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:05Z","status":"error","data":{"error_type":"query_error","error_code":"DB_TIMEOUT","message":"Query timed out after 30s","context":{"metric":"sales","group_by":"month","date_range":{"start":"2015-01-01","end":"2025-08-01"},"row_count":48000000},"query_id":"q_1"}}`,
	` { "agent_id" : "a" , "timestamp":"2025-08-08T12:20:05.5+02:00", "status":"error", "environment":"prod","release":"1.2.3",
	  "tags":{"team":"x","password":"p"}, "api_key":"k", "extra":[1,"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"],
	  "data":{ "message":"token=abc123 failed \u003c\u2028 \"q\"", "query_id":"q_2", "context":null, "fault":{"code":"TIMEOUT","message":"m","details":{"headers":{"a":"b"}}},
	  "z":{"secret":1,"ok":1.50}, "x-api-key":"k", "\u0063ontext2":"<&>" } }`,
	`{"agent_id":"a","timestamp":"2025-08-08T12:20:05Z","status":"error","data":{"message":"m","query_id":"q","context":{"b":1,"b":2,"a":{}},"context":{"n":12345678901234567890}},"data":{"message":"m2","query_id":"q"}}`,
}

func TestDocumentAsByMaps(t *testing.T) {
	for _, body := range documentSeeds {
		if _, err := DecodeReport([]byte(body)); err != nil {
			t.Fatalf("seed %q: %v", body, err)
		}
		checkDocumentAsByMaps(t, []byte(body))
	}
}

// FuzzDocumentAsByMaps: of any report DecodeReport takes, Document makes
// the bytes it made when it encoded maps.
func FuzzDocumentAsByMaps(f *testing.F) {
	for _, body := range documentSeeds {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkDocumentAsByMaps(t, body) })
}

func checkDocumentAsByMaps(t *testing.T, body []byte) {
	t.Helper()
	rep, err := DecodeReport(body)
	if err != nil {
		return
	}
	got, err := rep.Document()
	if err != nil {
		t.Fatalf("%q: %v", body, err)
	}
	want, err := documentByMaps(rep)
	if err != nil {
		t.Fatalf("%q: by maps: %v", body, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%q:\n got %s\nwant %s", body, got, want)
	}
}

// BenchmarkDocument is a stored report's document, cmd/loadbench's
// report: written member by member (Document), and as it was, through
// maps (by_maps).
//
//	go test . -run '^$' -bench BenchmarkDocument -benchmem
func BenchmarkDocument(b *testing.B) {
	rep, err := DecodeReport([]byte(documentSeeds[0]))
	if err != nil {
		b.Fatal(err)
	}
	for _, way := range []struct {
		name string
		doc  func(*Report) (json.RawMessage, error)
	}{{"members", (*Report).Document}, {"by_maps", documentByMaps}} {
		b.Run(way.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := way.doc(rep); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
