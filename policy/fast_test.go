package policy

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

// fastTemplates are templates beyond the default policy's, for the fast
// path's other turns: variables set and assigned, with and range with
// else, pipelines, literals, $, functions as arguments; and some it gives
// up on or does not cover, which text/template decides.
var fastTemplates = []string{
	`{{$x := pick .context "a|b"}}{{with $x}}[{{.}}]{{else}}none{{end}}{{$x = "y"}}{{$x}}`,
	`{{range .context.list}}<{{.}}>{{else}}empty{{end}}|{{range take 2 .context.list}}{{capitalize .}},{{end}}`,
	`{{if .context.a}}A{{else if .context.b}}B{{else}}C{{end}} {{.context.a.b}} {{$.context.n}}`,
	`{{pick $.context "n|a" | default "d"}} {{first .context.z .context.a "lit"}} {{default 3 .context.q}}`,
	`{{join (list .context.list .context.a) "; "}} {{choices .context.list "or"}} {{oneOf .context.a "x" "y"}}`,
	`{{altChart .context.a (timeLike .context.b .context.n)}} {{frequency .context.a}} {{duration .fault.retry_after}}`,
	`{{with .context}}{{.a}}{{.list}}{{end}}{{with .fault}}{{.code}}{{.retryable}}{{end}}{{.attempt}}/{{.max_attempts}}`,
	`{{quote .context.a}} {{human .context.n}} {{lower .context.b}} {{str nil}} {{list}} {{true}} {{5}} {{"s"}}`,
	`{{if .cause.evidence}}{{range .cause.evidence}}{{.}};{{end}}{{end}}{{.classification.confidence}}`,
	`{{.context.a | pick .context}} {{take .context.n .context.list}} {{altChart .context.a .context.b}}`,
	`{{range .context.m}}{{.}}{{end}}{{len .context.list}}{{printf "%v" .context.a}}`,
	`{{.context.a.b.c}}{{.message}}{{.error_code}}{{.report.context.a}}`,
	`{{.context.a | lower | capitalize}} {{quote (pick .context "a|b")}} {{choices (take 2 .context.list) "and"}}`,
	`{{oneOf .context.a "a" "b" "c" "d" "e" "f" "g" "h" "pie"}} {{"x" | quote}} {{$y := "lit"}}{{$y | lower}}{{take 1 "z"}}`,
}

// contexts for TestFastText, as JSON: the shapes agents send and some
// they should not.
var fastContexts = []string{
	`{}`,
	`{"a": "pie", "b": "month", "n": 3, "list": ["x", "y", "z"], "m": {"k": "v"}}`,
	`{"a": null, "b": true, "n": 0, "list": [], "q": ""}`,
	`{"a": {"b": {"c": 1}}, "b": [1, null, "s", [2]], "n": -1.5, "list": [null, {"x": 1}, 2.5, true]}`,
	`{"a": ["p"], "b": 1e21, "n": "5", "list": "one", "m": [1]}`,
	`{"chart": "pie", "dimension": "date", "granularity": "month", "metric": "revenue", "categorical_dimensions": ["product"],
	  "input": "Show revenue", "candidates": ["revenue by month", "revenue by region"], "field": "product_id",
	  "source": "sales", "synonym": "sku_id", "available_fields": ["a", "b"], "subject": "sales", "group_by": "week"}`,
}

// TestFastText: the fast path prints what text/template prints, for the
// default policy's texts and fastTemplates on every context; where
// text/template fails, the fast path gives up (and render reports
// text/template's error). It covers every rule of the default policy.
func TestFastText(t *testing.T) {
	t.Parallel()
	ctxs := append(slicesOfJSON(t, fastContexts), hostileContext())
	for i, c := range ctxs {
		printed, gaveUp := checkFast(t, c)
		if i >= len(ctxs)-3 && gaveUp > 0 { // the scenarios' context, either way, and the hostile one
			t.Errorf("context %d: the fast path gave up on %d of the default policy's texts (printed %d)", i, gaveUp, printed)
		}
	}
	for _, r := range Default().rules {
		if r.text.tmpl != nil && !r.text.fast {
			t.Errorf("rule %s: the fast path does not cover it", r.name)
		}
	}
}

// FuzzFastText: the same, on any context.
func FuzzFastText(f *testing.F) {
	for _, c := range fastContexts {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c map[string]any
		if json.Unmarshal(data, &c) != nil {
			return
		}
		checkFast(t, c)
	})
}

func slicesOfJSON(t *testing.T, srcs []string) []map[string]any {
	var out []map[string]any
	for _, s := range srcs {
		var c map[string]any
		if err := json.Unmarshal([]byte(s), &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
		out = append(out, stringLists(c).(map[string]any)) // as a context built in code may hold them
	}
	return out
}

// stringLists turns lists of strings into []string, at every depth.
func stringLists(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, e := range x {
			m[k] = stringLists(e)
		}
		return m
	case []any:
		ss := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return x
			}
			ss = append(ss, s)
		}
		return ss
	}
	return v
}

// checkFast compares the two on c, and counts the default policy's texts
// the fast path printed and gave up on.
func checkFast(t *testing.T, c map[string]any) (printed, gaveUp int) {
	t.Helper()
	var texts []*text
	for _, r := range Default().rules {
		if r.text.tmpl != nil {
			texts = append(texts, r.text)
		}
	}
	for _, src := range fastTemplates {
		tmpl, err := newTemplate(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		texts = append(texts, &text{tmpl: tmpl, fast: fastable(tmpl.Root), consts: stringConsts(tmpl.Root), parts: 1})
	}
	for _, f := range []*fault.Error{nil, fault.New(fault.ServiceUnavailable, "", fault.WithRetryAfter(30*time.Second))} {
		for _, attempt := range []int{1, 4} {
			in := &Input{Report: &triage.Report{AgentID: "a", Data: triage.Data{ErrorType: triage.ChartError, ErrorCode: "X",
				Message: "m", Context: c}}, Attempt: attempt, Fault: f,
				Cause: triage.RootCause{Cause: "scope", Evidence: []string{"e1", "e2"}}}
			data := newVars(in, 3).templateData(needAll)
			for _, tx := range texts {
				var want, got bytes.Buffer
				werr := tx.tmpl.Execute(&want, data)
				if !tx.fast {
					continue
				}
				gerr := fastRender(tx.tmpl.Root, tx.consts, &got, data)
				if isDefault(tx) {
					if gerr == nil {
						printed++
					} else {
						gaveUp++
					}
				}
				switch {
				case gerr != nil && gerr != errGiveUp:
					t.Errorf("%s on %v: fast path error %v", tx.tmpl.Root, c, gerr)
				case gerr == nil && werr != nil:
					t.Errorf("%s on %v: the fast path printed %q where text/template fails: %v", tx.tmpl.Root, c, got.String(), werr)
				case gerr == nil && got.String() != want.String():
					t.Errorf("%s on %v:\nfast          %q\ntext/template %q", tx.tmpl.Root, c, got.String(), want.String())
				}
			}
		}
	}
	return printed, gaveUp
}

func isDefault(tx *text) bool {
	for _, r := range Default().rules {
		if r.text == tx {
			return true
		}
	}
	return false
}

// TestFastFuncs: the fast path's table of functions agrees with funcs:
// the same names, the same parameters.
func TestFastFuncs(t *testing.T) {
	kinds := map[reflect.Kind]kind{reflect.Interface: kAny, reflect.String: kString, reflect.Int: kInt, reflect.Bool: kBool}
	for name, f := range fastFuncs {
		fn, ok := funcs[name]
		if !ok {
			t.Errorf("%s: not a template function", name)
			continue
		}
		typ := reflect.TypeOf(fn)
		if returnsText := typ.Out(0).Kind() == reflect.String; returnsText != (f.text != nil) {
			t.Errorf("%s: returns a string %v, has a text call %v", name, returnsText, f.text != nil)
		}
		fixed := typ.NumIn()
		if typ.IsVariadic() {
			fixed--
			if !f.variadic || kinds[typ.In(fixed).Elem().Kind()] != f.vkind {
				t.Errorf("%s: variadic %v %v, the function's %s", name, f.variadic, f.vkind, typ.In(fixed))
			}
		} else if f.variadic {
			t.Errorf("%s: variadic, the function is not", name)
		}
		if len(f.params) != fixed {
			t.Errorf("%s: %d parameters, the function %d", name, len(f.params), fixed)
			continue
		}
		for i, k := range f.params {
			if kinds[typ.In(i).Kind()] != k || typ.In(i).Kind() == reflect.Interface && typ.In(i).NumMethod() != 0 {
				t.Errorf("%s: parameter %d is %v, the function's %s", name, i, k, typ.In(i))
			}
		}
	}
	for name := range funcs {
		if _, ok := fastFuncs[name]; !ok && !strings.HasPrefix(name, "_") {
			t.Errorf("%s: the fast path does not call it", name)
		}
	}
}
