package bridge

import (
	"context"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
)

// Errors is the error store as one tenant sees it: what the errors_* tools
// read and change (ServeErrors). Each method answers as the service's API
// does, and fails with a *fault.Error a model may be shown: NOT_FOUND for
// a record the tenant does not have, INVALID_REQUEST (with field errors)
// for a bad filter, report or change, SERVICE_UNAVAILABLE when the store
// or the service cannot be reached. Two implementations exist: /mcp's,
// in-process over the service and its store with the API key's tenant
// (package server), and ServiceErrors, over the Go client.
type Errors interface {
	// List returns a page of the tenant's record summaries that f
	// selects, as GET /v1/errors does: f's Limit and Cursor page it.
	List(ctx context.Context, f store.Filter) (triage.Page, error)
	// Get returns a record with its latest report and feedback and its
	// latest occurrences, as GET /v1/errors/{error_id} does.
	Get(ctx context.Context, errorID string) (triage.Record, error)
	// Report hands a report to the service, as POST /v1/errors does, and
	// returns its feedback (Duplicate set for a report the service had
	// seen).
	Report(ctx context.Context, r *triage.Report) (triage.Feedback, error)
	// Change asks for a change of a record's workflow (its status, its
	// assignee, with a note), as PATCH /v1/errors/{error_id} does, and
	// returns the record's workflow after it.
	Change(ctx context.Context, errorID string, c triage.Change) (triage.Workflow, error)
}

// The bounds of what the errors_* tools answer: whatever the size of a
// record's report (up to 1 MiB), an answer stays a few KiB.
const (
	// DefaultSearchLimit and MaxSearchLimit bound a page of errors_search.
	DefaultSearchLimit = 20
	MaxSearchLimit     = 50
	// MaxShownMessage bounds a report's message errors_get shows, in
	// bytes (a report's message may be triage.MaxMessage).
	MaxShownMessage = 1 << 10
	// MaxShownContext bounds the report's context errors_get shows, as
	// JSON, in bytes: its members are kept in the order of their names
	// while they fit, and the others named in the answer's "trimmed".
	MaxShownContext = 8 << 10
	// MaxShownOccurrences bounds the latest occurrences errors_get lists
	// (without their documents).
	MaxShownOccurrences = 5
)

// ServeErrors adds the error store's tools to the bridge: errors_search,
// errors_get, errors_report and errors_update, over the Errors of the
// call's owner (the tenant on /mcp; over stdio there is one owner, ""),
// which of returns. Call it once, before the bridge serves.
func (b *Bridge) ServeErrors(of func(owner string) Errors) {
	t := errorTools{b: b, of: of}
	addTool(b, &mcp.Tool{Name: "errors_search", Title: "Search errors",
		Description: "Lists the error records of the error store, the most recently seen first (or first seen, or the most frequent: sort), found by words of their title, code, agent or query (query) and narrowed by agent, query id, error type, severity, status and last seen since; a page at a time (nextCursor continues), with the total that match. Each record is every occurrence of one error (one fingerprint): its title, status, count, first and last seen, and the next action decided for its latest occurrence. Then get one with errors_get.",
		Annotations: readOnly}, t.search)
	addTool(b, &mcp.Tool{Name: "errors_get", Title: "Get an error",
		Description: "One error record: its counts, its latest occurrences, the latest occurrence's analysis (root cause with evidence, user message, recovery suggestions, next action) and its report, trimmed to a few KiB (the answer's trimmed says what was cut). No secret or stack trace: reports are redacted when the service takes them.",
		Annotations: readOnly}, t.get)
	addTool(b, &mcp.Tool{Name: "errors_report", Title: "Report an error",
		Description: "Reports an error to the error store, as an agent pipeline does (POST /v1/errors): the service classifies it, finds its root cause, decides the recovery and groups it with the same error's earlier occurrences; its automated actions run as for any report (a retry posted to the agent's callback URL, an escalation to the operators). Returns the analysis and the errorId to get it with. Not idempotent: the same report with the same timestamp is recognised as a duplicate, a new timestamp is a new occurrence.",
		Annotations: appends}, t.report)
	addTool(b, &mcp.Tool{Name: "errors_update", Title: "Update an error's status",
		Description: "Changes an error record's status (resolved, optionally in a release or the next one; ignored, for good, for a time or a number of occurrences; unresolved), its assignee, or both, with a note kept in its history. A resolved error that occurs again regresses. Idempotent: asking for the state it is in changes nothing.",
		Annotations: updates}, t.update)
}

// The annotations of the error store's writes: they reach no other system
// than the service, and a report adds an occurrence (not idempotent), a
// change sets a state (asking twice is asking once).
var (
	appends = &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: false, OpenWorldHint: ptr(false)}
	updates = &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}
)

// errorTools are the handlers of the errors_* tools.
type errorTools struct {
	b  *Bridge
	of func(owner string) Errors
}

func (t errorTools) errors(ctx context.Context, req *mcp.CallToolRequest) Errors {
	return t.of(t.b.owner(ctx, req))
}

func (t errorTools) search(ctx context.Context, req *mcp.CallToolRequest, in searchIn) (searchOut, error) {
	f, err := in.filter()
	if err != nil {
		return searchOut{}, err
	}
	page, err := t.errors(ctx, req).List(ctx, f)
	if err != nil {
		return searchOut{}, err
	}
	out := searchOut{Errors: make([]errorSummary, 0, len(page.Records)), NextCursor: page.Next, Total: page.Total}
	for _, r := range page.Records {
		out.Errors = append(out.Errors, summaryOf(r))
	}
	return out, nil
}

func (t errorTools) get(ctx context.Context, req *mcp.CallToolRequest, in errorIn) (getOut, error) {
	rec, err := t.errors(ctx, req).Get(ctx, in.ErrorID)
	if err != nil {
		return getOut{}, err
	}
	return recordOut(rec), nil
}

func (t errorTools) report(ctx context.Context, req *mcp.CallToolRequest, in reportIn) (reportOut, error) {
	r, err := in.report(t.b.cfg.Now())
	if err != nil {
		return reportOut{}, err
	}
	fb, err := t.errors(ctx, req).Report(ctx, r)
	if err != nil {
		return reportOut{}, err
	}
	return reportOut{analysis: analysisOf(fb), ErrorID: fb.ErrorID, Duplicate: fb.Duplicate}, nil
}

func (t errorTools) update(ctx context.Context, req *mcp.CallToolRequest, in updateIn) (updateOut, error) {
	w, err := t.errors(ctx, req).Change(ctx, in.ErrorID, in.change())
	if err != nil {
		return updateOut{ErrorID: in.ErrorID}, err
	}
	return workflowOut(in.ErrorID, w), nil
}

// filter is the store.Filter of a search: its since read as RFC 3339, its
// limit defaulted.
func (in searchIn) filter() (store.Filter, error) {
	f := store.Filter{AgentID: in.AgentID, QueryID: in.QueryID, ErrorType: in.ErrorType, Severity: in.Severity,
		Search: in.Query, Sort: in.Sort, Limit: in.Limit, Cursor: in.Cursor}
	if f.Search != "" {
		if _, err := store.ParseSearch(f.Search); err != nil {
			return store.Filter{}, fault.Invalid("The arguments are invalid.",
				fault.FieldError{Field: "query", Message: strings.TrimPrefix(err.Error(), store.ErrBadSearch.Error()+": ")})
		}
	}
	switch f.Sort {
	case "", store.SortLastSeen, store.SortFirstSeen, store.SortCount:
	default:
		return store.Filter{}, fault.Invalid("The arguments are invalid.",
			fault.FieldError{Field: "sort", Message: "must be last_seen, first_seen or count"})
	}
	if f.Limit == 0 {
		f.Limit = DefaultSearchLimit
	}
	if in.Status != "" {
		if f.Status = triage.Status(in.Status); !f.Status.Valid() {
			return store.Filter{}, fault.Invalid("The arguments are invalid.",
				fault.FieldError{Field: "status", Message: "must be unresolved, resolved, ignored or regressed"})
		}
	}
	if in.Since != "" {
		since, err := time.Parse(time.RFC3339Nano, in.Since)
		if err != nil {
			return store.Filter{}, fault.Invalid("The arguments are invalid.",
				fault.FieldError{Field: "since", Message: "must be an RFC 3339 date and time, such as 2025-08-08T12:00:00Z"})
		}
		f.Since = since
	}
	return f, nil
}

// report is the report of a call: status "error", its timestamp now unless
// the call gave one.
func (in reportIn) report(now time.Time) (*triage.Report, error) {
	r := &triage.Report{AgentID: in.AgentID, Timestamp: now.UTC(), Status: "error", Environment: in.Environment,
		Release: in.Release, Tags: in.Tags, Data: triage.Data{ErrorType: triage.ErrorType(in.ErrorType),
			ErrorCode: in.ErrorCode, Message: in.Message, Context: in.Context, QueryID: in.QueryID}}
	if in.Timestamp != "" {
		ts, err := time.Parse(time.RFC3339Nano, in.Timestamp)
		if err != nil {
			return nil, fault.Invalid("The arguments are invalid.",
				fault.FieldError{Field: "timestamp", Message: "must be an RFC 3339 date and time, such as 2025-08-08T12:00:00Z"})
		}
		r.Timestamp = ts
	}
	return r, nil
}

// change is the triage.Change a call asks for.
func (in updateIn) change() triage.Change {
	c := triage.Change{Status: triage.Status(in.Status), Assignee: in.Assignee, Note: in.Note}
	if in.InRelease != "" || in.InNextRelease {
		c.Resolution = &triage.Resolution{InRelease: in.InRelease, InNextRelease: in.InNextRelease}
	}
	if in.IgnoreSeconds != 0 || in.IgnoreCount != 0 || in.IgnoreWindowSeconds != 0 {
		c.Ignore = &triage.IgnoreFor{Seconds: in.IgnoreSeconds, Count: in.IgnoreCount, WindowSeconds: in.IgnoreWindowSeconds}
	}
	return c
}
