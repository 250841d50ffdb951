package triage_test

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

// feedbackSeed is a feedback of the default policy for loadbench's report.
const feedbackSeed = `{"error_id":"err_3f1c","error_type":"query_error","error_source":"query_engine","severity":"medium","confidence":0.9,` +
	`"user_message":"I couldn't retrieve the full sales data right now (database timeout).","recovery_suggestions":["Retry now","Narrow the date range to 2024-08-02 – 2025-08-01"],` +
	`"automated_actions":["retry:2","use_cache:false","reduce_scope:date_range=12m"],"context_preserved":true,"query_id":"q_1",` +
	`"timestamp":"2025-08-08T12:20:05Z","next_action":"resume","root_cause":{"cause":"scope","confidence":0.8,"evidence":["row_count 48000000"]},` +
	`"attempt":1,"retry":{"attempt":2,"delay_seconds":2,"by":"caller"},"fault":{"code":"TIMEOUT","http_status":504,"retryable":true,"retry_after":3},` +
	`"context":{"metric":"sales","group_by":"month","date_range":{"start":"2015-01-01","end":"2025-08-01"},"row_count":48000000},"context_ref":"ck_1","duplicate":true}`

// outcomesSeed is the outcomes of the same report.
const outcomesSeed = `[{"action":"retry","status":"done","detail":"retry:2","retry":{"attempt":2,"delay_seconds":2,"by":"caller"},` +
	`"data":{"at":"2025-08-08T12:20:07.123456789+02:00","by":"caller","delay_seconds":2}},` +
	`{"action":"use_cache","status":"skipped","detail":"use_cache:false","error":"x"},` +
	`{"action":"reduce_scope","status":"done","detail":"reduce_scope:date_range=12m","note":"n","suggestions":["Narrow the date range to 2024-08-02 – 2025-08-01"],` +
	`"data":{"date_range":{"end":"2025-08-01","start":"2024-08-02"},"limit":10000}}]`

// FuzzFeedbackDocument: of any feedback and outcomes JSON decodes to
// (numbers as float64 and as json.Number), Feedback.Document and
// OutcomesDocument write MarshalDocument's bytes, and fail where it
// fails.
func FuzzFeedbackDocument(f *testing.F) {
	f.Add([]byte(feedbackSeed))
	f.Add([]byte(outcomesSeed))
	f.Add([]byte(`{"context":{"a":1e-7,"b":1e21,"c":-0,"d":123456789012345678901234,"e":0.000001,"f":[null,true,"<&>\u2028"]},"confidence":1e300}`))
	f.Add([]byte(`[{"data":{"z":{},"a":[],"é":"\u0000\ud800"}},{}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, useNumber := range []bool{false, true} {
			var fb triage.Feedback
			if decode(data, &fb, useNumber) == nil {
				checkDocument(t, data, &fb, (*triage.Feedback).Document)
			}
			var outs []triage.Outcome
			if decode(data, &outs, useNumber) == nil {
				checkDocument(t, data, outs, triage.OutcomesDocument)
			}
		}
	})
}

func decode(data []byte, v any, useNumber bool) error {
	d := json.NewDecoder(bytes.NewReader(data))
	if useNumber {
		d.UseNumber()
	}
	return d.Decode(v)
}

// checkDocument holds doc(v) to MarshalDocument(v): the same bytes, or
// both failing.
func checkDocument[T any](t *testing.T, input []byte, v T, doc func(T) (json.RawMessage, error)) {
	t.Helper()
	want, werr := triage.MarshalDocument(v)
	got, err := doc(v)
	if (err != nil) != (werr != nil) {
		t.Fatalf("%q: error %v, MarshalDocument's %v", input, err, werr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%q:\n got %s\nwant %s", input, got, want)
	}
}

// TestFeedbackDocumentEveryField: a feedback and an outcome with every
// field set (by reflection, so that a field added to either is set too)
// are written as MarshalDocument writes them; so are their zero values.
func TestFeedbackDocumentEveryField(t *testing.T) {
	var fb triage.Feedback
	fill(t, reflect.ValueOf(&fb).Elem(), "Feedback")
	checkDocument(t, nil, &fb, (*triage.Feedback).Document)
	checkDocument(t, nil, &triage.Feedback{}, (*triage.Feedback).Document)
	checkDocument(t, nil, nil, (*triage.Feedback).Document)
	var o triage.Outcome
	fill(t, reflect.ValueOf(&o).Elem(), "Outcome")
	checkDocument(t, nil, []triage.Outcome{o, {}}, triage.OutcomesDocument)
	checkDocument(t, nil, []triage.Outcome{}, triage.OutcomesDocument)
	checkDocument(t, nil, nil, triage.OutcomesDocument)
	if fb.Retry == nil || len(fb.Context) == 0 || !fb.Duplicate || fb.Fault.RetryAfter == 0 || len(o.Data) == 0 || o.Note == "" {
		t.Fatalf("fill left fields zero: %+v, %+v", fb, o)
	}
}

// fill sets every field of v, a struct, to a value that is not its zero,
// and fails on a kind it does not know.
func fill(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	switch v.Kind() {
	case reflect.String:
		v.SetString(path + " <é>")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(len(path)))
	case reflect.Float64:
		v.SetFloat(float64(len(path)) / 7)
	case reflect.Slice:
		if v.Type().Elem().Kind() != reflect.String {
			if v.Type() == reflect.TypeFor[[]triage.Outcome]() { // not written (json:"-")
				return
			}
			t.Fatalf("%s: a slice of %s", path, v.Type().Elem())
		}
		v.Set(reflect.ValueOf([]string{path + "[0]", "b"}).Convert(v.Type()))
	case reflect.Map:
		if v.Type() != reflect.TypeFor[map[string]any]() {
			t.Fatalf("%s: a %s", path, v.Type())
		}
		v.Set(reflect.ValueOf(map[string]any{"b": []any{1.5, "x"}, "a": map[string]any{"n": nil}, path: true}))
	case reflect.Pointer:
		if v.Type() == reflect.TypeFor[*triage.Job]() { // not written (json:"-")
			v.Set(reflect.ValueOf(&triage.Job{}))
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem(), path)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2025, 8, 8, 12, 20, 5, 123, time.FixedZone("", -3*3600))))
			return
		}
		for i := range v.NumField() {
			fill(t, v.Field(i), path+"."+v.Type().Field(i).Name)
		}
	default:
		t.Fatalf("%s: a %s", path, v.Kind())
	}
}

// jsonText is a type with its own MarshalJSON, which encoding/json
// compacts.
type jsonText string

func (j jsonText) MarshalJSON() ([]byte, error) { return []byte(j), nil }

// TestFeedbackDocumentValues: the values a context or an outcome's data
// may hold, those Document writes and those it leaves to encoding/json,
// are written as MarshalDocument writes them, and fail where it fails.
func TestFeedbackDocumentValues(t *testing.T) {
	one := 1
	self := map[string]any{}
	self["self"] = self
	deep := map[string]any{"leaf": "x"}
	for i := range 200 {
		if i%2 == 1 {
			deep = map[string]any{"l": []any{deep}}
			continue
		}
		deep = map[string]any{"d": deep, "l": []any{1.5}}
	}
	values := map[string]any{
		"floats":   []any{0.0, math.Copysign(0, -1), 1e-6, 9.99e-7, 1e20, 1e21, -1e21, 5e-324, math.MaxFloat64, 0.1, 1.0 / 3, float32(0.1)},
		"bad":      math.NaN(),
		"inf":      math.Inf(-1),
		"ints":     []any{0, -1, math.MaxInt64, int64(math.MinInt64), int8(-3), uint(7), uint64(math.MaxUint64)},
		"numbers":  []any{json.Number("1e3"), json.Number("-0.50"), json.Number("")},
		"badnum":   json.Number("1 "),
		"strings":  []any{"", "<script>&</script>", "\u2028\u2029", "\x00\x1f\"\\", "\xff\xfe", "é✓𝄞"},
		"times":    []any{time.Time{}, time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Unix(0, 1).In(time.FixedZone("X", 5*3600+1800))},
		"late":     time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		"maps":     []any{map[string]any(nil), map[string]any{}, map[string]string{"z": "1", "a": "<"}, map[string]string(nil), map[string]int{"b": 2, "a": 1}},
		"slices":   []any{[]any(nil), []any{}, []string(nil), []string{}, []int{1, 2}, []byte("bytes")},
		"keys":     map[string]any{"é": 1.0, "e": 2.0, "E": 3.0, "": 4.0, "\u2028": 5.0, "<": 6.0, "\xff": 7.0},
		"others":   []any{struct{ A int }{1}, &one, (*int)(nil), jsonText(` { "a" : [ 1 , 2 ] } `), json.RawMessage(`[ 1 ]`), triage.Severity("high")},
		"badjson":  jsonText(`{`),
		"self":     self,
		"deep":     deep,
		"badfunc":  func() {},
		"channels": []any{make(chan int)},
	}
	failing := 0
	for name, v := range values {
		fb := &triage.Feedback{Context: map[string]any{name: v}}
		checkDocument(t, []byte(name), fb, (*triage.Feedback).Document)
		checkDocument(t, []byte(name), []triage.Outcome{{Data: map[string]any{name: v}}}, triage.OutcomesDocument)
		if _, err := triage.MarshalDocument(fb); err != nil {
			failing++
		}
		// The members beside the value: a float, a time and a text of
		// the feedback itself.
		fb = &triage.Feedback{Confidence: 1e-9, RootCause: triage.RootCause{Confidence: math.Inf(1)}, UserMessage: name + "\u2028<>",
			Timestamp: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), Fault: triage.FaultInfo{Code: fault.Code(name + "\xff")}}
		checkDocument(t, []byte(name), fb, (*triage.Feedback).Document)
	}
	if want := len(strings.Fields("bad inf badnum late badjson self badfunc channels")); failing != want {
		t.Errorf("%d of the values failed MarshalDocument; want %d", failing, want)
	}
}
