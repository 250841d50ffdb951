package handler

import (
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

func report(agent string, typ triage.ErrorType, code, msg string) *triage.Report {
	return &triage.Report{AgentID: agent, Timestamp: time.Date(2025, 8, 8, 12, 0, 0, 0, time.UTC), Status: "error",
		Data: triage.Data{ErrorType: typ, ErrorCode: code, Message: msg, QueryID: "q_1"}}
}

func TestClassify(t *testing.T) {
	model := DefaultModel()
	cases := []struct {
		name   string
		r      *triage.Report
		want   triage.ErrorType
		method string
		rule   string
		conf   float64
	}{
		{"reported and confirmed by its code", report("query_engine", triage.QueryError, "DB_TIMEOUT", "timed out"), triage.QueryError, "reported", "DB_TIMEOUT", 0.99},
		{"reported, code unknown", report("query_engine", triage.QueryError, "E42", "timed out"), triage.QueryError, "reported", "", 0.95},
		{"reported type wins over its code", report("query_engine", triage.SystemError, "DB_TIMEOUT", "timed out"), triage.SystemError, "reported", "", 0.95},
		// Seed 004: DB_TIMEOUT → query_error (confidence 0.97).
		{"seed 004: DB_TIMEOUT", report("query_engine", "", "DB_TIMEOUT", "timed out"), triage.QueryError, "error_code", "DB_TIMEOUT", 0.97},
		{"code is case-insensitive", report("x", triage.Unknown, "field_not_found", "m"), triage.SchemaError, "error_code", "FIELD_NOT_FOUND", 0.97},
		{"chart code", report("viz", "", "INCOMPATIBLE_CHART_TYPE", "m"), triage.ChartError, "error_code", "INCOMPATIBLE_CHART_TYPE", 0.97},
		{"ambiguous code", report("parser", "", "AMBIGUOUS_INPUT", "m"), triage.InputError, "error_code", "AMBIGUOUS_INPUT", 0.97},
		{"outage code", report("any", "", "SERVICE_DOWN", "m"), triage.SystemError, "error_code", "SERVICE_DOWN", 0.97},
		{"validation code", report("any", "", "INVALID_DATE_RANGE", "m"), triage.ValidationError, "error_code", "INVALID_DATE_RANGE", 0.97},
		{"message: missing column", report("query_engine", "", "", `column "regoin" does not exist`), triage.SchemaError, "message", "missing_field", 0.75},
		{"message: ambiguous", report("parser", triage.Unknown, "", "The request is ambiguous"), triage.InputError, "message", "ambiguous", 0.75},
		{"message: chart", report("viz", "", "", "Pie chart cannot display time-series data"), triage.ChartError, "message", "chart", 0.75},
		{"message: query timeout", report("query_engine", "", "", "SQL statement timed out"), triage.QueryError, "message", "query", 0.75},
		{"message: outage", report("any", "", "", "warehouse is temporarily unavailable"), triage.SystemError, "message", "outage", 0.75},
		{"message: invalid value", report("any", "", "", "end date is before the start date"), triage.ValidationError, "message", "invalid_value", 0.75},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := classify(c.r, reportFault(c.r), model)
			if got.Type != c.want || got.Method != c.method || got.Rule != c.rule || got.Confidence != c.conf {
				t.Errorf("classify = %+v, want %s by %s (%s) at %.2f", got, c.want, c.method, c.rule, c.conf)
			}
		})
	}
}

func TestClassifyFault(t *testing.T) {
	r := report("intent_resolver", triage.Unknown, "", "LLM call failed")
	r.Data.Fault = fault.New(fault.RateLimited, "")
	if got := classify(r, reportFault(r), nil); got.Type != triage.SystemError || got.Method != "fault" || got.Rule != "RATE_LIMITED" {
		t.Errorf("a rate-limited fault: %+v", got)
	}
	r.Data.Fault = fault.New(fault.Timeout, "")
	r.AgentID = "query_engine"
	if got := classify(r, reportFault(r), nil); got.Type != triage.QueryError {
		t.Errorf("a query engine's timeout: %+v", got)
	}
	r.Data.Fault = fault.New(fault.InvalidRequest, "")
	if got := classify(r, reportFault(r), nil); got.Type != triage.ValidationError {
		t.Errorf("an invalid request: %+v", got)
	}
}

func TestClassifyModel(t *testing.T) {
	// No rule matches: the model decides, below a rule's confidence.
	r := report("viz", "", "", "the donut visual needs categories but got a continuous axis")
	got := classify(r, reportFault(r), func(string) (triage.ErrorType, float64) { return triage.ChartError, 0.9 })
	if got.Type != triage.ChartError || got.Method != "model" || got.Confidence != 0.63 {
		t.Errorf("model: %+v", got)
	}
	// An unsure model does not decide; the fault's guess does, with a low
	// confidence.
	got = classify(r, reportFault(r), func(string) (triage.ErrorType, float64) { return triage.ChartError, 0.4 })
	if got.Method == "model" || got.Confidence > 0.4 {
		t.Errorf("an unsure model decided: %+v", got)
	}
	// The shipped model on a message no rule knows.
	r = report("viz", "", "", "cannot draw scatter plot: x axis is categorical")
	if got := classify(r, reportFault(r), DefaultModel()); got.Method != "model" || got.Type != triage.ChartError {
		t.Errorf("shipped model: %+v", got)
	}
}

func TestReportFault(t *testing.T) {
	r := report("query_engine", "", "DB_TIMEOUT", "timed out")
	if f := reportFault(r); f.Code != fault.Timeout || !f.Retryable || f.Source != "query_engine" {
		t.Errorf("DB_TIMEOUT fault: %+v", f)
	}
	r = report("any", "", "", "dial tcp 10.0.0.1:5432: connect: connection refused")
	if f := reportFault(r); f.Code != fault.TransportError {
		t.Errorf("text fault: %+v", f)
	}
	sent := fault.New(fault.QuotaExhausted, "")
	r.Data.Fault = sent
	if f := reportFault(r); f != sent {
		t.Error("data.fault is not the report's fault")
	}
}
