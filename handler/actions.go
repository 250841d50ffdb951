package handler

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/classify"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/policy"
)

// Action is one safe automated recovery step. Actions change nothing: they
// look things up (through the ActionEnv's read-only interfaces), suggest,
// and ask for work done once the report is committed (a retry for the
// agent's callback, an escalation) in their Outcome's Job. Run reports
// what it did; a failure is an Outcome with Status "failed", never a panic
// or a lost feedback.
type Action interface {
	Name() string
	Run(ctx context.Context, env *ActionEnv) triage.Outcome
}

// ActionEnv is what an action knows about the report it acts on.
type ActionEnv struct {
	ErrorID     string
	Report      *triage.Report
	Class       classify.Result
	Cause       triage.RootCause
	Fault       *fault.Error
	Attempt     int
	MaxAttempts int
	Decision    policy.Decision
	Now         time.Time

	// Synonyms and Cache are the report's owner's schema inventory and
	// last good results; nil: none known.
	Synonyms triage.Synonyms
	Cache    triage.Cache
	// Callbacks says whether the report's agent has a callback URL for
	// its retries; nil: none has.
	Callbacks triage.Callbacks
	// Escalations tells that someone is told of escalations.
	Escalations bool
}

// Clarify builds clarifying prompts from the report's context: the
// interpretations the agent found (context.candidates, interpretations or
// options), or the usual questions about period and breakdown.
type Clarify struct{}

// Name is "clarify".
func (Clarify) Name() string { return "clarify" }

// Run builds the prompts.
func (Clarify) Run(_ context.Context, env *ActionEnv) triage.Outcome {
	prompts := list(env.Report.Data.Context, "candidates", "interpretations", "options")
	if len(prompts) == 0 {
		prompts = []string{"Name a time period (for example, last 12 months)", "Name a breakdown (by month, by product or by region)"}
	}
	if len(prompts) > 5 {
		prompts = prompts[:5]
	}
	return triage.Outcome{Action: "clarify", Status: triage.OutcomeDone, Detail: "clarify:" + strconv.Itoa(len(prompts)), Suggestions: prompts}
}

// MapSynonym maps a missing field to the field it was renamed to, when the
// schema inventory knows the synonym; otherwise it lists the source's
// fields closest to the missing one, for the user to choose from.
type MapSynonym struct{}

// Name is "map_synonym".
func (MapSynonym) Name() string { return "map_synonym" }

// Run looks the synonym up.
func (a MapSynonym) Run(ctx context.Context, env *ActionEnv) triage.Outcome {
	out := triage.Outcome{Action: "map_synonym"}
	c := env.Report.Data.Context
	field, source := str(c, "field", "missing_field", "column", "metric"), str(c, "source", "table", "dataset")
	if field == "" || env.Synonyms == nil {
		out.Status, out.Detail = triage.OutcomeSkipped, "map_synonym:none"
		return out
	}
	to, ok, err := env.Synonyms.Lookup(ctx, source, field)
	if err != nil {
		return failed(out, "map_synonym:failed", err)
	}
	if ok {
		out.Status, out.Detail = triage.OutcomeDone, "map_synonym:"+field+"->"+to
		out.Note = "I used “" + to + "”, the current name of “" + field + "”."
		out.Suggestions = []string{"Use “" + to + "” instead of “" + field + "”"}
		out.Data = map[string]any{"from": field, "to": to, "source": source}
		return out
	}
	fields, err := env.Synonyms.Fields(ctx, source)
	if err != nil {
		return failed(out, "map_synonym:failed", err)
	}
	out.Status, out.Detail = triage.OutcomeSkipped, "map_synonym:none"
	if len(fields) == 0 {
		return out
	}
	near := closest(field, fields, 3)
	out.Detail = "list_fields:" + strconv.Itoa(len(fields))
	for _, f := range near {
		out.Suggestions = append(out.Suggestions, "Use “"+f+"”")
	}
	out.Data = map[string]any{"available_fields": fields, "closest": near}
	return out
}

// closest returns the n fields nearest to name by edit distance, nearest
// first (ties in the inventory's order).
func closest(name string, fields []string, n int) []string {
	type scored struct {
		field string
		d     int
	}
	s := make([]scored, len(fields))
	for i, f := range fields {
		s[i] = scored{f, levenshtein(strings.ToLower(name), strings.ToLower(f))}
	}
	slices.SortStableFunc(s, func(a, b scored) int { return a.d - b.d })
	out := make([]string, 0, n)
	for _, x := range s[:min(n, len(s))] {
		out = append(out, x.field)
	}
	return out
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// SuggestChart suggests charts that fit the data's shape: a time dimension
// suits line, area and bar charts; a categorical one, bar and pie charts.
type SuggestChart struct{}

// Name is "suggest_chart".
func (SuggestChart) Name() string { return "suggest_chart" }

// Run picks the alternatives.
func (SuggestChart) Run(_ context.Context, env *ActionEnv) triage.Outcome {
	c := env.Report.Data.Context
	chart := strings.ToLower(str(c, "chart", "chart_type"))
	var alts []string
	if timeLike(c) {
		alts = []string{"line", "area", "bar"}
	} else {
		alts = []string{"bar", "pie", "table"}
	}
	alts = slices.DeleteFunc(alts, func(a string) bool { return a == chart })
	out := triage.Outcome{Action: "suggest_chart", Status: triage.OutcomeDone, Detail: "suggest_conversion:" + alts[0],
		Data: map[string]any{"alternatives": alts}}
	for _, a := range alts {
		out.Suggestions = append(out.Suggestions, "Convert to "+a+" chart")
	}
	return out
}

// timeLike reports whether the context's dimension is a time.
func timeLike(c map[string]any) bool {
	if t := strings.ToLower(str(c, "dimension_type", "x_type")); t == "date" || t == "time" || t == "datetime" || t == "timestamp" {
		return true
	}
	d := strings.ToLower(str(c, "dimension", "x", "x_axis"))
	for _, w := range []string{"date", "time", "day", "week", "month", "quarter", "year"} {
		if strings.Contains(d, w) {
			return true
		}
	}
	return false
}

// UseCache looks for the query's last good result; the feedback tells its
// age.
type UseCache struct{}

// Name is "use_cache".
func (UseCache) Name() string { return "use_cache" }

// Run looks the result up.
func (a UseCache) Run(ctx context.Context, env *ActionEnv) triage.Outcome {
	out := triage.Outcome{Action: "use_cache"}
	if env.Cache == nil {
		out.Status, out.Detail = triage.OutcomeSkipped, "use_cache:false"
		return out
	}
	r, ok, err := env.Cache.Get(ctx, env.Report.Data.QueryID)
	switch {
	case err != nil:
		return failed(out, "use_cache:failed", err)
	case !ok:
		out.Status, out.Detail = triage.OutcomeSkipped, "use_cache:false"
		return out
	}
	age := env.Now.Sub(r.StoredAt)
	out.Status, out.Detail = triage.OutcomeDone, "use_cache:true"
	when := ago(age)
	if r.Summary != "" {
		out.Note = "I can show cached results (" + r.Summary + ") from " + when + "."
		out.Suggestions = []string{"Use cached results - " + r.Summary + " (" + when + ")"}
	} else {
		out.Note = "I can show cached results from " + when + "."
		out.Suggestions = []string{"Use cached results (" + when + ")"}
	}
	out.Data = map[string]any{"stored_at": r.StoredAt, "age_seconds": int64(age.Seconds())}
	return out
}

// ago says how long ago an age is, in words.
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "moments ago"
	case d < time.Hour:
		return plural(int(d.Minutes()), "minute") + " ago"
	case d < 48*time.Hour:
		return plural(int(d.Hours()), "hour") + " ago"
	}
	return plural(int(d.Hours()/24), "day") + " ago"
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

// ReduceScope proposes a narrower query: the last 12 months of a longer
// date range, or a LIMIT on a large row count.
type ReduceScope struct{}

// Name is "reduce_scope".
func (ReduceScope) Name() string { return "reduce_scope" }

// Run proposes the narrower scope.
func (ReduceScope) Run(_ context.Context, env *ActionEnv) triage.Outcome {
	c := env.Report.Data.Context
	out := triage.Outcome{Action: "reduce_scope", Data: map[string]any{}}
	if start, end, ok := dateRange(c); ok && end.Sub(start) > 366*24*time.Hour {
		// The suggestion written once; the range's bounds are its
		// substrings.
		const narrow, dash = "Narrow the date range to ", " – "
		var buf [64]byte
		b := end.AddDate(-1, 0, 1).AppendFormat(append(buf[:0], narrow...), time.DateOnly)
		mid := len(b)
		suggestion := string(end.AppendFormat(append(b, dash...), time.DateOnly))
		out.Suggestions = make([]string, 1, 2)
		out.Suggestions[0] = suggestion
		out.Data["date_range"] = map[string]string{"start": suggestion[len(narrow):mid], "end": suggestion[mid+len(dash):]}
		out.Detail = "reduce_scope:date_range=12m"
	}
	if n, ok := num(c, "row_count", "rows", "estimated_rows", "rows_scanned"); ok && n > 10_000 {
		out.Suggestions = append(out.Suggestions, "Limit the result to the top 10,000 rows")
		out.Data["limit"] = 10_000
		if out.Detail == "" {
			out.Detail = "reduce_scope:limit=10000"
		}
	}
	if out.Detail == "" {
		out.Status, out.Detail, out.Data = triage.OutcomeSkipped, "reduce_scope:none", nil
		return out
	}
	out.Status = triage.OutcomeDone
	return out
}

// Retry plans the query's next attempt, with exponential backoff from Base
// (default 2s) up to Max (default 5m), never before the fault's RetryAfter.
// An agent with a callback URL (env.Callbacks) gets a job that posts the
// retry to it when due; for any other, the plan says the caller retries.
type Retry struct {
	Base, Max time.Duration
}

// Name is "retry".
func (Retry) Name() string { return "retry" }

// Run plans the retry.
func (a Retry) Run(ctx context.Context, env *ActionEnv) triage.Outcome {
	next := env.Attempt + 1
	out := triage.Outcome{Action: "retry"}
	if env.Attempt > env.MaxAttempts {
		out.Status, out.Detail = triage.OutcomeSkipped, "retry:exhausted"
		return out
	}
	base, maxDelay := a.Base, a.Max
	if base <= 0 {
		base = 2 * time.Second
	}
	if maxDelay <= 0 {
		maxDelay = 5 * time.Minute
	}
	delay := maxDelay
	if shift := env.Attempt - 1; shift < 20 {
		delay = min(base<<shift, maxDelay)
	}
	delay = max(delay, env.Fault.RetryAfter)
	at := env.Now.Add(delay)
	by := triage.RetryByCaller
	if env.Callbacks != nil {
		has, err := env.Callbacks.HasCallback(ctx, env.Report.AgentID)
		if err != nil {
			return failed(out, "retry:failed", err)
		}
		if has {
			by = triage.RetryByCallback
			out.Job = &triage.Job{Retry: &triage.RetryJob{ErrorID: env.ErrorID, QueryID: env.Report.Data.QueryID,
				AgentID: env.Report.AgentID, Attempt: next, At: at}}
		}
	}
	out.Status, out.Detail = triage.OutcomeDone, "retry:"+strconv.Itoa(next)
	out.Data = map[string]any{"at": at, "delay_seconds": fault.Seconds(delay), "by": string(by)}
	out.Retry = &triage.RetryPlan{Attempt: next, DelaySeconds: fault.Seconds(delay), By: by}
	return out
}

// Escalate asks for the operators to be told (env.Escalations: someone is
// told; a webhook, a log).
type Escalate struct{}

// Name is "escalate".
func (Escalate) Name() string { return "escalate" }

// Run asks for the escalation.
func (Escalate) Run(_ context.Context, env *ActionEnv) triage.Outcome {
	out := triage.Outcome{Action: "escalate"}
	if !env.Escalations {
		out.Status, out.Detail = triage.OutcomeSkipped, "escalate:no_notifier"
		return out
	}
	e := triage.Escalation{ErrorID: env.ErrorID, QueryID: env.Report.Data.QueryID, AgentID: env.Report.AgentID,
		ErrorType: env.Class.Type, ErrorCode: env.Report.Data.ErrorCode, Severity: env.Decision.Severity, Cause: env.Cause,
		Attempt: env.Attempt, Fault: env.Fault.Code, Rule: env.Decision.Rule, ReportedAt: env.Report.Timestamp}
	out.Job = &triage.Job{Escalation: &e}
	out.Status, out.Detail = triage.OutcomeDone, "escalate:ops"
	out.Note = "I've alerted the team."
	return out
}

func failed(out triage.Outcome, detail string, err error) triage.Outcome {
	out.Status, out.Detail, out.Error = triage.OutcomeFailed, detail, err.Error()
	return out
}
