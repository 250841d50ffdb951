package service

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/handler"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/wire/problem"
)

// Submission is one report for Accept, from whichever door took it.
type Submission struct {
	// Tenant owns the report, as the door authenticated it: one of
	// Config.Tenants. "" is DefaultTenant.
	Tenant string
	// Body is the report's JSON, as the client sent it.
	Body []byte
	// ContentType is the media type the client gave Body; "" is JSON.
	ContentType string
	// Key is the client's idempotency key, "" for none: 1 to 255
	// printable ASCII characters, without spaces, quotes or backslashes.
	// KeyName is what the door calls it, for the problem of a key that is
	// not one. Defaults to "Idempotency-Key".
	Key, KeyName string
}

// Answer is what Accept answers a report it took: what POST /v1/errors
// writes.
type Answer struct {
	// Status is 201 for a new delivery, 200 for a duplicate (the same
	// error_id); under a key, the stored answer's status, which may be the
	// 422 of an invalid report.
	Status int
	// ContentType is application/json, or application/problem+json for a
	// stored 422.
	ContentType string
	// Body is the feedback (or the stored problem).
	Body []byte
	// Replayed tells that the answer is the stored one of Key's first
	// request (HTTP's Idempotent-Replayed: true).
	Replayed bool
}

// Accept accepts one report for a tenant: the pipeline behind every door.
// It checks the submission (tenant, content type, size, key), decodes,
// validates and redacts the report once, handles it and commits its
// record, its jobs and the key's answer before it returns: an Answer means
// the report is durable, and a repeat (the same Key, or without one the
// same report: its fingerprint and timestamp) answers the same error_id
// without a second record.
//
// An error is a refusal, a *fault.Error: for the submission or the
// report, TENANT_UNAUTHORIZED, INVALID_REQUEST (400 for a body that is not
// JSON, 415 for another content type, 422 for an invalid report or a key
// reused with another body), PAYLOAD_TOO_LARGE; SESSION_BUSY while the
// same report or key is being handled; SERVICE_UNAVAILABLE when the store
// failed (nothing is committed then, and a retry is handled anew). The
// retryable ones (fault.Error.Retryable) are worth the same submission
// again later; the others are final.
func (s *Service) Accept(ctx context.Context, sub Submission) (Answer, error) {
	tenant := sub.Tenant
	if tenant == "" {
		tenant = DefaultTenant
	}
	if !s.Known(tenant) {
		return Answer{}, fault.New(fault.TenantUnauthorized, "The tenant is not one this service knows.")
	}
	if err := CheckContentType(sub.ContentType); err != nil {
		return Answer{}, err
	}
	if int64(len(sub.Body)) > s.cfg.MaxBody {
		return Answer{}, TooLarge(s.cfg.MaxBody)
	}
	keyName := sub.KeyName
	if keyName == "" {
		keyName = "Idempotency-Key"
	}
	t := s.cfg.Store.Tenant(tenant)
	if sub.Key == "" {
		status, out, err := s.report(ctx, tenant, t, sub.Body)
		if err != nil {
			return Answer{}, err
		}
		return Answer{Status: status, ContentType: "application/json", Body: out}, nil
	}
	if err := CheckKey(keyName, sub.Key); err != nil {
		return Answer{}, err
	}
	return s.acceptKeyed(ctx, tenant, t, sub.Body, sub.Key, keyName)
}

// reporting is what the report path needs of a tenant's store: the
// handler's state, the reads of store.Knowledge, the agents' callbacks
// (store.Agents), the commit and the one-write path (store.Reporter).
type reporting interface {
	triage.State
	triage.Synonyms
	triage.Cache
	store.Agents
	store.OccurrenceSaver
	store.Reporter
}

// keyedReporting is reporting under an idempotency key.
type keyedReporting interface {
	reporting
	store.Requests
}

// acceptKeyed handles a report under an idempotency key: the key's stored
// answer for a repeat, else the report's, stored under the key (its 422
// too: an invalid report stays invalid).
func (s *Service) acceptKeyed(ctx context.Context, tenant string, t keyedReporting, body []byte, key, keyName string) (Answer, error) {
	sum := sha256.Sum256(body)
	state, prior, err := t.BeginRequest(ctx, key, hex.EncodeToString(sum[:]))
	if err != nil {
		return Answer{}, store.Unavailable(err)
	}
	switch state {
	case store.IdemInFlight:
		return Answer{}, fault.New(fault.SessionBusy, "A request with this "+keyName+" is still being handled. Retry shortly.",
			fault.WithRetryAfter(time.Second))
	case store.IdemMismatch:
		return Answer{}, fault.New(fault.InvalidRequest, "This "+keyName+" was used with a different request body.",
			fault.WithStatus(http.StatusUnprocessableEntity),
			fault.WithFieldErrors(fault.FieldError{Field: keyName, Message: "reused with a different payload"}))
	case store.IdemDone:
		return Answer{Status: prior.Status, ContentType: prior.ContentType, Body: prior.Body, Replayed: true}, nil
	}
	status, out, err := s.report(ctx, tenant, t, body)
	resp := store.StoredResponse{Status: status, ContentType: "application/json", Body: out}
	if err != nil {
		f := fault.From(err)
		if f.Code != fault.InvalidRequest { // not a final answer: the client may retry with the key
			if aerr := t.AbandonRequest(context.WithoutCancel(ctx), key); aerr != nil {
				s.log(ctx, slog.LevelError, "abandoning an idempotency key failed", slog.Any("error", fault.From(aerr)))
			}
			return Answer{}, err
		}
		p := problem.From(f, s.cfg.Problems)
		resp.Status, resp.ContentType = f.HTTPStatus(), problem.ContentType
		if resp.Body, err = json.Marshal(p); err != nil {
			return Answer{}, err
		}
	}
	if err := t.FinishRequest(ctx, key, resp); err != nil {
		return Answer{}, store.Unavailable(err)
	}
	return Answer{Status: resp.Status, ContentType: resp.ContentType, Body: resp.Body}, nil
}

// reportTries bounds how many times a report is read and decided again
// when its one write finds that another report moved what it was decided
// on (the attempt counted meanwhile): past it, the report goes the
// two-write way, whose claim serialises it.
const reportTries = 5

// report decodes, handles and records one report: the status (201 or 200)
// and the feedback's JSON.
//
// A report costs one write (store.Reporter): a read of what Start would
// find (the delivery's feedback, the attempt and the window's failures),
// the handler's decision on it, then one transaction that claims the
// delivery, counts the attempt, records the failure and saves the
// occurrence, its record, the delivery's completion and its jobs, when
// what the decision was made on still holds. A repeat whose delivery is
// saved writes nothing.
func (s *Service) report(ctx context.Context, tenant string, t reporting, body []byte) (int, []byte, error) {
	rep, err := triage.DecodeReport(body) // validated and redacted, once
	if err != nil {
		if !json.Valid(body) {
			return 0, nil, Malformed(body)
		}
		s.handler.Invalid(ctx, err) // the engine's metrics and logs see it
		return 0, nil, unprocessable(err)
	}
	// Classified ahead of the peek: most reports are first deliveries,
	// which Decide classifies anyway, and a report whose cause the
	// report alone settles spares the peek the window's count.
	p := s.handler.Classify(rep, s.handler.Prepare(rep))
	for range reportTries {
		peek, err := t.PeekReport(ctx, p.Start)
		if errors.Is(err, store.ErrTwoStep) {
			break
		}
		if err != nil {
			return 0, nil, s.failed(ctx, err, rep)
		}
		res, err := s.decide(ctx, t, rep, p, peek.StartResult, peek.Read, true)
		if err != nil {
			return 0, nil, err
		}
		occ, err := s.occurrence(ctx, rep, p, res)
		if err != nil {
			return 0, nil, err
		}
		var saved store.Saved
		switch {
		case !peek.First && peek.Saved:
			// A repeat of a delivery saved as an occurrence: its
			// record is committed, nothing to write.
		case !peek.First:
			// A repeat whose feedback was stored without an
			// occurrence (Deliveries.Complete): saved, so that the
			// answer means a committed record.
			saved, err = t.SaveOccurrence(ctx, occ)
		default:
			saved, err = t.Report(ctx, p.Start, peek.StartResult, occ)
			if errors.Is(err, store.ErrReportMoved) {
				continue // decided on counts that moved: read and decide again
			}
			if errors.Is(err, store.ErrTwoStep) {
				return s.reportTwoStep(ctx, tenant, t, rep, p)
			}
		}
		if err != nil {
			return 0, nil, s.failed(ctx, err, rep)
		}
		if saved.Held > 0 {
			s.worker.held.Add(float64(saved.Held)) // as runJob counts those it holds
		}
		s.handler.Observe(ctx, res) // counted once, as decided last
		return s.answer(ctx, tenant, rep, occ, res.Feedback, saved, peek.Read)
	}
	return s.reportTwoStep(ctx, tenant, t, rep, p)
}

// decide runs the handler on rep, started as started (read: what the peek
// read besides, if it did); tentative when the report may be decided again
// (the one write), to be observed once saved.
func (s *Service) decide(ctx context.Context, t reporting, rep *triage.Report, p handler.Prepared, started triage.StartResult, read store.PeekedReads, tentative bool) (*handler.Result, error) {
	reads := &peekedReads{t: t, read: read, agent: p.Start.Agent, query: p.Start.QueryID}
	return s.handler.Decide(ctx, handler.Input{Report: rep, Prepared: p, Started: started,
		Synonyms: t, Cache: reads, Callbacks: reads, Escalations: true, Tentative: tentative})
}

// reportTwoStep is report in two writes, for the deliveries the one write
// cannot take (store.ErrTwoStep) and the reports whose counts kept moving:
// Start claims the delivery, counts the attempt and records the failure,
// the handler decides, and SaveOccurrence saves; a failure in between
// releases the claim.
func (s *Service) reportTwoStep(ctx context.Context, tenant string, t reporting, rep *triage.Report, p handler.Prepared) (int, []byte, error) {
	started, err := t.Start(ctx, p.Start)
	if err != nil {
		return 0, nil, s.failed(ctx, err, rep)
	}
	release := func() {
		if !started.First {
			return
		}
		// Not handled or not saved: the delivery's claim goes, so that
		// the client's retry is handled anew rather than told it is in
		// flight.
		if rerr := t.Release(context.WithoutCancel(ctx), p.Key); rerr != nil {
			s.log(ctx, slog.LevelError, "releasing a delivery claim failed", slog.Any("error", fault.From(rerr)))
		}
	}
	res, err := s.decide(ctx, t, rep, p, started, store.PeekedReads{}, false)
	if err != nil {
		release()
		return 0, nil, err
	}
	occ, err := s.occurrence(ctx, rep, p, res)
	if err != nil {
		release()
		return 0, nil, err
	}
	// Saved for duplicates too (a no-op when it is there): a 200 or a 201
	// always means the record is committed, even when the instance that
	// first handled the report died before saving it. The save completes
	// the delivery and enqueues the jobs, in the same transaction.
	saved, err := t.SaveOccurrence(ctx, occ)
	if err != nil {
		release()
		return 0, nil, s.failed(ctx, err, rep)
	}
	return s.answer(ctx, tenant, rep, occ, res.Feedback, saved, store.PeekedReads{})
}

// answer is the status and document of fb, the feedback of rep, whose
// occurrence occ is committed (saved is what its save did; read what its
// peek read besides, if it did): the record's subscribers and alert rules
// hear of a new occurrence first.
func (s *Service) answer(ctx context.Context, tenant string, rep *triage.Report, occ store.Occurrence, fb *triage.Feedback, saved store.Saved, read store.PeekedReads) (int, []byte, error) {
	if saved.ID != 0 { // 0: an earlier delivery saved it
		s.Changed(tenant)
		s.alertOnSave(ctx, tenant, rep, occ, saved, read)
	}
	if saved.WorkflowErr != nil { // saved; the record's next occurrence takes the step
		s.log(ctx, slog.LevelError, "updating a record's workflow after its occurrence failed",
			slog.String("error_id", occ.ErrorID), slog.Any("error", fault.From(saved.WorkflowErr)))
	}
	if !fb.Duplicate && len(occ.Feedback) > 0 {
		// The occurrence's feedback is this answer's, encoded once: it
		// differs only for a duplicate (Duplicate is false in the store).
		return http.StatusCreated, occ.Feedback, nil
	}
	out, err := fb.Document()
	if err != nil {
		return 0, nil, err
	}
	if fb.Duplicate {
		return http.StatusOK, out, nil
	}
	return http.StatusCreated, out, nil
}

// occurrence is what SaveOccurrence commits of a report's handling.
func (s *Service) occurrence(ctx context.Context, rep *triage.Report, p handler.Prepared, res *handler.Result) (store.Occurrence, error) {
	fb := res.Feedback
	var actions json.RawMessage
	var err error
	if len(fb.Outcomes) > 0 {
		if actions, err = triage.OutcomesDocument(fb.Outcomes); err != nil {
			return store.Occurrence{}, err
		}
	}
	stored, err := rep.Document()
	if err != nil {
		return store.Occurrence{}, err
	}
	// The stored feedback is the delivery's, not this answer's: a
	// duplicate's is saved only when the first delivery's save was lost,
	// and then it is the first one stored (and streamed).
	first := *fb
	first.Duplicate = false
	feedback, err := first.Document()
	if err != nil {
		return store.Occurrence{}, err
	}
	jobs, err := s.jobs(ctx, res.Jobs)
	if err != nil {
		return store.Occurrence{}, err
	}
	code, title := rep.Title()
	return store.Occurrence{
		Code:        code,
		Title:       title,
		DeliveryKey: p.Key,
		ErrorID:     fb.ErrorID,
		QueryID:     fb.QueryID,
		AgentID:     rep.AgentID,
		ErrorType:   string(fb.ErrorType),
		Severity:    string(fb.Severity),
		NextAction:  string(fb.NextAction),
		Attempt:     fb.Attempt,
		Release:     rep.Release,
		Environment: rep.Environment,
		ReportedAt:  rep.Timestamp,
		ReceivedAt:  s.cfg.Now(),
		Report:      stored,
		Feedback:    feedback,
		Actions:     actions,
		Jobs:        jobs,
	}, nil
}

// jobs turns the engine's jobs into the store's, each carrying the trace
// that asked for it.
func (s *Service) jobs(ctx context.Context, in []triage.Job) ([]store.NewJob, error) {
	var out []store.NewJob
	for _, j := range in {
		var nj store.NewJob
		var err error
		switch {
		case j.Retry != nil:
			nj = store.NewJob{Kind: store.JobRetry, ErrorID: j.Retry.ErrorID, RunAt: j.Retry.At}
			nj.Payload, err = json.Marshal(j.Retry)
		case j.Escalation != nil:
			nj = store.NewJob{Kind: store.JobEscalation, ErrorID: j.Escalation.ErrorID} // RunAt zero: now
			nj.Payload, err = json.Marshal(j.Escalation)
			// The report's write counts it held when its throttle
			// holds firings back already, as the job would (issue 28:
			// a repeat's cost); none when escalations are not
			// throttled.
			nj.Throttle = s.worker.cfg.escalationThrottle()
		default:
			continue
		}
		if err != nil {
			return nil, err
		}
		nj.Trace = JobTrace(ctx)
		out = append(out, nj)
	}
	return out, nil
}

// failed is the fault of a store's failure to handle rep, counted and
// logged as the engine's refusals are.
func (s *Service) failed(ctx context.Context, err error, rep *triage.Report) error {
	err = store.Unavailable(err)
	s.handler.Refused(ctx, fault.From(err), rep)
	return err
}

func (s *Service) log(ctx context.Context, level slog.Level, msg string, attrs ...any) {
	if s.cfg.Logger != nil {
		s.cfg.Logger.Log(ctx, level, msg, attrs...)
	}
}

// CheckContentType refuses a media type that is not JSON (415); "" is
// JSON.
func CheckContentType(ct string) error {
	if ct == "" || ct == "application/json" { // as clients send it: nothing to parse
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return nil
	}
	return fault.New(fault.InvalidRequest, "The request body must be JSON (Content-Type: application/json).",
		fault.WithStatus(http.StatusUnsupportedMediaType), fault.WithDetail("content_type", fault.Redact(ct)))
}

// TooLarge is the 413 of a body over limit bytes.
func TooLarge(limit int64) error {
	return fault.New(fault.PayloadTooLarge, "The request body is too large.", fault.WithDetail("limit_bytes", limit))
}

// Malformed is the 400 of a body that is not JSON, or not the JSON
// expected at all.
func Malformed(body []byte) *fault.Error {
	var syntax *json.SyntaxError
	msg := "is not valid JSON"
	err := json.Unmarshal(body, new(json.RawMessage))
	if errors.As(err, &syntax) {
		msg = "is not valid JSON: " + syntax.Error() + " at byte " + strconv.FormatInt(syntax.Offset, 10)
	} else if len(bytes.TrimSpace(body)) == 0 {
		msg = "is empty"
	}
	field := fault.WithFieldErrors(fault.FieldError{Field: "(root)", Message: msg})
	if err != nil {
		return fault.Wrap(err, fault.InvalidRequest, "The request body is not valid JSON.", field)
	}
	return fault.New(fault.InvalidRequest, "The request body is not valid JSON.", field)
}

// unprocessable turns an INVALID_REQUEST of a well-formed body into a 422.
func unprocessable(err error) error {
	f, ok := fault.As(err)
	if !ok || f.Code != fault.InvalidRequest {
		return err
	}
	f = f.Clone()
	f.Status = http.StatusUnprocessableEntity
	return f
}

// CheckKey checks an idempotency key: 1 to 255 printable ASCII
// characters, without spaces, quotes or backslashes. name is what the
// client calls it (a header's name).
func CheckKey(name, v string) error {
	if v == "" || len(v) > 255 {
		return badKey(name, "must be 1 to 255 characters")
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x21 || v[i] > 0x7e || v[i] == '"' || v[i] == '\\' {
			return badKey(name, "must be printable ASCII without spaces, quotes or backslashes")
		}
	}
	return nil
}

func badKey(name, msg string) error {
	return fault.New(fault.InvalidRequest, "The "+name+" header is invalid.",
		fault.WithFieldErrors(fault.FieldError{Field: name, Message: msg}))
}
