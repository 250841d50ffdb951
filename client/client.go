package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/resilience"
	"github.com/triage-go/triage/wire/problem"
)

// DefaultUserAgent is the User-Agent header the client sends unless
// Config.UserAgent sets another.
const DefaultUserAgent = "triage-go-client/1"

// DefaultTimeout bounds each attempt when no http.Client is given (see
// Config.HTTPClient): the service may run a model to analyse a report, but a
// stuck connection must not hold an agent for ever.
const DefaultTimeout = 60 * time.Second

// maxBody bounds the feedback the client reads: 1 MiB.
const maxBody = 1 << 20

// maxRecordBody bounds a record or a page of occurrences the client reads
// (Get, Occurrences): 16 MiB. The service bounds them to 4 MiB of
// documents, or one occurrence when it alone is more (a report of up to
// the service's largest body, and its feedback).
const maxRecordBody = 16 << 20

// reportsPath and runsPath are the paths of the reports and the runs,
// under the base URL.
const (
	reportsPath = "v1/errors"
	runsPath    = "v1/runs"
	alertsPath  = "v1/alerts"
	countsPath  = "v1/counts"
)

// Client reports errors to the Error Handler service. Build one with New and
// share it: it is safe for concurrent use, and its circuit breaker only
// works when every call to the service goes through it (or through clients
// sharing one Policy).
type Client struct {
	reports   string // the URL of POST /v1/errors
	runs      string // the URL of GET /v1/runs
	counts    string // the URL of GET /v1/counts
	alerts    string // the URL of /v1/alerts, under which the rules and targets are
	source    string // the service's host, naming its faults and breaker
	apiKey    string
	userAgent string
	http      *http.Client
	policy    *resilience.Policy
}

// Config configures a Client. Every zero field means the documented
// default.
type Config struct {
	// APIKey is sent as "Authorization: Bearer KEY". It must be printable
	// ASCII without spaces. The key is registered with fault.RegisterSecret
	// so that no error text carries it. Defaults to none: no Authorization
	// header.
	APIKey string
	// HTTPClient sends each attempt. Defaults to one with a Timeout of
	// DefaultTimeout over http.DefaultTransport. Its transport must not
	// retry on its own (see the package documentation).
	HTTPClient *http.Client
	// Resilience is what the client's own resilience.Policy is built from:
	// set MaxAttempts (1 disables retries), the backoff, MaxDuration,
	// OnRetry or a Logger there. Defaults to resilience.Config{}. Policy
	// overrides it.
	Resilience resilience.Config
	// Policy, when set, is the policy the client uses, which may be shared
	// with other clients and calls (so that they share its circuit
	// breakers). It takes precedence over Resilience.
	Policy *resilience.Policy
	// UserAgent is the User-Agent header. Defaults to DefaultUserAgent.
	UserAgent string
	// NoUserAgent sends no User-Agent header at all; UserAgent is then
	// ignored.
	NoUserAgent bool
}

// New returns a client of the Error Handler service at baseURL, an http or
// https URL such as "https://triage.internal" or
// "http://localhost:8080/triage" (the API's paths are resolved under its
// path). The URL must not carry credentials: pass the API key in
// Config.APIKey. New fails with a CONFIG_ERROR *fault.Error for a bad URL
// or Config.
func New(baseURL string, cfg Config) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		// url.Parse's error repeats the URL, which may hold credentials.
		return nil, configError("The base URL is not a valid URL.")
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, configError("The base URL must be an http or https URL.")
	case u.Host == "":
		return nil, configError("The base URL has no host.")
	case u.User != nil:
		return nil, configError("The base URL must not carry credentials; use Config.APIKey.")
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return nil, configError("The base URL must not have a query or a fragment.")
	}
	reports := u.JoinPath(reportsPath)

	c := &Client{
		reports:   reports.String(),
		runs:      u.JoinPath(runsPath).String(),
		alerts:    u.JoinPath(alertsPath).String(),
		counts:    u.JoinPath(countsPath).String(),
		source:    u.Host,
		userAgent: DefaultUserAgent,
		http:      cfg.HTTPClient,
		policy:    cfg.Policy,
	}
	if cfg.APIKey != "" {
		if !validToken(cfg.APIKey) {
			return nil, configError("The API key must be printable ASCII without spaces.")
		}
		c.apiKey = cfg.APIKey
		fault.RegisterSecret(cfg.APIKey)
	}
	switch {
	case cfg.NoUserAgent:
		c.userAgent = ""
	case cfg.UserAgent != "":
		if strings.ContainsAny(cfg.UserAgent, "\r\n") {
			return nil, configError("The user agent must be one line.")
		}
		c.userAgent = cfg.UserAgent
	}
	if c.http == nil {
		c.http = &http.Client{Timeout: DefaultTimeout}
	}
	if c.policy == nil {
		c.policy = resilience.New(cfg.Resilience)
	}
	return c, nil
}

// String describes the client without its API key.
func (c *Client) String() string { return "client.Client(" + c.reports + ")" }

// GoString is String, so that %#v does not print the API key either.
func (c *Client) GoString() string { return c.String() }

func configError(msg string) *fault.Error {
	return fault.New(fault.ConfigError, msg, fault.WithSource("client"))
}

// validToken reports whether s is 1 or more printable ASCII characters
// without spaces: a valid header value that cannot split a header.
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// Report sends report to the service (POST /v1/errors) and returns its
// feedback: for a new error (201), or the feedback given before for a
// duplicate (200, Duplicate true).
//
// Report sends an Idempotency-Key (opts.IdempotencyKey, or a new random
// one) and the same key on every retry; the retries follow
// the client's resilience.Policy (see the package documentation). It fills
// in an empty Timestamp (now, UTC) and Status ("error") on a copy of
// report; it does not validate the report, which the service does (call
// report.Validate first to check it locally).
//
// opts may be nil, for the defaults.
//
// The error, when there is one, is always a *fault.Error.
func (c *Client) Report(ctx context.Context, report *triage.Report, opts *ReportOptions) (*triage.Feedback, error) {
	if report == nil {
		return nil, fault.Invalid("The report is required.", fault.FieldError{Field: "(root)", Message: "is required"})
	}
	var key string
	if opts != nil {
		key = opts.IdempotencyKey
	}
	if key == "" {
		key = NewIdempotencyKey()
	} else if !validIdempotencyKey(key) {
		return nil, fault.Invalid("The idempotency key is invalid.", fault.FieldError{
			Field:   "Idempotency-Key",
			Message: fmt.Sprintf("must be 1 to %d printable ASCII characters without spaces, quotes or backslashes", maxIdempotencyKey),
		})
	}
	r := *report
	if r.Timestamp.IsZero() {
		r.Timestamp = time.Now().UTC()
	}
	if r.Status == "" {
		r.Status = "error"
	}
	body, err := json.Marshal(&r)
	if err != nil {
		return nil, fault.Wrap(err, fault.InvalidRequest, "The report cannot be encoded as JSON.")
	}

	op := resilience.Operation{
		Source: c.source,
		Name:   "POST /v1/errors",
		// Every attempt carries the same Idempotency-Key: the service
		// answers a repeat with the first request's outcome.
		Idempotent: true,
	}
	fb, err := resilience.Do(ctx, c.policy, op, func(ctx context.Context) (*triage.Feedback, error) {
		return c.post(ctx, body, key)
	})
	if err != nil {
		return nil, c.final(err)
	}
	return fb, nil
}

// send makes one attempt of a call: method to target, with body (nil for
// none) and key (the Idempotency-Key, "" for none). It returns the body of
// a response whose status is in ok, read up to limit bytes, or the fault
// of any other outcome.
func (c *Client) send(ctx context.Context, method, target string, body []byte, key string, limit int64, ok ...int) ([]byte, int, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return nil, 0, err
	}
	h := req.Header
	if body != nil {
		h.Set("Content-Type", "application/json")
	}
	h.Set("Accept", "application/json, "+problem.ContentType)
	if key != "" {
		h.Set("Idempotency-Key", key)
	}
	if c.apiKey != "" {
		h.Set("Authorization", "Bearer "+c.apiKey)
	}
	if c.userAgent != "" {
		h.Set("User-Agent", c.userAgent)
	} else {
		h["User-Agent"] = nil // net/http's own is not sent either
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, 0, err // fault.From classifies it; the policy decides
	}
	defer drain(resp)
	status := resp.StatusCode
	switch {
	case slices.Contains(ok, status):
	case status >= 400 && status <= 599:
		return nil, status, c.responseFault(resp)
	default:
		return nil, status, c.protocolError(fmt.Errorf("unexpected status %d", status), status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		// The answer was cut off. The call is idempotent (a report's
		// Idempotency-Key makes it so): a retry gets the answer again.
		f := fault.Wrap(err, fault.TransportError, "The connection to the Error Handler service broke while reading its answer.",
			fault.WithSource(c.source))
		f.Classification = fault.Classification{Method: fault.MethodNetwork, Rule: "read_body", Confidence: 0.9}
		return nil, status, f
	}
	if int64(len(data)) > limit {
		return nil, status, c.protocolError(fmt.Errorf("response body is longer than %d bytes", limit), status)
	}
	return data, status, nil
}

// post makes one attempt of Report.
func (c *Client) post(ctx context.Context, body []byte, key string) (*triage.Feedback, error) {
	data, status, err := c.send(ctx, http.MethodPost, c.reports, body, key, maxBody, http.StatusCreated, http.StatusOK)
	if err != nil {
		return nil, err
	}
	var fb triage.Feedback
	if err := json.Unmarshal(data, &fb); err != nil {
		return nil, c.protocolError(fmt.Errorf("feedback is not valid JSON: %w", err), status)
	}
	if fb.ErrorID == "" {
		return nil, c.protocolError(errors.New("feedback has no error_id"), status)
	}
	return &fb, nil
}

// Get returns the service's record of the error errorID (GET
// /v1/errors/{error_id}): the error, its latest report and feedback (as
// the JSON the service saved: decode them into a triage.Report and a
// triage.Feedback), its latest occurrences (the latest first, a page of
// them: OccurrencesNext, when there are more, is the cursor Occurrences
// takes) and its latest jobs. An error the service does not know, or that
// belongs to another tenant, is a NOT_FOUND fault. A GET is idempotent, so
// it is retried as the client's resilience.Policy allows. The answer is
// read up to 16 MiB.
//
// The error, when there is one, is always a *fault.Error.
func (c *Client) Get(ctx context.Context, errorID string) (*triage.Record, error) {
	return getObject[triage.Record](ctx, c, errorID, "", "GET /v1/errors/{error_id}", "error record")
}

// Occurrences returns a page of the occurrences of the error errorID (GET
// /v1/errors/{error_id}/occurrences): the latest first, each with its
// report and feedback, and Next when there are more. cursor is empty for
// the first page, else the Next of the page before (or the record's
// OccurrencesNext). Errors and retries are as Get's.
func (c *Client) Occurrences(ctx context.Context, errorID, cursor string) (*triage.OccurrencePage, error) {
	query := ""
	if cursor != "" {
		query = "?" + url.Values{"cursor": {cursor}}.Encode()
	}
	return getObject[triage.OccurrencePage](ctx, c, errorID, "/occurrences"+query, "GET /v1/errors/{error_id}/occurrences", "page of occurrences")
}

// ErrorQuery selects the error records Errors lists; each field set
// narrows the list.
type ErrorQuery struct {
	AgentID, QueryID string
	// ErrorType is one of the canonical types (triage.ErrorTypes) or
	// "unknown"; Severity is low, medium, high or critical.
	ErrorType, Severity string
	// Status keeps the records in this status as they read now
	// (unresolved, resolved, ignored or regressed).
	Status string
	// Since keeps the records last seen at or after it.
	Since time.Time
	// Environment keeps the records last seen in this environment;
	// Release those first or last seen in this release.
	Environment, Release string
	// Search keeps the records whose title, code, agent or query have a
	// word beginning with each word of it (the service's q).
	Search string
	// Sort is last_seen (the service's default), first_seen or count;
	// Window, with count, counts the occurrences of that many last hours
	// only (whole hours, up to 30 days).
	Sort   string
	Window time.Duration
	// Limit is the page size (0: the service's default, 50).
	Limit int
	// Cursor is the Next of the page before; empty for the first page.
	Cursor string
}

// Errors returns a page of the tenant's error records (GET /v1/errors) in
// q's sort: their summaries, each with its title and without documents
// (Get reads one whole), the Total the query selects, and Next when there
// are more. A query the service refuses is an INVALID_REQUEST fault
// naming each parameter. Errors and retries are as Get's.
func (c *Client) Errors(ctx context.Context, q ErrorQuery) (*triage.Page, error) {
	window := ""
	if q.Window > 0 {
		window = strconv.FormatInt(int64(q.Window/time.Hour), 10) + "h"
	}
	target := listTarget(c.reports, map[string]string{"agent_id": q.AgentID, "query_id": q.QueryID, "error_type": q.ErrorType,
		"severity": q.Severity, "status": q.Status, "environment": q.Environment, "release": q.Release, "q": q.Search, "sort": q.Sort, "window": window, "cursor": q.Cursor}, q.Since, q.Limit)
	return getJSON[triage.Page](ctx, c, target, "GET /v1/errors", "page of errors")
}

// Change applies a change to the record of errorID (PATCH
// /v1/errors/{error_id}): resolve it (now, in a release, in the next
// release), ignore it (for good, for a time, until N more occurrences or N
// within a window), set it back to unresolved, or assign it, with a note
// kept in its history. It returns the record's summary after the change.
// An invalid change is an INVALID_REQUEST fault naming its members (422,
// or 409 for a next release when none was reported); an unknown record a
// NOT_FOUND fault. It is retried as Get is: asking again for what the
// record already is changes nothing (but an ignore for a time starts its
// time again).
func (c *Client) Change(ctx context.Context, errorID string, ch triage.Change) (*triage.RecordSummary, error) {
	if !triage.IsIdentifier(errorID) {
		return nil, invalidErrorID()
	}
	body, err := json.Marshal(ch)
	if err != nil {
		return nil, fault.Wrap(err, fault.InvalidRequest, "The change could not be encoded.")
	}
	return sendJSON[triage.RecordSummary](ctx, c, http.MethodPatch, c.reports+"/"+url.PathEscape(errorID), body,
		"PATCH /v1/errors/{error_id}", "record summary")
}

// ChangeMany applies one change to every record its filter selects (POST
// /v1/errors/changes) and returns how many records changed (a record
// already as asked is not counted). Errors and retries are as Change's.
func (c *Client) ChangeMany(ctx context.Context, rc triage.RecordsChange) (*triage.RecordsChanged, error) {
	body, err := json.Marshal(rc)
	if err != nil {
		return nil, fault.Wrap(err, fault.InvalidRequest, "The change could not be encoded.")
	}
	return sendJSON[triage.RecordsChanged](ctx, c, http.MethodPost, c.reports+"/changes", body,
		"POST /v1/errors/changes", "count of changes")
}

// History returns a page of the transitions of the record of errorID
// (GET /v1/errors/{error_id}/history), the latest first: who changed it
// (an API key's name, operator, or triage for a regression or an ignore
// that lapsed), when, and from what to what. cursor is empty for the
// first page, else the Next of the page before. Errors and retries are as
// Get's.
func (c *Client) History(ctx context.Context, errorID, cursor string) (*triage.TransitionPage, error) {
	query := ""
	if cursor != "" {
		query = "?" + url.Values{"cursor": {cursor}}.Encode()
	}
	return getObject[triage.TransitionPage](ctx, c, errorID, "/history"+query, "GET /v1/errors/{error_id}/history", "page of transitions")
}

// Jobs returns a page of the jobs of the record of errorID (GET
// /v1/errors/{error_id}/jobs), the latest first, each with its state and
// attempts: cursor is empty for the first page (the record's own latest
// jobs), the record's JobsNext for the older ones, else the Next of the
// page before. Errors and retries are as Get's.
func (c *Client) Jobs(ctx context.Context, errorID, cursor string) (*triage.JobPage, error) {
	query := ""
	if cursor != "" {
		query = "?" + url.Values{"cursor": {cursor}}.Encode()
	}
	return getObject[triage.JobPage](ctx, c, errorID, "/jobs"+query, "GET /v1/errors/{error_id}/jobs", "page of jobs")
}

// RunQuery selects the runs Runs lists; each field set narrows the list.
type RunQuery struct {
	AgentID string
	// Outcome is running, finished, failed, disconnected or shutdown.
	Outcome string
	// Code keeps the failed runs whose fault has this code.
	Code string
	// Since keeps the runs started at or after it.
	Since time.Time
	// Limit is the page size (0: the service's default, 50).
	Limit int
	// Cursor is the Next of the page before; empty for the first page.
	Cursor string
}

// Runs returns a page of the tenant's AG-UI run records (GET /v1/runs),
// the latest started first, and Next when there are more. A query the
// service refuses is an INVALID_REQUEST fault naming each parameter.
// Errors and retries are as Get's.
func (c *Client) Runs(ctx context.Context, q RunQuery) (*triage.RunPage, error) {
	target := listTarget(c.runs, map[string]string{"agent_id": q.AgentID, "outcome": q.Outcome, "code": q.Code, "cursor": q.Cursor},
		q.Since, q.Limit)
	return getJSON[triage.RunPage](ctx, c, target, "GET /v1/runs", "page of runs")
}

// listTarget is a listing's URL: base, with the parameters set (the empty
// ones left out), since (RFC 3339) and limit when not zero.
func listTarget(base string, params map[string]string, since time.Time, limit int) string {
	v := url.Values{}
	for name, value := range params {
		if value != "" {
			v.Set(name, value)
		}
	}
	if !since.IsZero() {
		v.Set("since", since.UTC().Format(time.RFC3339Nano))
	}
	if limit != 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	if len(v) == 0 {
		return base
	}
	return base + "?" + v.Encode()
}

// getObject GETs a JSON object under the record of errorID (sub, after
// its path) with the retries of op name, and decodes it into a T.
func getObject[T any](ctx context.Context, c *Client, errorID, sub, name, what string) (*T, error) {
	if !triage.IsIdentifier(errorID) {
		return nil, invalidErrorID()
	}
	return getJSON[T](ctx, c, c.reports+"/"+url.PathEscape(errorID)+sub, name, what)
}

// invalidErrorID is the fault of an error id that cannot be a record's.
func invalidErrorID() error {
	return fault.Invalid("The error id is invalid.", fault.FieldError{
		Field:   "error_id",
		Message: "must be 1 to 128 letters, digits, '_', '-', '.' or ':', starting with a letter or digit",
	})
}

// getJSON GETs the JSON object at target with the retries of op name, and
// decodes it into a T.
func getJSON[T any](ctx context.Context, c *Client, target, name, what string) (*T, error) {
	return sendJSON[T](ctx, c, http.MethodGet, target, nil, name, what)
}

// sendJSON sends method to target with body (nil for none) with the
// retries of op name (an idempotent one), and decodes the JSON object of
// its 200 into a T.
func sendJSON[T any](ctx context.Context, c *Client, method, target string, body []byte, name, what string) (*T, error) {
	op := resilience.Operation{Source: c.source, Name: name, Idempotent: true}
	obj, err := resilience.Do(ctx, c.policy, op, func(ctx context.Context) (*T, error) {
		data, status, err := c.send(ctx, method, target, body, "", maxRecordBody, http.StatusOK)
		if err != nil {
			return nil, err
		}
		data = bytes.TrimSpace(data)
		if len(data) == 0 || data[0] != '{' {
			return nil, c.protocolError(errors.New(what+" is not a JSON object"), status)
		}
		v := new(T)
		if err := json.Unmarshal(data, v); err != nil {
			return nil, c.protocolError(fmt.Errorf("%s is not valid: %w", what, err), status)
		}
		return v, nil
	})
	if err != nil {
		return nil, c.final(err)
	}
	return obj, nil
}

// protocolError is the fault of an answer that breaks the API's contract.
// It is not retried: the service would answer the same way.
func (c *Client) protocolError(cause error, status int) *fault.Error {
	f := fault.Wrap(cause, fault.ProtocolError, "The Error Handler service returned an invalid response.",
		fault.WithSource(c.source), fault.WithDetail("upstream_status", status))
	f.Classification = fault.Classification{Method: fault.MethodDecode, Rule: "invalid_response", Confidence: 1}
	return f
}

// responseFault turns an error response into its fault: the problem
// document when there is one, else the status.
func (c *Client) responseFault(resp *http.Response) *fault.Error {
	var f *fault.Error
	if p, err := problem.ReadResponse(resp); err == nil {
		f = p.Fault()
	} else {
		f = statusFault(resp)
	}
	if f.Code == fault.SessionBusy {
		// The contract: a request with the same key is in flight; once it
		// ends, a retry gets its outcome.
		f.Retryable = true
	}
	if f.Source == "" {
		f.Source = c.source
	}
	c.scrub(f)
	return f
}

// statusFault classifies an error response that is not a problem document
// (a proxy's, a load balancer's) by its status and delay headers, as this
// API uses its statuses.
func statusFault(resp *http.Response) *fault.Error {
	var code fault.Code
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		code = fault.TenantRequired
	case http.StatusForbidden:
		code = fault.TenantUnauthorized
	case http.StatusConflict:
		code = fault.SessionBusy
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		code = fault.InvalidRequest
	case http.StatusNotFound:
		code = fault.NotFound
	default:
		return fault.FromResponse(resp)
	}
	f := fault.New(code, "", fault.WithStatus(resp.StatusCode), fault.WithDetail("upstream_status", resp.StatusCode))
	f.Classification = fault.Classification{Method: fault.MethodHTTPStatus, Rule: fmt.Sprintf("http_%d", resp.StatusCode), Confidence: 0.9}
	if d, ok := fault.RetryDelay(resp.Header, time.Now()); ok && d > 0 {
		f.RetryAfter = d
	}
	return f
}

// final turns what the policy returned into Report's error: always a
// *fault.Error, without the API key, in its text or in its cause's (which
// debug output and logs show; Error leaves the cause out).
func (c *Client) final(err error) *fault.Error {
	f := fault.From(err)
	if c.apiKey != "" && (strings.Contains(f.Error(), c.apiKey) || strings.Contains(f.Debug.Cause, c.apiKey) ||
		(f.Cause != nil && strings.Contains(f.Cause.Error(), c.apiKey))) {
		f = f.Clone()
		if f.Cause != nil {
			f.Cause = redactedError{err: f.Cause, secret: c.apiKey}
		}
		c.scrub(f)
	}
	return f
}

// scrub removes the API key from the text of a fault the client built,
// whatever its length (fault.Redact only knows secrets of 8 bytes or more):
// its message, source, field errors, details and debug output, at any
// depth.
func (c *Client) scrub(f *fault.Error) {
	if c.apiKey == "" {
		return
	}
	clean := func(s string) string { return strings.ReplaceAll(s, c.apiKey, "[REDACTED]") }
	f.Message = clean(f.Message)
	f.Source = clean(f.Source)
	f.Debug.Cause = clean(f.Debug.Cause)
	for i := range f.FieldErrors {
		f.FieldErrors[i].Field = clean(f.FieldErrors[i].Field)
		f.FieldErrors[i].Message = clean(f.FieldErrors[i].Message)
	}
	f.Debug.ErrorType = clean(f.Debug.ErrorType)
	if f.Details != nil {
		f.Details = cleanValue(f.Details, clean).(map[string]any)
	}
	if f.Debug.Extra != nil {
		f.Debug.Extra = cleanValue(f.Debug.Extra, clean).(map[string]any)
	}
}

// cleanValue is v with clean applied to every string in it, map keys
// included: a problem document's details and debug members nest, and a
// peer may echo the key at any depth.
func cleanValue(v any, clean func(string) string) any {
	switch x := v.(type) {
	case string:
		return clean(x)
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[clean(k)] = cleanValue(e, clean)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cleanValue(e, clean)
		}
		return out
	case []string:
		out := make([]string, len(x))
		for i, e := range x {
			out[i] = clean(e)
		}
		return out
	}
	return v
}

// redactedError is an error whose text has a secret removed; errors.Is and
// errors.As still reach the error it wraps.
type redactedError struct {
	err    error
	secret string
}

func (e redactedError) Error() string {
	return strings.ReplaceAll(e.err.Error(), e.secret, "[REDACTED]")
}

func (e redactedError) Unwrap() error { return e.err }

// drain reads a little of what is left of a body, so that the connection
// can be reused, and closes it.
func drain(resp *http.Response) {
	io.CopyN(io.Discard, resp.Body, 64<<10)
	resp.Body.Close()
}

// CountQuery selects the series of counts Counts and ErrorCounts return.
type CountQuery struct {
	// By is record (the service's default), agent or code (Counts only).
	By string
	// Bucket is time.Hour (the default) or 24 * time.Hour (UTC days).
	Bucket time.Duration
	// Since and Until bound the range (the service's defaults: the day,
	// or with day buckets the 30 days, up to now).
	Since, Until time.Time
	// ErrorIDs, with By record, selects these records (Counts only).
	ErrorIDs []string
	// Limit bounds the series (Counts only; 0: the service's default).
	Limit int
}

// values is q as the query of a counts' route.
func (q CountQuery) values() url.Values {
	v := url.Values{}
	if q.By != "" {
		v.Set("by", q.By)
	}
	if q.Bucket == 24*time.Hour {
		v.Set("bucket", "day")
	}
	if !q.Since.IsZero() {
		v.Set("since", q.Since.UTC().Format(time.RFC3339Nano))
	}
	if !q.Until.IsZero() {
		v.Set("until", q.Until.UTC().Format(time.RFC3339Nano))
	}
	if len(q.ErrorIDs) > 0 {
		v["error_id"] = q.ErrorIDs
	}
	if q.Limit != 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	return v
}

// Counts returns the tenant's occurrences per hour or day by record,
// agent or code (GET /v1/counts), each series zero-filled. Errors and
// retries are as Get's.
func (c *Client) Counts(ctx context.Context, q CountQuery) (*triage.Counts, error) {
	target := c.counts
	if v := q.values(); len(v) > 0 {
		target += "?" + v.Encode()
	}
	return getJSON[triage.Counts](ctx, c, target, "GET /v1/counts", "counts")
}

// ErrorCounts returns the occurrences of the error errorID per hour or
// day (GET /v1/errors/{error_id}/counts): one series, zero-filled. q's
// By, ErrorIDs and Limit must be zero. Errors and retries are as Get's.
func (c *Client) ErrorCounts(ctx context.Context, errorID string, q CountQuery) (*triage.Counts, error) {
	query := ""
	if v := q.values(); len(v) > 0 {
		query = "?" + v.Encode()
	}
	return getObject[triage.Counts](ctx, c, errorID, "/counts"+query, "GET /v1/errors/{error_id}/counts", "counts")
}
