package triage

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
)

// withContext is the valid report with its context replaced by raw JSON,
// which may hold any bytes.
func withContext(raw string) []byte {
	return []byte(strings.Replace(validReport,
		`{"date_range": {"start": "2020-01-01", "end": "2025-08-01"}, "row_count": 48000000}`, raw, 1))
}

// TestDecodeReportText: every string of a report is Unicode text, or the
// report is refused naming each member that is not; nothing is replaced
// with U+FFFD in silence.
func TestDecodeReportText(t *testing.T) {
	for _, c := range []struct {
		name string
		raw  []byte
		want []string
	}{
		{"bytes in context", withContext(`{"note":"a` + "\xff\xfe" + `b"}`), []string{"data.context.note: is not valid UTF-8"}},
		{"bytes deep in context", withContext(`{"rows":[1,{"n":"` + "\xc3\x28" + `"}]}`), []string{"data.context.rows[1].n: is not valid UTF-8"}},
		{"bytes in a name", withContext(`{"k` + "\x80" + `":1}`), []string{"data.context.k\uFFFD: has a name that is not valid UTF-8"}},
		{"bytes in message", []byte(strings.Replace(validReport, "after 30s", "after \xff30s", 1)), []string{"data.message: is not valid UTF-8"}},
		{"bytes in agent_id", []byte(strings.Replace(validReport, `"query_engine"`, "\"query\xffengine\"", 1)), []string{"agent_id: is not valid UTF-8"}},
		{"bytes in a member not defined", []byte(strings.Replace(validReport, `"status"`, "\"x\":\"\xff\",\"status\"", 1)), []string{"x: is not valid UTF-8"}},
		{"lone surrogate", withContext(`{"note":"\ud800"}`), []string{
			`data.context.note: holds \ud800, half of a UTF-16 surrogate pair without the other half, which is not a character`}},
		{"lone surrogate in message", []byte(strings.Replace(validReport, "after 30s", `after \uDFFF`, 1)), []string{
			`data.message: holds \udfff, half of a UTF-16 surrogate pair without the other half, which is not a character`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := DecodeReport(c.raw)
			if r != nil {
				t.Fatalf("decoded %+v", r)
			}
			if got := fieldsOf(t, err); !slices.Equal(got, c.want) {
				t.Errorf("field errors:\n got %q\nwant %q", got, c.want)
			}
		})
	}
	r, err := DecodeReport(withContext(`{"note":"caf\u00e9 \ud83d\ude00 😀 \\ud800"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Data.Context["note"], `café 😀 😀 \ud800`; got != want {
		t.Errorf("note %q, want %q", got, want)
	}
}

// TestValidateText: a report built in code holds Go strings, which may
// hold any bytes: Validate refuses those that are not UTF-8.
func TestValidateText(t *testing.T) {
	r := &Report{AgentID: "a", Timestamp: time.Now(), Status: "error", Data: Data{Message: "m\xff", QueryID: "q1",
		Context: map[string]any{"b": []any{"ok", "x\xfe"}, "a\xff": map[string]any{"c": "\xc3"}, "ok": []string{"\x80"}}}}
	got := fieldsOf(t, r.Validate())
	want := []string{
		"data.message: is not valid UTF-8",
		"data.context.a\xff: has a name that is not valid UTF-8",
		"data.context.a\xff.c: is not valid UTF-8",
		"data.context.b[1]: is not valid UTF-8",
		"data.context.ok[0]: is not valid UTF-8",
	}
	if !slices.Equal(got, want) {
		t.Errorf("field errors:\n got %q\nwant %q", got, want)
	}
}

// TestDecodeReportRedactsContext: the context a report decodes to holds
// no secret: members named for one are dropped, strings redacted, at every
// depth; the other members are kept as they are.
func TestDecodeReportRedactsContext(t *testing.T) {
	r, err := DecodeReport(withContext(`{"row_count":48000000,"checkpoint_id":"run_7f3a",` +
		`"note":"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln and password=hunter2hunter2",` +
		`"api_key":"sk-proj-0123456789abcdef","nested":{"keys":["AKIAIOSFODNN7EXAMPLE"],"token":"t0k3n-value"},` +
		`"trace":"boom\ngoroutine 1 [running]:\n/srv/app/main.go:42 +0x1d","https://u:pw-canary@db.example/":"down"}`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(r.Data.Context)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"eyJhbGci", "hunter2hunter2", "sk-proj", "AKIAIOSFODNN7EXAMPLE", "t0k3n-value", "/srv/app", "pw-canary", "api_key"} {
		if strings.Contains(string(out), secret) {
			t.Errorf("%q kept: %s", secret, out)
		}
	}
	c := r.Data.Context
	if c["row_count"] != 48000000.0 || c["checkpoint_id"] != "run_7f3a" || c["trace"] != "boom [stack trace removed]" ||
		!strings.Contains(c["note"].(string), "[REDACTED]") {
		t.Errorf("context %s", out)
	}
	if r, err := DecodeReport(withContext(`{}`)); err != nil || r.Data.Context == nil || len(r.Data.Context) != 0 {
		t.Errorf("an empty context: %v, %v", r, err)
	}
}

// A report's fault is bounded as its message is: a 1 MB code was echoed in
// the feedback and stored.
func TestDecodeReportBoundsTheFault(t *testing.T) {
	for field, f := range map[string]string{
		"data.fault.code":    `{"code":"` + strings.Repeat("X", MaxFaultCode+1) + `","message":"m"}`,
		"data.fault.message": `{"code":"TIMEOUT","message":"` + strings.Repeat("m", MaxMessage+1) + `"}`,
	} {
		_, err := DecodeReport([]byte(`{"agent_id":"a","timestamp":"2025-08-08T12:20:05Z","status":"error","data":{"error_type":"query_error","message":"m","query_id":"q","fault":` + f + `}}`))
		fe := fault.From(err)
		if err == nil || len(fe.FieldErrors) != 1 || fe.FieldErrors[0].Field != field {
			t.Errorf("%s: %v %+v", field, err, fe.FieldErrors)
		}
	}
}
