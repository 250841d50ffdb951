package bridge

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

// resolvedInput is In's input schema as addTool makes it.
func resolvedInput[In any](t testing.TB) *jsonschema.Resolved {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		t.Fatal(err)
	}
	tighten(in)
	r, err := in.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// FuzzErrorArguments: the errors_* tools' arguments either become a
// filter, a report and a change within the schemas' bounds, or are
// refused as INVALID_REQUEST; nothing panics.
func FuzzErrorArguments(f *testing.F) {
	for _, s := range []string{
		`{"agentId":"planner","errorType":"query_error","severity":"high","since":"2025-08-08T12:00:00Z","limit":5,"cursor":"c1"}`,
		`{"since":"yesterday"}`, `{"limit":0}`, `{"limit":1e9}`, `{"errorType":"nope"}`,
		`{"agentId":"planner","queryId":"q_1","message":"timed out","context":{"a":[1,{"b":null}]},"tags":{"t":"v"},"timestamp":"2025-08-08T12:00:00+02:00"}`,
		`{"agentId":"planner","queryId":"q 1","message":""}`,
		`{"errorId":"err_1","status":"ignored","ignoreCount":3,"ignoreWindowSeconds":60,"assignee":"","note":"n"}`,
		`{"errorId":"../x","status":"regressed"}`, `{"errorId":"err_1","ignoreSeconds":-1}`,
		`[]`, `null`, ``, `{`, `{"errorId":"a\u0000"}`,
	} {
		f.Add([]byte(s))
	}
	search, report, update := resolvedInput[searchIn](f), resolvedInput[reportIn](f), resolvedInput[updateIn](f)
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	refused := func(t *testing.T, err error) {
		if fault.CodeOf(err) != fault.InvalidRequest {
			t.Fatalf("not INVALID_REQUEST: %v", err)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s searchIn
		if err := decode(json.RawMessage(data), search, &s); err != nil {
			refused(t, err)
		} else if flt, err := s.filter(); err != nil {
			refused(t, err)
		} else if flt.Limit < 1 || flt.Limit > MaxSearchLimit || (flt.AgentID != "" && !triage.IsIdentifier(flt.AgentID) && len(flt.AgentID) > 128*4) {
			t.Fatalf("filter %+v from %q", flt, data)
		}
		var r reportIn
		if err := decode(json.RawMessage(data), report, &r); err != nil {
			refused(t, err)
		} else if rep, err := r.report(now); err != nil {
			refused(t, err)
		} else if rep.Status != "error" || rep.Data.Message == "" || len(rep.Data.Message) > triage.MaxMessage*4 || rep.Timestamp.IsZero() {
			t.Fatalf("report %+v from %q", rep, data)
		}
		var u updateIn
		if err := decode(json.RawMessage(data), update, &u); err != nil {
			refused(t, err)
		} else if c := u.change(); !triage.IsIdentifier(u.ErrorID) || (c.Status != "" && c.Status == triage.StatusRegressed) {
			t.Fatalf("change %+v of %q from %q", c, u.ErrorID, data)
		}
	})
}

// FuzzErrorsGet: whatever a stored record holds (a report or feedback
// changed by hand, of any size), errors_get's answer is bounded and
// nothing panics.
func FuzzErrorsGet(f *testing.F) {
	for _, s := range [][2]string{
		{`{"agent_id":"a","timestamp":"2025-08-08T12:00:00Z","status":"error","data":{"message":"m","query_id":"q","context":{"k":"v"},"fault":{"code":"TIMEOUT","message":"slow"}}}`,
			`{"error_id":"e","root_cause":{"cause":"transient","confidence":0.5,"evidence":["x"]}}`},
		{`{"data":{"context":{"a":"` + string(make([]byte, 64)) + `"}}}`, `null`},
		{`[]`, `"x"`}, {``, ``}, {`{"data":{"message":"\ud800"}}`, `{"root_cause":{"evidence":null}}`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, report, feedback []byte) {
		out := recordOut(triage.Record{RecordSummary: triage.RecordSummary{ErrorID: "e"}, Report: report, Feedback: feedback})
		data, err := json.Marshal(out)
		if err != nil {
			t.Fatalf("the answer does not marshal: %v", err)
		}
		// The context's and the tags' JSON, the message and the fault's
		// (each character escaped at worst in 6 bytes), the identifiers
		// and what was left out, and the feedback, decoded then encoded
		// (its texts are the service's, bounded there).
		if max := MaxShownContext + maxShownTags + 6*(2*MaxShownMessage+8*256+20*64) + 6*len(feedback) + 4<<10; len(data) > max {
			t.Fatalf("%d bytes of answer for a %d-byte report, more than %d", len(data), len(report), max)
		}
		_ = out.text()
	})
}
