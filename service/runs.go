package service

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
)

// RunRecordTimeout bounds the write of a run's outcome (FinishRun), which
// happens after its stream ended: the client may be gone, and the door's
// context is not its bound.
const RunRecordTimeout = 5 * time.Second

// StartRun records that one of tenant's agent runs starts, before its
// door streams anything: run's RunID, ThreadID and AgentID. Its error
// wraps store.ErrRunExists (the tenant used the run id already) or
// store.ErrInvalidRun (an id the store cannot hold), for the door to
// answer in its own terms, or is a SERVICE_UNAVAILABLE *fault.Error (the
// store failed). No run should start on an error.
func (s *Service) StartRun(ctx context.Context, tenant string, run store.Run) error {
	commit, err := s.StartRunEarly(ctx, tenant, run)
	if err != nil {
		return err
	}
	return commit()
}

// StartRunEarly is StartRun answered before the start is durable (see
// store.Runs.StartRunEarly): its errors are StartRun's, and commit
// returns once the start is committed, nil or a SERVICE_UNAVAILABLE
// *fault.Error (the commit failed: the start is undone, and the run must
// not run). A door may write what tells its client the run started (an
// AG-UI RUN_STARTED) before commit returns, and nothing the run does.
func (s *Service) StartRunEarly(ctx context.Context, tenant string, run store.Run) (commit func() error, err error) {
	_, committed, err := s.cfg.Store.Tenant(tenant).StartRunEarly(ctx, run)
	if err != nil {
		return nil, startRunError(err)
	}
	return func() error { return startRunError(committed()) }, nil
}

// startRunError is a start's error as the door hears it: ErrRunExists
// and ErrInvalidRun as they are, any other a SERVICE_UNAVAILABLE.
func startRunError(err error) error {
	if err != nil && !errors.Is(err, store.ErrRunExists) && !errors.Is(err, store.ErrInvalidRun) {
		return store.Unavailable(err)
	}
	return err
}

// RunEnd is how a run ended, as its door saw it.
type RunEnd struct {
	// Outcome is store.RunFinished, RunFailed, RunDisconnected or
	// RunShutdown: the door's reading of its stream.
	Outcome string
	// AnswerBytes is the length of a finished run's answer; not recorded
	// for the other outcomes.
	AnswerBytes int64
	// Fault is a failed run's fault (nil: an INTERNAL_ERROR); not
	// recorded for the other outcomes.
	Fault *fault.Error
	// Record asks that a failed run's failure become an occurrence of an
	// error record (see Failure): its job is enqueued with the run's end.
	// The door sets it unless the agent opted out.
	Record bool
	// ThreadID and TraceParent (the request's W3C traceparent, "" for
	// none) go into a recorded failure's report.
	ThreadID, TraceParent string
	// Events outline the run's stream, and EventsOmitted counts those
	// left out of it (see store.RunEnd): written with the run's end.
	Events        []store.RunEvent
	EventsOmitted int
}

// FinishRun records how tenant's run runID (of agent agentID) ended and,
// once recorded, wakes the tenant's event streams (Changed), which read it
// from the store. A finished run keeps its answer's length, a failed one
// its fault (RunFault); the others neither. A failed run with end.Record
// enqueues, in the same transaction, the job that records its failure as
// an occurrence (see RecordFailure): durable once the end is, it runs
// after the run, whatever becomes of this process. The write is bounded
// by RunRecordTimeout, whatever ctx's deadline or cancellation; a storage
// failure is logged (and, for a recording, counted), since the run is
// over and its client has had the outcome.
func (s *Service) FinishRun(ctx context.Context, tenant, runID, agentID string, end RunEnd) {
	rec := store.RunEnd{Outcome: end.Outcome, Events: end.Events, EventsOmitted: end.EventsOmitted}
	var record *Failure
	switch end.Outcome {
	case store.RunFinished:
		rec.AnswerBytes = end.AnswerBytes
	case store.RunFailed:
		f := end.Fault
		if f == nil { // the store requires a failed run's fault
			f = fault.New(fault.InternalError, "The run failed.")
		}
		rec.Fault = RunFault(f)
		if end.Record {
			record = &Failure{Door: DoorAGUI, AgentID: agentID, Fault: f, At: s.cfg.Now(),
				RunID: runID, ThreadID: end.ThreadID, TraceParent: end.TraceParent}
		}
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), RunRecordTimeout)
	defer cancel()
	if record != nil {
		j, err := s.failureJob(ctx, *record)
		if err != nil {
			s.unqueued(ctx, *record, err)
			record = nil
		} else {
			rec.Jobs = []store.NewJob{j}
		}
	}
	if _, err := s.cfg.Store.Tenant(tenant).FinishRun(ctx, runID, rec); err != nil {
		s.log(ctx, slog.LevelError, "recording a run's outcome failed",
			slog.String("run_id", runID), slog.String("agent", agentID), slog.String("outcome", end.Outcome),
			slog.Any("error", fault.From(err)))
		if record != nil && !errors.Is(err, store.ErrRunEnded) {
			s.unqueued(ctx, *record, err)
		}
		return
	}
	if record != nil {
		s.worker.failures.WithLabelValues(DoorAGUI, "queued").Inc()
	}
	s.Changed(tenant) // this instance's streams read it now; the others' at their next poll
	if end.Outcome == store.RunFailed {
		s.alertOnRun(ctx, tenant, runID, agentID)
	}
}

// RunFault is a failed run's fault as its record keeps it: its JSON
// payload without debug output (never the cause's text; the payload
// redacts the message, which bounds it to about 1 KiB, and sanitizes the
// details), within store.MaxRunFaultBytes. A larger one keeps its code,
// message and facets, and loses its details and field errors.
func RunFault(f *fault.Error) json.RawMessage {
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
