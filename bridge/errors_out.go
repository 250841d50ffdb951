package bridge

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

// The errors_* tools' inputs and outputs. Their JSON schemas are inferred
// from these types (tighten adds the identifiers' rule, the enumerations
// and the bounds); each output also has a text for a model or a person
// (its text method), written in place of the JSON.

type (
	searchIn struct {
		AgentID   string `json:"agentId,omitempty" jsonschema:"only the errors of this agent"`
		QueryID   string `json:"queryId,omitempty" jsonschema:"only the errors of this query"`
		ErrorType string `json:"errorType,omitempty" jsonschema:"only errors of this type"`
		Severity  string `json:"severity,omitempty" jsonschema:"only errors of this severity"`
		Since     string `json:"since,omitempty" jsonschema:"only errors last seen at or after this RFC 3339 time"`
		Status    string `json:"status,omitempty" jsonschema:"only errors in this status: unresolved, resolved, ignored or regressed"`
		Query     string `json:"query,omitempty" jsonschema:"words an error's title (code and message), code, agent or query begin with, all of them (full-text search)"`
		Sort      string `json:"sort,omitempty" jsonschema:"last_seen (the default: the most recently seen first), first_seen or count (the most frequent first)"`
		Limit     int    `json:"limit,omitempty" jsonschema:"the page's size (default 20, at most 50)"`
		Cursor    string `json:"cursor,omitempty" jsonschema:"the nextCursor of the page before"`
	}
	searchOut struct {
		Errors     []errorSummary `json:"errors" jsonschema:"the errors, in the sort asked (the most recently seen first by default)"`
		Total      int            `json:"total" jsonschema:"how many errors match, over every page (at most 100000)"`
		NextCursor string         `json:"nextCursor,omitempty" jsonschema:"pass it as cursor for the next page; absent on the last page"`
	}
	errorSummary struct {
		ErrorID     string    `json:"errorId"`
		Title       string    `json:"title" jsonschema:"the latest report's code and message"`
		AgentID     string    `json:"agentId"`
		QueryID     string    `json:"queryId"`
		ErrorType   string    `json:"errorType"`
		Severity    string    `json:"severity"`
		Occurrences int       `json:"occurrences" jsonschema:"how many times it occurred"`
		FirstSeen   time.Time `json:"firstSeen"`
		LastSeen    time.Time `json:"lastSeen"`
		NextAction  string    `json:"nextAction,omitempty" jsonschema:"the next action decided for its latest occurrence"`
		Status      string    `json:"status" jsonschema:"unresolved, resolved, ignored or regressed"`
		Assignee    string    `json:"assignee,omitempty"`
	}

	errorIn struct {
		ErrorID string `json:"errorId" jsonschema:"the error's id (errorId of errors_search or errors_report)"`
	}
	getOut struct {
		errorSummary
		// Latest are the latest occurrences, without their documents.
		Latest []occurrenceHead `json:"latest" jsonschema:"its latest occurrences (at most 5), the latest first"`
		// Analysis is the latest occurrence's feedback.
		Analysis *analysis `json:"analysis,omitempty" jsonschema:"what the service found for the latest occurrence"`
		// Report is the latest occurrence's report, trimmed.
		Report *shownReport `json:"report,omitempty" jsonschema:"the latest occurrence's report, trimmed (see trimmed)"`
		// ReportBytes is the stored report's size.
		ReportBytes int `json:"reportBytes" jsonschema:"the size of the stored report, in bytes"`
		// Trimmed says what of the report is not shown.
		Trimmed []string `json:"trimmed,omitempty" jsonschema:"what of the report is cut or left out"`
	}
	occurrenceHead struct {
		ReceivedAt time.Time `json:"receivedAt"`
		ReportedAt time.Time `json:"reportedAt"`
		Attempt    int       `json:"attempt"`
		NextAction string    `json:"nextAction"`
	}
	analysis struct {
		ErrorType           string           `json:"errorType"`
		Severity            string           `json:"severity"`
		Source              string           `json:"source,omitempty" jsonschema:"the component the error came from"`
		Confidence          float64          `json:"confidence"`
		RootCause           triage.RootCause `json:"rootCause" jsonschema:"the cause found, how sure, and the evidence"`
		UserMessage         string           `json:"userMessage" jsonschema:"the message for the pipeline's user"`
		RecoverySuggestions []string         `json:"recoverySuggestions"`
		AutomatedActions    []string         `json:"automatedActions" jsonschema:"what the service did (retry:N, escalate, …)"`
		NextAction          string           `json:"nextAction"`
		Attempt             int              `json:"attempt" jsonschema:"the query's attempt this occurrence was"`
		Code                string           `json:"code" jsonschema:"the fault's code"`
		Retryable           bool             `json:"retryable"`
	}
	shownReport struct {
		AgentID     string            `json:"agentId"`
		Timestamp   time.Time         `json:"timestamp"`
		Environment string            `json:"environment,omitempty"`
		Release     string            `json:"release,omitempty"`
		Tags        map[string]string `json:"tags,omitempty"`
		QueryID     string            `json:"queryId"`
		ErrorType   string            `json:"errorType,omitempty"`
		ErrorCode   string            `json:"errorCode,omitempty"`
		Message     string            `json:"message"`
		// Fault is the report's fault's code and message (its details and
		// debug output are not shown).
		Fault   *shownFault    `json:"fault,omitempty"`
		Context map[string]any `json:"context,omitempty"`
	}
	shownFault struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}

	reportIn struct {
		AgentID     string            `json:"agentId" jsonschema:"the agent that failed (an identifier: letters, digits, '_', '-', '.', ':')"`
		QueryID     string            `json:"queryId" jsonschema:"the request or task that failed (an identifier): reports of one query count its attempts"`
		Message     string            `json:"message" jsonschema:"what went wrong, as the error said it (at most 8 KiB)"`
		ErrorType   string            `json:"errorType,omitempty" jsonschema:"the canonical type when known; unknown or absent lets the service classify it"`
		ErrorCode   string            `json:"errorCode,omitempty" jsonschema:"the error's code, such as DB_TIMEOUT"`
		Context     map[string]any    `json:"context,omitempty" jsonschema:"what the pipeline knew (redacted by the service: credentials and stack traces are dropped)"`
		Environment string            `json:"environment,omitempty" jsonschema:"where it happened, such as production"`
		Release     string            `json:"release,omitempty" jsonschema:"the build it happened in"`
		Tags        map[string]string `json:"tags,omitempty" jsonschema:"free labels"`
		Timestamp   string            `json:"timestamp,omitempty" jsonschema:"when it happened (RFC 3339); default now"`
	}
	reportOut struct {
		ErrorID   string `json:"errorId" jsonschema:"the error's record (errors_get)"`
		Duplicate bool   `json:"duplicate,omitempty" jsonschema:"the service had this report already: the analysis is the one it gave then"`
		analysis
	}

	updateIn struct {
		ErrorID             string  `json:"errorId"`
		Status              string  `json:"status,omitempty" jsonschema:"the status wanted; absent keeps it"`
		InRelease           string  `json:"inRelease,omitempty" jsonschema:"with resolved: the release with the fix"`
		InNextRelease       bool    `json:"inNextRelease,omitempty" jsonschema:"with resolved: the fix ships in the next release"`
		IgnoreSeconds       int     `json:"ignoreSeconds,omitempty" jsonschema:"with ignored: for this long"`
		IgnoreCount         int     `json:"ignoreCount,omitempty" jsonschema:"with ignored: until it occurs this many more times"`
		IgnoreWindowSeconds int     `json:"ignoreWindowSeconds,omitempty" jsonschema:"with ignoreCount: the occurrences must fall within this window"`
		Assignee            *string `json:"assignee,omitempty" jsonschema:"who works on it; an empty string unassigns"`
		Note                string  `json:"note,omitempty" jsonschema:"kept with the change in the error's history (at most 4096 bytes)"`
	}
	updateOut struct {
		ErrorID       string     `json:"errorId"`
		Status        string     `json:"status" jsonschema:"unresolved, resolved, ignored or regressed"`
		InRelease     string     `json:"inRelease,omitempty"`
		InNextRelease bool       `json:"inNextRelease,omitempty"`
		IgnoreUntil   *time.Time `json:"ignoreUntil,omitempty"`
		IgnoreCount   int        `json:"ignoreCount,omitempty"`
		IgnoreWindow  int        `json:"ignoreWindowSeconds,omitempty"`
		Assignee      string     `json:"assignee,omitempty"`
		ChangedAt     *time.Time `json:"changedAt,omitempty"`
	}
)

func summaryOf(r triage.RecordSummary) errorSummary {
	return errorSummary{ErrorID: r.ErrorID, Title: r.Title, AgentID: r.AgentID, QueryID: r.QueryID, ErrorType: r.ErrorType,
		Severity: r.Severity, Occurrences: r.Count, FirstSeen: r.FirstSeen, LastSeen: r.LastSeen, NextAction: r.NextAction,
		Status: string(r.Status), Assignee: r.Assignee}
}

func analysisOf(fb triage.Feedback) analysis {
	a := analysis{ErrorType: string(fb.ErrorType), Severity: string(fb.Severity), Source: fb.ErrorSource,
		Confidence: fb.Confidence, RootCause: fb.RootCause, UserMessage: fb.UserMessage,
		RecoverySuggestions: fb.RecoverySuggestions, AutomatedActions: fb.AutomatedActions,
		NextAction: string(fb.NextAction), Attempt: fb.Attempt, Code: string(fb.Fault.Code), Retryable: fb.Fault.Retryable}
	if a.RootCause.Evidence == nil {
		a.RootCause.Evidence = []string{}
	}
	if a.RecoverySuggestions == nil {
		a.RecoverySuggestions = []string{}
	}
	if a.AutomatedActions == nil {
		a.AutomatedActions = []string{}
	}
	return a
}

// recordOut is a record as errors_get shows it: the latest occurrences'
// heads, the latest feedback and the latest report, trimmed.
func recordOut(rec triage.Record) getOut {
	out := getOut{errorSummary: summaryOf(rec.RecordSummary), Latest: []occurrenceHead{}, ReportBytes: len(rec.Report)}
	for _, o := range rec.Occurrences[:min(len(rec.Occurrences), MaxShownOccurrences)] {
		out.Latest = append(out.Latest, occurrenceHead{ReceivedAt: o.ReceivedAt, ReportedAt: o.ReportedAt, Attempt: o.Attempt, NextAction: o.NextAction})
	}
	if len(rec.Feedback) > 0 {
		var fb triage.Feedback
		if json.Unmarshal(rec.Feedback, &fb) == nil {
			a := analysisOf(fb)
			out.Analysis = &a
		}
	}
	if len(rec.Report) > 0 {
		var r triage.Report
		if err := json.Unmarshal(rec.Report, &r); err != nil {
			out.Trimmed = append(out.Trimmed, "report: not shown, the stored report does not decode")
		} else {
			out.Report, out.Trimmed = trimReport(&r)
		}
	}
	return out
}

// trimReport is what errors_get shows of a report, and what it leaves
// out: the message cut to MaxShownMessage bytes; the context's members, in
// the order of their names, while their JSON fits in MaxShownContext
// bytes; of data.fault, its code and message. The report was redacted when
// the service took it (credentials, headers and stack traces are gone);
// its texts are redacted again here, at no cost to a clean one.
func trimReport(r *triage.Report) (*shownReport, []string) {
	var trimmed []string
	s := &shownReport{AgentID: short(r.AgentID), Timestamp: r.Timestamp, Environment: short(r.Environment), Release: short(r.Release),
		QueryID: short(r.Data.QueryID), ErrorType: short(string(r.Data.ErrorType)), ErrorCode: short(r.Data.ErrorCode)}
	s.Message = shown(r.Data.Message, "message", &trimmed)
	if len(r.Tags) > 0 {
		tags, left := fit(r.Tags, maxShownTags)
		s.Tags = tags
		if len(left) > 0 {
			trimmed = append(trimmed, leftOut("tags", left, len(r.Tags), maxShownTags))
		}
	}
	if f := r.Data.Fault; f != nil {
		s.Fault = &shownFault{Code: short(string(f.Code)), Message: shown(f.Message, "fault.message", &trimmed)}
		if len(f.Details) > 0 {
			trimmed = append(trimmed, "fault.details: not shown")
		}
	}
	if len(r.Data.Context) > 0 {
		var left []string
		s.Context, left = fit(r.Data.Context, MaxShownContext)
		if len(left) > 0 {
			trimmed = append(trimmed, leftOut("context", left, len(r.Data.Context), MaxShownContext))
		}
	}
	return s, trimmed
}

// maxShownTags bounds a report's tags errors_get shows, as JSON: a
// report's 50 tags of 200 bytes fit; a record changed by hand may hold
// more.
const maxShownTags = 16 << 10

// fit keeps the members of m, in the order of their names, while their
// JSON fits in room bytes, and returns the names of the others.
func fit[V any](m map[string]V, room int) (map[string]V, []string) {
	kept := map[string]V{}
	var left []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v, err := json.Marshal(m[k])
		name, _ := json.Marshal(k)
		if size := len(name) + len(v) + 2; err == nil && size <= room {
			kept[k], room = m[k], room-size
			continue
		}
		left = append(left, k)
	}
	return kept, left
}

// leftOut says which members of what fit left out: the first 20 names,
// each cut to 64 bytes.
func leftOut(what string, left []string, of, room int) string {
	names := make([]string, 0, 20)
	for _, k := range left[:min(len(left), 20)] {
		names = append(names, printable(cutUTF8(k, 64)))
	}
	more := ""
	if len(left) > len(names) {
		more = fmt.Sprintf(" and %d more", len(left)-len(names))
	}
	return fmt.Sprintf("%s: %d of %d members left out (over %d bytes of JSON): %s%s", what, len(left), of, room, strings.Join(names, ", "), more)
}

// short is an identifier of a report (an agent, a query, a code, an
// environment, a release) cut to 256 bytes: the service takes none
// longer, but a record changed by hand may hold anything.
func short(s string) string { return cutUTF8(s, 256) }

// shown is a text of a report as errors_get shows it: cut to at most
// MaxShownMessage bytes, an ellipsis included (the cut noted in trimmed),
// then redacted.
func shown(text, name string, trimmed *[]string) string {
	if len(text) > MaxShownMessage {
		*trimmed = append(*trimmed, fmt.Sprintf("%s: cut to %d of its %d bytes", name, MaxShownMessage, len(text)))
		text = cutUTF8(text, MaxShownMessage-len("…")) + "…"
	}
	return fault.Redact(text)
}

func workflowOut(errorID string, w triage.Workflow) updateOut {
	out := updateOut{ErrorID: errorID, Status: string(w.Status), Assignee: w.Assignee}
	if w.Resolution != nil {
		out.InRelease, out.InNextRelease = w.Resolution.InRelease, w.Resolution.InNextRelease
	}
	if ig := w.Ignore; ig != nil {
		if !ig.Until.IsZero() {
			out.IgnoreUntil = &ig.Until
		}
		out.IgnoreCount, out.IgnoreWindow = ig.Count, int(ig.Window/time.Second)
	}
	if !w.Changed.IsZero() {
		out.ChangedAt = &w.Changed
	}
	return out
}

// The texts of the outputs, for a model or a person: the same facts as
// the structured content, a line each.

func (o searchOut) text() string {
	var b strings.Builder
	switch total := max(o.Total, len(o.Errors)); {
	case len(o.Errors) == 0:
		b.WriteString("No errors match.")
	case total == 1:
		b.WriteString("1 error:")
	case total > len(o.Errors):
		fmt.Fprintf(&b, "%d errors match; %d here:", total, len(o.Errors))
	default:
		fmt.Fprintf(&b, "%d errors:", total)
	}
	for _, e := range o.Errors {
		b.WriteString("\n- " + e.ErrorID)
		if e.Title != "" {
			fmt.Fprintf(&b, " %q", e.Title)
		}
		if e.Status != "" {
			b.WriteString(" (" + e.Status + ")")
		}
		fmt.Fprintf(&b, ": %s, %s, agent %s, query %s; %d×, last seen %s", e.ErrorType, e.Severity,
			e.AgentID, e.QueryID, e.Occurrences, e.LastSeen.UTC().Format(time.RFC3339))
		if e.NextAction != "" {
			b.WriteString("; next action " + e.NextAction)
		}
	}
	if o.NextCursor != "" {
		b.WriteString("\nMore: call errors_search again with cursor " + o.NextCursor)
	}
	return b.String()
}

func (o getOut) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Error %s: %s, %s; %d×, first seen %s, last seen %s\nAgent %s, query %s", o.ErrorID, o.ErrorType, o.Severity,
		o.Occurrences, o.FirstSeen.UTC().Format(time.RFC3339), o.LastSeen.UTC().Format(time.RFC3339), o.AgentID, o.QueryID)
	if r := o.Report; r != nil {
		b.WriteString("\nMessage: " + oneLine(r.Message))
		if r.ErrorCode != "" {
			b.WriteString("\nCode: " + r.ErrorCode)
		}
		if r.Environment != "" {
			b.WriteString("\nEnvironment: " + oneLine(r.Environment))
		}
		if r.Release != "" {
			b.WriteString("\nRelease: " + oneLine(r.Release))
		}
	}
	if a := o.Analysis; a != nil {
		a.write(&b)
	}
	if len(o.Trimmed) > 0 {
		b.WriteString("\nNot shown: " + strings.Join(o.Trimmed, "; "))
	}
	return b.String()
}

func (o reportOut) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Reported as error %s", o.ErrorID)
	if o.Duplicate {
		b.WriteString(" (a duplicate: the service had this report already)")
	}
	o.analysis.write(&b)
	return b.String()
}

// write adds the analysis's lines to b.
func (a analysis) write(b *strings.Builder) {
	fmt.Fprintf(b, "\nRoot cause: %s (confidence %.2f)", a.RootCause.Cause, a.RootCause.Confidence)
	for _, e := range a.RootCause.Evidence {
		b.WriteString("\n  - " + oneLine(e))
	}
	fmt.Fprintf(b, "\nFault: %s (%s)", a.Code, map[bool]string{true: "retryable", false: "not retryable"}[a.Retryable])
	b.WriteString("\nNext action: " + a.NextAction)
	if a.UserMessage != "" {
		b.WriteString("\nUser message: " + oneLine(a.UserMessage))
	}
	for i, s := range a.RecoverySuggestions {
		if i == 0 {
			b.WriteString("\nSuggestions:")
		}
		b.WriteString("\n  - " + oneLine(s))
	}
	if len(a.AutomatedActions) > 0 {
		b.WriteString("\nDone: " + strings.Join(a.AutomatedActions, ", "))
	}
}

func (o updateOut) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Error %s is %s", o.ErrorID, o.Status)
	switch {
	case o.InNextRelease:
		fmt.Fprintf(&b, " in the release after %q", o.InRelease)
	case o.InRelease != "":
		fmt.Fprintf(&b, " in release %q", o.InRelease)
	}
	if o.IgnoreUntil != nil {
		b.WriteString(" until " + o.IgnoreUntil.UTC().Format(time.RFC3339))
	}
	if o.IgnoreCount > 0 {
		fmt.Fprintf(&b, " until it occurs %d more times", o.IgnoreCount)
		if o.IgnoreWindow > 0 {
			fmt.Fprintf(&b, " within %ds", o.IgnoreWindow)
		}
	}
	if o.Assignee != "" {
		b.WriteString(", assigned to " + o.Assignee)
	}
	return b.String()
}

// oneLine is s with its line breaks and control characters replaced, so
// that a report's text cannot forge a line of the answer.
func oneLine(s string) string { return printable(s) }
