package server

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/triage-go/triage/aguirun"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/wire/agui"
)

// startRunRecord records that a run starts, before its stream: a run id
// the tenant used already is a 409 problem, an id the store cannot hold a
// 400, a storage failure a 503; none starts the stream. It returns once
// the start is decided (service.StartRunEarly), with commit, which
// returns once it is durable: nil, or the 503's fault, after which the
// run must not run.
func (s *Server) startRunRecord(ctx context.Context, tenant string, in *agui.RunAgentInput, runID, agentID string) (commit func() error, err error) {
	var fields []fault.FieldError
	for _, c := range []struct{ field, id string }{{"runId", runID}, {"threadId", in.ThreadID}} {
		if strings.ContainsRune(c.id, 0) {
			fields = append(fields, fault.FieldError{Field: c.field, Message: "must not contain NUL characters"})
		}
	}
	if len(fields) > 0 {
		return nil, fault.Invalid("The RunAgentInput is invalid.", fields...)
	}
	committed, err := s.svc.StartRunEarly(ctx, tenant, store.Run{RunID: runID, ThreadID: in.ThreadID, AgentID: agentID})
	if err != nil {
		return nil, startRunFault(err, runID)
	}
	return func() error { return startRunFault(committed(), runID) }, nil
}

// startRunFault is a run's start's error as the client hears it.
func startRunFault(err error, runID string) error {
	switch {
	case errors.Is(err, store.ErrRunExists):
		return fault.New(fault.InvalidRequest, "This runId was used already: each run needs a runId of its own.",
			fault.WithStatus(http.StatusConflict),
			fault.WithFieldErrors(fault.FieldError{Field: "runId", Message: "is already the id of a run of this tenant (GET /v1/runs/{run_id} has it)"}),
			fault.WithDetail("runId", runID))
	case errors.Is(err, store.ErrInvalidRun):
		return fault.Wrap(err, fault.InvalidRequest, "The run cannot be recorded: its runId, threadId or agent id is too long or not text.")
	}
	return err // nil, or the service's SERVICE_UNAVAILABLE
}

// runOutcome is how a run ended, from what aguirun.Run returned and
// whether the run's context ended first (streamGone: the client went away,
// or a keep-alive could not be written): finished (nil); shutdown (the
// service's shutdown stopped it, and its client was told: the fault is
// shuttingDown's); disconnected (an error matching aguirun.ErrStream, or a
// CANCELLED run whose stream was gone, whether or not its RUN_ERROR could
// still be written); else failed, with the fault.
func runOutcome(runErr error, streamGone bool) (string, *fault.Error) {
	switch {
	case runErr == nil:
		return store.RunFinished, nil
	case errors.Is(runErr, errShutdown) && !errors.Is(runErr, aguirun.ErrStream):
		return store.RunShutdown, fault.From(runErr)
	case errors.Is(runErr, aguirun.ErrStream),
		streamGone && fault.CodeOf(runErr) == fault.Cancelled:
		return store.RunDisconnected, nil
	}
	return store.RunFailed, fault.From(runErr)
}

// runEndOf is what the service records of a run's outcome: a finished
// run's answer length, a failed run's fault (see service.FinishRun), and
// whether a failure becomes an occurrence (record: its agent records its
// failures), with the run's thread and the request's trace.
func runEndOf(final aguirun.AgentState, outcome string, f *fault.Error, record bool, threadID, traceParent string) service.RunEnd {
	return service.RunEnd{Outcome: outcome, AnswerBytes: int64(len(final.Answer)), Fault: f,
		Record: record, ThreadID: threadID, TraceParent: traceParent}
}

// getRun is GET /v1/runs/{run_id}: the tenant's record of the run; 404
// for a run it does not have (none, expired, or another tenant's).
func (s *Server) getRun(w http.ResponseWriter, r *http.Request, tenant string) error {
	id := r.PathValue("run_id")
	if len(id) > store.MaxRunIDBytes { // no run has it
		return fault.New(fault.NotFound, "No such run.")
	}
	run, ok, err := s.cfg.Store.Tenant(tenant).GetRun(r.Context(), id)
	if err != nil {
		return store.Unavailable(err)
	}
	if !ok {
		return fault.New(fault.NotFound, "No such run.", fault.WithDetail("run_id", id))
	}
	return encodeJSON(w, http.StatusOK, run)
}

// listRuns answers GET /v1/runs: a page of the tenant's run records, the
// latest started first.
func (s *Server) listRuns(w http.ResponseWriter, r *http.Request, tenant string) error {
	f, err := parseRunFilter(r.URL.Query())
	if err != nil {
		return err
	}
	page, err := s.cfg.Store.Tenant(tenant).ListRuns(r.Context(), f)
	if errors.Is(err, store.ErrBadCursor) {
		return badCursor()
	}
	if err != nil {
		return store.Unavailable(err)
	}
	return writeDocuments(w, page)
}
