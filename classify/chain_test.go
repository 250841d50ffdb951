package classify

import (
	"slices"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

// classify runs the chain of the default codes and model on r.
func classify(r *triage.Report, f *fault.Error, model Predictor) Result {
	return New(Config{Model: model}).Classify(r, f)
}

// reportFault is r's fault by the default codes.
func reportFault(r *triage.Report) *fault.Error { return New(Config{}).Fault(r) }

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

// The chain tries its classifiers in the documented order, the model only
// when there is one, and each decides before the ones after it.
func TestChainOrder(t *testing.T) {
	sure := func(string) (triage.ErrorType, float64) { return triage.ChartError, 0.9 }
	if got, want := New(Config{Model: sure}).Steps(), []string{"reported", "error_code", "fault", "message", "model", "fault", "default"}; !slices.Equal(got, want) {
		t.Errorf("steps %v, want %v", got, want)
	}
	if got, want := New(Config{}).Steps(), []string{"reported", "error_code", "fault", "message", "fault", "default"}; !slices.Equal(got, want) {
		t.Errorf("without a model: steps %v, want %v", got, want)
	}
	// One report that every classifier could decide: each in turn is
	// taken away, and the next one decides.
	r := report("query_engine", triage.InputError, "DB_TIMEOUT", "Pie chart cannot display it")
	r.Data.Fault = fault.New(fault.InvalidRequest, "")
	chain := New(Config{Model: sure})
	var got []string
	for {
		res := chain.Classify(r, reportFault(r))
		got = append(got, res.Method)
		switch res.Method {
		case MethodReported:
			r.Data.ErrorType = ""
		case MethodErrorCode:
			r.Data.ErrorCode = ""
		case MethodFault:
			r.Data.Fault = nil
		case MethodMessage:
			r.Data.Message = "donut visual needs categories"
		}
		if res.Method == MethodModel || len(got) > 8 {
			break
		}
	}
	if want := []string{"reported", "error_code", "fault", "message", "model"}; !slices.Equal(got, want) {
		t.Errorf("decided by %v, want %v", got, want)
	}
	// Without a model, the derived fault's guess, then the default.
	chain = New(Config{})
	if res := chain.Classify(r, fault.New(fault.TransportError, "")); res.Method != MethodFault || res.Confidence != 0.4 {
		t.Errorf("derived fault: %+v", res)
	}
	if res := chain.Classify(r, fault.New(fault.AgentExecutionError, "")); res.Method != MethodDefault || res.Type != triage.SystemError {
		t.Errorf("default: %+v", res)
	}
}

// Codes merged over the defaults change both the type and the fault.
func TestCodesMerge(t *testing.T) {
	over := Codes{"deadlock": {triage.QueryError, fault.Timeout}, "WAREHOUSE_BUSY": {triage.SystemError, fault.ServiceUnavailable}}
	codes := DefaultCodes().Merge(over)
	if s, _ := codes.Lookup("DEADLOCK"); s.Fault != fault.Timeout {
		t.Errorf("DEADLOCK: %+v", s)
	}
	if s, _ := DefaultCodes().Lookup("deadlock"); s.Fault != fault.ServiceUnavailable {
		t.Errorf("the defaults changed: %+v", s)
	}
	chain := New(Config{Codes: codes})
	r := report("warehouse", "", "warehouse_busy", "try later")
	if f, res := chain.Fault(r), chain.Classify(r, chain.Fault(r)); f.Code != fault.ServiceUnavailable || res.Type != triage.SystemError || res.Rule != "WAREHOUSE_BUSY" {
		t.Errorf("WAREHOUSE_BUSY: %s, %+v", f.Code, res)
	}
}
