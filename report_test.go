package triage

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/triage-go/triage/fault"
)

// validReport is seed 004's database timeout, as testdata/report.json
// has it: the handler's tests use the same file.
var validReport = func() string {
	b, err := os.ReadFile("testdata/report.json")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

func TestDecodeReportValid(t *testing.T) {
	r, err := DecodeReport([]byte(validReport))
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2025, 8, 8, 12, 20, 5, 0, time.UTC)
	if r.AgentID != "query_engine" || !r.Timestamp.Equal(want) || r.Status != "error" ||
		r.Data.ErrorType != QueryError || r.Data.ErrorCode != "DB_TIMEOUT" || r.Data.QueryID != "q_456" ||
		r.Data.Message != "Query timed out after 30s" || r.Data.Context["row_count"] != 48000000.0 {
		t.Fatalf("decoded %+v", r)
	}
	if err := r.Validate(); err != nil {
		t.Fatalf("a decoded report does not validate: %v", err)
	}
}

func TestDecodeReportFault(t *testing.T) {
	f := fault.New(fault.RateLimited, "Slow down.", fault.WithRetryAfter(20*time.Second))
	fj, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	raw := `{"agent_id":"a","timestamp":"2025-08-08T12:20:05Z","status":"error","data":{"message":"m","query_id":"q","fault":` + string(fj) + `}}`
	r, err := DecodeReport([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if r.Data.Fault == nil || r.Data.Fault.Code != fault.RateLimited || r.Data.Fault.RetryAfter != 20*time.Second {
		t.Fatalf("fault = %+v", r.Data.Fault)
	}
}

// fieldsOf returns the field errors of an INVALID_REQUEST fault as
// "field: message" lines.
func fieldsOf(t *testing.T, err error) []string {
	t.Helper()
	var f *fault.Error
	if !errors.As(err, &f) || f.Code != fault.InvalidRequest {
		t.Fatalf("error %v is not an INVALID_REQUEST fault", err)
	}
	var out []string
	for _, fe := range f.FieldErrors {
		out = append(out, fe.Field+": "+fe.Message)
	}
	return out
}

func TestDecodeReportRules(t *testing.T) {
	// Each case changes the valid report and lists every field error the
	// change must produce, exactly.
	cases := []struct {
		name string
		edit func(m map[string]any)
		raw  string // instead of edit
		want []string
	}{
		{name: "not an object", raw: `[1,2]`, want: []string{"(root): must be an object, got array"}},
		{name: "not JSON", raw: `{"agent_id":`, want: []string{"(root): invalid JSON"}},
		{name: "empty object", raw: `{}`, want: []string{
			"agent_id: is required", "timestamp: is required", "status: is required", "data: is required"}},
		{name: "agent_id missing", edit: func(m map[string]any) { delete(m, "agent_id") }, want: []string{"agent_id: is required"}},
		{name: "agent_id not a string", edit: func(m map[string]any) { m["agent_id"] = 7 }, want: []string{"agent_id: must be a string, got number"}},
		{name: "agent_id malformed", edit: func(m map[string]any) { m["agent_id"] = "query engine" }, want: []string{
			"agent_id: must be 1 to 128 letters, digits, '_', '-', '.' or ':', starting with a letter or digit"}},
		{name: "timestamp not RFC 3339", edit: func(m map[string]any) { m["timestamp"] = "08/08/2025 12:20" }, want: []string{
			"timestamp: must be an RFC 3339 date and time, such as 2025-08-08T12:01:00Z"}},
		{name: "timestamp without zone", edit: func(m map[string]any) { m["timestamp"] = "2025-08-08T12:20:05" }, want: []string{
			"timestamp: must be an RFC 3339 date and time, such as 2025-08-08T12:01:00Z"}},
		{name: "status not error", edit: func(m map[string]any) { m["status"] = "ok" }, want: []string{`status: must be "error", got "ok"`}},
		{name: "data not an object", edit: func(m map[string]any) { m["data"] = "x" }, want: []string{"data: must be an object, got string"}},
		{name: "error_type unknown", edit: func(m map[string]any) { data(m)["error_type"] = "db_error" }, want: []string{
			`data.error_type: unknown type "db_error"; allowed: input_error, schema_error, query_error, chart_error, system_error, validation_error, unknown`}},
		{name: "error_type not a string", edit: func(m map[string]any) { data(m)["error_type"] = true }, want: []string{
			"data.error_type: must be a string, got boolean"}},
		{name: "error_code malformed", edit: func(m map[string]any) { data(m)["error_code"] = "DB TIMEOUT" }, want: []string{
			"data.error_code: must be 1 to 128 letters, digits, '_', '-', '.' or ':', starting with a letter or digit"}},
		{name: "message missing", edit: func(m map[string]any) { delete(data(m), "message") }, want: []string{"data.message: is required"}},
		{name: "message blank", edit: func(m map[string]any) { data(m)["message"] = "  " }, want: []string{"data.message: is required"}},
		{name: "message too long", edit: func(m map[string]any) { data(m)["message"] = strings.Repeat("x", MaxMessage+1) }, want: []string{
			"data.message: is 8193 bytes; at most 8192"}},
		{name: "query_id missing", edit: func(m map[string]any) { delete(data(m), "query_id") }, want: []string{"data.query_id: is required"}},
		{name: "query_id malformed", edit: func(m map[string]any) { data(m)["query_id"] = "q/456" }, want: []string{
			"data.query_id: must be 1 to 128 letters, digits, '_', '-', '.' or ':', starting with a letter or digit"}},
		{name: "query_id too long", edit: func(m map[string]any) { data(m)["query_id"] = strings.Repeat("q", 129) }, want: []string{
			"data.query_id: must be 1 to 128 letters, digits, '_', '-', '.' or ':', starting with a letter or digit"}},
		{name: "context not an object", edit: func(m map[string]any) { data(m)["context"] = []int{1} }, want: []string{
			"data.context: must be an object, got array"}},
		{name: "fault not an object", edit: func(m map[string]any) { data(m)["fault"] = "RATE_LIMITED" }, want: []string{
			"data.fault: must be a Triage fault (an object), got string"}},
		{name: "environment malformed", edit: func(m map[string]any) { m["environment"] = "prod east" }, want: []string{
			"environment: must be 1 to 64 letters, digits, '_', '-', '.' or ':', starting with a letter or digit"}},
		{name: "environment too long", edit: func(m map[string]any) { m["environment"] = strings.Repeat("e", 65) }, want: []string{
			"environment: must be 1 to 64 letters, digits, '_', '-', '.' or ':', starting with a letter or digit"}},
		{name: "release with a slash", edit: func(m map[string]any) { m["release"] = "main/1.4" }, want: []string{
			"release: must hold no spaces, control characters or slashes"}},
		{name: "release dot", edit: func(m map[string]any) { m["release"] = ".." }, want: []string{`release: must name a release, not ".."`}},
		{name: "release too long", edit: func(m map[string]any) { m["release"] = strings.Repeat("r", 201) }, want: []string{
			"release: is 201 bytes; at most 200"}},
		{name: "release not a string", edit: func(m map[string]any) { m["release"] = 1.4 }, want: []string{"release: must be a string, got number"}},
		{name: "tags not an object", edit: func(m map[string]any) { m["tags"] = []string{"a"} }, want: []string{"tags: must be an object, got array"}},
		{name: "tags at fault", edit: func(m map[string]any) {
			m["tags"] = map[string]any{"region": "eu", "bad name": "x", "empty": "", "n": 3, "long": strings.Repeat("v", 201)}
		}, want: []string{
			"tags.n: must be a string, got number",
			`tags: the name "bad name" must be 1 to 32 letters, digits, '_', '-', '.' or ':', starting with a letter or digit`,
			"tags.empty: must be 1 to 200 bytes",
			"tags.long: must be 1 to 200 bytes"}},
		{name: "too many tags", edit: func(m map[string]any) {
			tags := map[string]any{}
			for i := range MaxTags + 1 {
				tags[fmt.Sprintf("t%02d", i)] = "v"
			}
			m["tags"] = tags
		}, want: []string{"tags: has 51 tags; at most 50"}},
		{name: "every problem at once", edit: func(m map[string]any) {
			m["timestamp"] = "yesterday"
			m["status"] = "failed"
			data(m)["error_type"] = "oops"
			delete(data(m), "query_id")
		}, want: []string{
			"timestamp: must be an RFC 3339 date and time, such as 2025-08-08T12:01:00Z",
			`status: must be "error", got "failed"`,
			`data.error_type: unknown type "oops"; allowed: input_error, schema_error, query_error, chart_error, system_error, validation_error, unknown`,
			"data.query_id: is required"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := []byte(c.raw)
			if c.edit != nil {
				var m map[string]any
				if err := json.Unmarshal([]byte(validReport), &m); err != nil {
					t.Fatal(err)
				}
				c.edit(m)
				var err error
				if raw, err = json.Marshal(m); err != nil {
					t.Fatal(err)
				}
			}
			r, err := DecodeReport(raw)
			if r != nil {
				t.Errorf("an invalid report decoded to %+v", r)
			}
			got := fieldsOf(t, err)
			for i := range got {
				// A JSON syntax error's text says where; the rule is
				// that it is reported as invalid JSON.
				if strings.HasPrefix(got[i], "(root): invalid JSON") {
					got[i] = "(root): invalid JSON"
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("field errors:\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

func data(m map[string]any) map[string]any { return m["data"].(map[string]any) }

func TestErrorTypeUnknownAndAbsentAccepted(t *testing.T) {
	for _, et := range []string{`"unknown"`, `null`, `""`} {
		raw := strings.Replace(validReport, `"query_error"`, et, 1)
		if _, err := DecodeReport([]byte(raw)); err != nil {
			t.Errorf("error_type %s: %v", et, err)
		}
	}
}

func TestValidateInCode(t *testing.T) {
	r := &Report{AgentID: "a b", Status: "error", Data: Data{Message: "m", QueryID: "q1", ErrorType: "nope"}}
	got := fieldsOf(t, r.Validate())
	want := []string{
		"agent_id: must be 1 to 128 letters, digits, '_', '-', '.' or ':', starting with a letter or digit",
		"timestamp: is required",
		`data.error_type: unknown type "nope"; allowed: input_error, schema_error, query_error, chart_error, system_error, validation_error, unknown`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("field errors:\n got %q\nwant %q", got, want)
	}
	if got := fieldsOf(t, (*Report)(nil).Validate()); !slices.Equal(got, []string{"(root): is required"}) {
		t.Errorf("nil report: %q", got)
	}
}

// FuzzDecodeReport checks the report decoder on any input: it never panics;
// it returns a report or an INVALID_REQUEST fault with at least one field
// error, never both or neither; a report it returns validates, holds only
// UTF-8 text, and survives a round trip through its own JSON.
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
		if !utf8.ValidString(r.Data.Message) {
			t.Fatalf("a decoded message is not UTF-8: %q", r.Data.Message)
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
			(r2.Data.Fault == nil) != (r.Data.Fault == nil) || r2.Environment != r.Environment || r2.Release != r.Release || !maps.Equal(r2.Tags, r.Tags) {
			t.Fatalf("round trip changed the report:\n%+v\n%+v", r, r2)
		}
		if Fingerprint(r) != Fingerprint(r2) {
			t.Fatal("round trip changed the fingerprint")
		}
	})
}

// A report's environment, release and tags decode; a tag's value is
// redacted as the context is, in the report and in its stored document,
// and a tag named for a credential is dropped.
func TestDecodeReportEnvironmentReleaseTags(t *testing.T) {
	var m map[string]any
	if err := json.Unmarshal([]byte(validReport), &m); err != nil {
		t.Fatal(err)
	}
	m["environment"] = "production"
	m["release"] = "planner@1.4.0+9f2c1e"
	m["tags"] = map[string]any{"region": "eu-west-1", "note": "key sk-live-4eC39HqLyjWDarjtT1zdp7dc", "api_key": "sk-live-4eC39HqLyjWDarjtT1zdp7dc"}
	raw, _ := json.Marshal(m)
	r, err := DecodeReport(raw)
	if err != nil {
		t.Fatal(err)
	}
	if r.Environment != "production" || r.Release != "planner@1.4.0+9f2c1e" || r.Tags["region"] != "eu-west-1" {
		t.Errorf("decoded %q %q %v", r.Environment, r.Release, r.Tags)
	}
	if _, ok := r.Tags["api_key"]; ok || strings.Contains(r.Tags["note"], "4eC39") {
		t.Errorf("tags not redacted: %v", r.Tags)
	}
	doc, err := r.Document()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(doc), "4eC39") || !strings.Contains(string(doc), `"release":"planner@1.4.0+9f2c1e"`) || !strings.Contains(string(doc), `"region":"eu-west-1"`) {
		t.Errorf("document %s", doc)
	}
	if err := r.Validate(); err != nil {
		t.Errorf("a decoded report does not validate: %v", err)
	}
}
