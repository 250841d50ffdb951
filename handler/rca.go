package handler

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/classify"
	"github.com/triage-go/triage/fault"
)

// Thresholds of the analysis.
const (
	// heavyRows is the row count from which a timed-out query is taken to
	// ask for too much.
	heavyRows = 1_000_000
	// heavyDays is the date range, in days, from which a timed-out query is
	// taken to ask for too much.
	heavyDays = 365
	// persistentFailures within persistentWindow make a failure persistent.
	persistentFailures = 3
	persistentWindow   = 15 * time.Minute
)

// analysis is what root-cause analysis needs.
type analysis struct {
	report   *triage.Report
	class    classify.Result
	fault    *fault.Error
	synonyms triage.Synonyms
	// recent counts failures of this agent and code within
	// persistentWindow, this one included.
	recent int
}

// analyze finds a report's root cause, with a confidence and the evidence
// used. The specific causes come first (a query that asks for too much, a
// renamed or missing field, a chart that does not fit, ambiguous input, an
// invalid value, an outage); then whether the failure keeps happening
// (persistent) or may pass (transient).
func analyze(ctx context.Context, a analysis) (triage.RootCause, error) {
	r, c := a.report, a.report.Data.Context
	code := strings.ToUpper(r.Data.ErrorCode)
	switch a.class.Type {
	case triage.QueryError:
		if timedOut(code, a.fault) {
			if w := weigh(c); w.heavy() {
				return triage.RootCause{Cause: triage.CauseScope, Confidence: 0.8, Evidence: w.evidence("the query timed out")}, nil
			}
		}
	case triage.SchemaError:
		field := str(c, "field", "missing_field", "column", "metric")
		source := str(c, "source", "table", "dataset")
		if field != "" && a.synonyms != nil {
			to, ok, err := a.synonyms.Lookup(ctx, source, field)
			if err != nil {
				return triage.RootCause{}, storeFailure("synonyms", err)
			}
			if ok {
				return triage.RootCause{Cause: triage.CauseSchemaDrift, Confidence: 0.85, Evidence: []string{
					"field " + strconv.Quote(field) + " is not in the schema of " + strconv.Quote(source),
					strconv.Quote(field) + " is a known synonym of " + strconv.Quote(to),
				}}, nil
			}
		}
		first := "a field the query needs is not in the schema"
		if field != "" {
			first = "field " + strconv.Quote(field) + " is not in the schema"
		}
		return triage.RootCause{Cause: triage.CauseMissingField, Confidence: 0.7, Evidence: []string{first, "no known synonym"}}, nil
	case triage.ChartError:
		ev := []string{"the chart type does not fit the data"}
		if chart := str(c, "chart", "chart_type"); chart != "" {
			ev = append(ev, "chart: "+chart)
		}
		if dim := str(c, "dimension", "x", "x_axis"); dim != "" {
			ev = append(ev, "dimension: "+dim)
		}
		return triage.RootCause{Cause: triage.CauseChartDataMismatch, Confidence: 0.8, Evidence: ev}, nil
	case triage.InputError:
		ev := []string{"the request can be read more than one way"}
		if cands := list(c, "candidates", "interpretations", "options"); len(cands) > 0 {
			ev = append(ev, strconv.Itoa(len(cands))+" interpretations")
		}
		return triage.RootCause{Cause: triage.CauseAmbiguousInput, Confidence: 0.75, Evidence: ev}, nil
	case triage.ValidationError:
		ev := []string{"a value failed validation"}
		if f := str(c, "field", "parameter"); f != "" {
			ev = append(ev, "field: "+f)
		}
		return triage.RootCause{Cause: triage.CauseInvalidValue, Confidence: 0.7, Evidence: ev}, nil
	case triage.SystemError:
		if outage(code, a.fault) {
			ev := []string{"a service the pipeline depends on is unavailable"}
			if a.recent > 1 {
				ev = append(ev, fmt.Sprintf("%d failures of %s in the last %v", a.recent, r.AgentID, persistentWindow))
			}
			return triage.RootCause{Cause: triage.CauseOutage, Confidence: 0.8, Evidence: ev}, nil
		}
	}
	if a.recent >= persistentFailures {
		return triage.RootCause{Cause: triage.CausePersistent, Confidence: 0.75, Evidence: []string{
			fmt.Sprintf("%d failures of %s with code %s in the last %v", a.recent, r.AgentID, codeOr(code), persistentWindow)}}, nil
	}
	if a.fault.Retryable {
		return triage.RootCause{Cause: triage.CauseTransient, Confidence: 0.6, Evidence: []string{
			fmt.Sprintf("%s is usually transient", a.fault.Code), "first failure in the window"}}, nil
	}
	return triage.RootCause{Cause: triage.CauseUnknown, Confidence: 0.3, Evidence: []string{"no rule recognised the failure"}}, nil
}

// readsRecent tells whether analyze reads a.recent for a report of class
// and fault f: not when the report alone settles its cause (a timed-out
// query that asks for too much; a schema, chart, input or validation
// error), whatever the count. It follows analyze's cases: a case that
// comes to read recent must be added here (TestReadsRecent).
func readsRecent(r *triage.Report, class classify.Result, f *fault.Error) bool {
	switch class.Type {
	case triage.QueryError:
		return !timedOut(strings.ToUpper(r.Data.ErrorCode), f) || !weigh(r.Data.Context).heavy()
	case triage.SchemaError, triage.ChartError, triage.InputError, triage.ValidationError:
		return false
	}
	return true
}

func codeOr(code string) string {
	if code == "" {
		return "(none)"
	}
	return code
}

func timedOut(code string, f *fault.Error) bool {
	return code == "DB_TIMEOUT" || code == "QUERY_TIMEOUT" || f.Code == fault.Timeout
}

func outage(code string, f *fault.Error) bool {
	switch code {
	case "SERVICE_DOWN", "SERVICE_UNAVAILABLE", "CONNECTION_REFUSED", "CONNECTION_ERROR", "UPSTREAM_ERROR":
		return true
	}
	switch f.Code {
	case fault.ServiceUnavailable, fault.TransportError, fault.ProviderAuthFailed, fault.QuotaExhausted:
		return true
	case fault.UpstreamError:
		return f.Retryable
	}
	return false
}

// weight is what of a query's context makes it ask for too much: a row
// count, a date range, each over its threshold (rows, days: 0 when not).
type weight struct {
	rows       float64
	days       float64
	start, end time.Time
}

// weigh reads a context's weight, writing no evidence: readsRecent asks
// for it ahead of every report's peek.
func weigh(c map[string]any) weight {
	var w weight
	if n, ok := num(c, "row_count", "rows", "estimated_rows", "rows_scanned"); ok && n >= heavyRows {
		w.rows = n
	}
	if start, end, ok := dateRange(c); ok {
		if days := end.Sub(start).Hours() / 24; days >= heavyDays {
			w.days, w.start, w.end = days, start, end
		}
	}
	return w
}

// heavy tells that the query asks for too much.
func (w weight) heavy() bool { return w.rows != 0 || w.days != 0 }

// evidence is first, then the evidence that the query asks for too much:
// its row count and date range over the thresholds.
func (w weight) evidence(first string) []string {
	ev := make([]string, 1, 3)
	ev[0] = first
	var buf [96]byte
	if w.rows != 0 {
		ev = append(ev, string(append(appendHumanInt(buf[:0], w.rows), " rows"...)))
	}
	if w.days != 0 {
		b := append(buf[:0], "a date range of "...)
		b = strconv.AppendInt(b, int64(w.days), 10)
		b = append(w.start.AppendFormat(append(b, " days ("...), time.DateOnly), " to "...)
		ev = append(ev, string(append(w.end.AppendFormat(b, time.DateOnly), ')')))
	}
	return ev
}

// dateRange reads a context's date range: date_range as {"start","end"},
// as "start/end" or "start..end", or start_date and end_date.
func dateRange(c map[string]any) (time.Time, time.Time, bool) {
	var a, b string
	switch v := c["date_range"].(type) {
	case map[string]any:
		a, _ = v["start"].(string)
		b, _ = v["end"].(string)
	case string:
		for _, sep := range []string{"..", "/"} {
			if x, y, ok := strings.Cut(v, sep); ok {
				a, b = x, y
				break
			}
		}
	}
	if a == "" {
		a, b = str(c, "start_date", "from"), str(c, "end_date", "to")
	}
	start, err1 := parseDate(a)
	end, err2 := parseDate(b)
	if err1 != nil || err2 != nil || end.Before(start) {
		return time.Time{}, time.Time{}, false
	}
	return start, end, true
}

func parseDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Parse(time.RFC3339, s)
}

// str returns the first of keys that is a non-empty string in c.
func str(c map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := c[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// num returns the first of keys that is a number in c (or a string of one).
func num(c map[string]any, keys ...string) (float64, bool) {
	for _, k := range keys {
		switch v := c[k].(type) {
		case float64:
			return v, true
		case int:
			return float64(v), true
		case int64:
			return float64(v), true
		case string:
			if f, err := strconv.ParseFloat(strings.ReplaceAll(v, ",", ""), 64); err == nil {
				return f, true
			}
		}
	}
	return 0, false
}

// list returns the first of keys that is a list of strings in c.
func list(c map[string]any, keys ...string) []string {
	for _, k := range keys {
		if vs, ok := c[k].([]any); ok {
			var out []string
			for _, v := range vs {
				if s, ok := v.(string); ok && s != "" {
					out = append(out, s)
				}
			}
			if len(out) > 0 {
				return out
			}
		}
	}
	return nil
}

// appendHumanInt appends f rounded to an integer, its thousands
// separated by commas ("48,000,000"), to b.
func appendHumanInt(b []byte, f float64) []byte {
	var digits [24]byte
	s := strconv.AppendInt(digits[:0], int64(math.Round(f)), 10)
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, c)
	}
	return b
}
