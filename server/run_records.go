package server

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/triage-go/triage/aguirun"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/wire/agui"
)

// runRecordTimeout bounds the write of a run's outcome, which happens
// after the stream ended (the client may be gone: the request's context
// is not its bound).
const runRecordTimeout = 5 * time.Second

// startRunRecord records that a run starts, before its stream: a run id
// the tenant used already is a 409 problem, an id the store cannot hold a
// 400, a storage failure a 503; none starts the stream.
func (s *Server) startRunRecord(ctx context.Context, tenant string, in *agui.RunAgentInput, runID, agentID string) error {
	var fields []fault.FieldError
	for _, c := range []struct{ field, id string }{{"runId", runID}, {"threadId", in.ThreadID}} {
		if strings.ContainsRune(c.id, 0) {
			fields = append(fields, fault.FieldError{Field: c.field, Message: "must not contain NUL characters"})
		}
	}
	if len(fields) > 0 {
		return fault.Invalid("The RunAgentInput is invalid.", fields...)
	}
	_, err := s.cfg.Store.Tenant(tenant).StartRun(ctx, store.Run{RunID: runID, ThreadID: in.ThreadID, AgentID: agentID})
	switch {
	case errors.Is(err, store.ErrRunExists):
		return fault.New(fault.InvalidRequest, "This runId was used already: each run needs a runId of its own.",
			fault.WithStatus(http.StatusConflict),
			fault.WithFieldErrors(fault.FieldError{Field: "runId", Message: "is already the id of a run of this tenant (GET /v1/runs/{run_id} has it)"}),
			fault.WithDetail("runId", runID))
	case errors.Is(err, store.ErrInvalidRun):
		return fault.Wrap(err, fault.InvalidRequest, "The run cannot be recorded: its runId, threadId or agent id is too long or not text.")
	case err != nil:
		return store.Unavailable(err)
	}
	return nil
}

// finishRunRecord records how the run ended and, once recorded, wakes the
// tenant's event streams on this instance, which read it from the store
// (as every instance's do at their next poll). A storage failure is logged:
// the stream is over, and its client has had the outcome.
func (s *Server) finishRunRecord(ctx context.Context, tenant string, runID, agentID string, end store.RunEnd) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), runRecordTimeout)
	defer cancel()
	_, err := s.cfg.Store.Tenant(tenant).FinishRun(ctx, runID, end)
	if err != nil {
		s.log.LogAttrs(ctx, slog.LevelError, "recording a run's outcome failed",
			slog.String("run_id", runID), slog.String("agent", agentID), slog.String("outcome", end.Outcome),
			slog.Any("error", fault.From(err)))
		return
	}
	s.svc.Changed(tenant) // this instance's streams read it now; the others' at their next poll
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

// runEndOf is the record of a run's outcome: a finished run's answer
// length, a failed run's fault.
func runEndOf(final aguirun.AgentState, outcome string, f *fault.Error) store.RunEnd {
	end := store.RunEnd{Outcome: outcome}
	switch outcome {
	case store.RunFinished:
		end.AnswerBytes = int64(len(final.Answer))
	case store.RunFailed:
		end.Fault = runFault(f)
	}
	return end
}

// runFault is a failed run's fault as the record keeps it: its JSON
// payload without debug output (never the cause's text; the payload
// redacts the message, which bounds it to about 1 KiB, and sanitizes the
// details), within store.MaxRunFaultBytes. A larger one keeps its code,
// message and facets, and loses its details and field errors.
func runFault(f *fault.Error) json.RawMessage {
	p := f.Payload(false)
	if b, err := json.Marshal(p); err == nil && len(b) <= store.MaxRunFaultBytes {
		return b
	}
	p.Details = map[string]any{"omitted": "the details were over the run record's bound"}
	p.Errors = nil
	b, err := json.Marshal(p)
	if err != nil || len(b) > store.MaxRunFaultBytes {
		b, _ = json.Marshal(fault.New(f.Code, "").Payload(false))
	}
	return b
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
