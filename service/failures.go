package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
)

// The doors whose own failures become occurrences (Failure.Door).
const (
	// DoorAGUI is a failed AG-UI run (POST /v1/agents/{agent_id}/runs).
	DoorAGUI = "agui"
	// DoorMCP is a failed MCP tool call (/mcp, or triage bridge).
	DoorMCP = "mcp"
)

// BridgeAgent is the agent_id of an MCP tool call's failure that names no
// agent (bridge_health, agents_discover, a call refused before it named
// one).
const BridgeAgent = "mcp-bridge"

// Failure is a door's own failure: a failed AG-UI run, or a failed MCP
// tool call. Its report (Report) goes through the report path (Accept), as
// a report posted to /v1/errors does, so it is grouped by the same
// fingerprint into a record; what links it to its run, session and trace
// travels in the report's data.context.
type Failure struct {
	// Door is DoorAGUI or DoorMCP.
	Door string
	// AgentID is the agent that failed; "" for none (BridgeAgent then).
	AgentID string
	// Fault is the failure as the door answered it (nil: INTERNAL_ERROR).
	// Its debug output is never recorded.
	Fault *fault.Error
	// At is when it failed: the report's timestamp.
	At time.Time
	// RunID and ThreadID are an AG-UI run's.
	RunID, ThreadID string
	// SessionID is an MCP call's session (its Mcp-Session-Id; "" over
	// stdio), Tool its tool, CallID an id the door gave the call, unique
	// among its failures.
	SessionID, Tool, CallID string
	// TraceParent is the W3C traceparent of the request, "" for none.
	TraceParent string
}

// Key is the idempotency key the failure's report is submitted under: a
// hash of the run id, or of the call's session and id, so that a
// recording retried never makes a second occurrence.
func (f Failure) Key() string {
	h := sha256.New()
	for _, part := range []string{f.Door, f.RunID, f.SessionID, f.Tool, f.CallID} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return "triage-" + f.Door + "-" + hex.EncodeToString(h.Sum(nil))[:32]
}

// queryID is the report's query_id: the door and what was called, so
// that one agent's failures of one kind group into one record whatever
// the run ("agui:run", "mcp:sessions_prompt").
func (f Failure) queryID() string {
	if f.Door == DoorAGUI {
		return "agui:run"
	}
	if id := "mcp:" + f.Tool; triage.IsIdentifier(id) {
		return id
	}
	return "mcp:tool"
}

// Report is the failure's report, as a client would post it: the agent,
// the time, the fault's code and message, the fault itself (without debug
// output), and what links it back in data.context: door, run_id and
// thread_id, or session_id, tool and call_id, and trace_id and
// traceparent when the request carried a trace. A tag "door" names the
// door.
func (f Failure) Report() ([]byte, error) {
	flt := f.Fault
	if flt == nil {
		flt = fault.New(fault.InternalError, "The run failed.")
	}
	agentID := f.AgentID
	if !triage.IsIdentifier(agentID) {
		agentID = BridgeAgent
	}
	ctx := map[string]any{"door": f.Door}
	for k, v := range map[string]string{"run_id": f.RunID, "thread_id": f.ThreadID, "session_id": f.SessionID,
		"tool": f.Tool, "call_id": f.CallID} {
		if v != "" && utf8.ValidString(v) {
			ctx[k] = v
		}
	}
	if tp := f.TraceParent; tp != "" {
		if parts := strings.Split(tp, "-"); len(parts) == 4 && len(parts[1]) == 32 {
			ctx["traceparent"], ctx["trace_id"] = tp, parts[1]
		}
	}
	// The fault as a run's record keeps it: its message redacted (as the
	// job's payload, which the jobs' readers see, must be), no debug
	// output.
	var recorded fault.Error
	if err := json.Unmarshal(RunFault(flt), &recorded); err != nil {
		return nil, err
	}
	msg := recorded.Message
	if strings.TrimSpace(msg) == "" {
		msg = string(flt.Code)
	}
	if len(msg) > triage.MaxMessage {
		msg = strings.ToValidUTF8(msg[:triage.MaxMessage], "")
	}
	at := f.At
	if at.IsZero() {
		at = time.Now()
	}
	rep := triage.Report{AgentID: agentID, Timestamp: at.UTC(), Status: "error",
		Tags: map[string]string{"door": f.Door},
		Data: triage.Data{ErrorCode: string(flt.Code), Message: msg, QueryID: f.queryID(), Context: ctx, Fault: &recorded}}
	return json.Marshal(&rep)
}

// failureJob is a JobRecordFailure's payload: the report to submit under
// its key, and the run to link to the record.
type failureJob struct {
	Door   string          `json:"door"`
	Report json.RawMessage `json:"report"`
	Key    string          `json:"key"`
	RunID  string          `json:"run_id,omitempty"`
}

// failureJob is the job that records f, carrying ctx's trace.
func (s *Service) failureJob(ctx context.Context, f Failure) (store.NewJob, error) {
	rep, err := f.Report()
	if err != nil {
		return store.NewJob{}, err
	}
	payload, err := json.Marshal(failureJob{Door: f.Door, Report: rep, Key: f.Key(), RunID: f.RunID})
	if err != nil {
		return store.NewJob{}, err
	}
	return store.NewJob{Kind: store.JobRecordFailure, Payload: payload, Trace: JobTrace(ctx)}, nil
}

// RecordFailure enqueues the recording of tenant's door failure f (a
// failed MCP tool call; a failed run's is enqueued with its end, see
// FinishRun): a durable job (JobRecordFailure) submits its report through
// Accept and, for a run, links the run to the record. The door has
// answered already: a failure to enqueue is logged and counted
// (triage_door_failures_total, outcome "failed"), never the door's. The
// enqueue is bounded by RunRecordTimeout, whatever ctx's deadline or
// cancellation.
func (s *Service) RecordFailure(ctx context.Context, tenant string, f Failure) {
	if f.At.IsZero() {
		f.At = s.cfg.Now()
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), RunRecordTimeout)
	defer cancel()
	j, err := s.failureJob(ctx, f)
	if err == nil {
		_, err = s.cfg.Store.Tenant(tenant).Enqueue(ctx, j)
	}
	if err != nil {
		s.unqueued(ctx, f, err)
		return
	}
	s.worker.failures.WithLabelValues(f.Door, "queued").Inc()
}

// unqueued logs and counts a failure whose recording could not be
// enqueued.
func (s *Service) unqueued(ctx context.Context, f Failure, err error) {
	s.worker.failures.WithLabelValues(f.Door, "failed").Inc()
	code := fault.Code("")
	if f.Fault != nil {
		code = f.Fault.Code
	}
	s.log(ctx, slog.LevelError, "recording a door's failure failed", slog.String("door", f.Door),
		slog.String("agent", f.AgentID), slog.String("run_id", f.RunID), slog.String("tool", f.Tool),
		slog.String("code", string(code)), slog.Any("error", fault.From(err)))
}

// recordFailure runs a JobRecordFailure: its report through Accept, under
// its key (a retry answers the first attempt's record), then the run's
// link to the record. A refusal Accept says is final (an invalid report,
// which no retry mends) fails the job for good; the others are retried.
func (s *Service) recordFailure(ctx context.Context, j store.Job) error {
	p, err := decodePayload[failureJob]("a door's failure", j.Payload)
	if err != nil {
		return err
	}
	err = s.submitFailure(ctx, j, p)
	outcome := "recorded"
	switch {
	case err == nil:
	case errors.Is(err, store.ErrPermanent) || j.Attempt >= j.MaxAttempts:
		outcome = "failed"
	default:
		outcome = "retrying"
	}
	s.worker.failures.WithLabelValues(p.Door, outcome).Inc()
	return err
}

func (s *Service) submitFailure(ctx context.Context, j store.Job, p failureJob) error {
	ans, err := s.Accept(ctx, Submission{Tenant: j.Tenant, Body: p.Report, Key: p.Key, KeyName: "the failure's key"})
	if err != nil {
		if f := fault.From(err); !f.Retryable {
			return fmt.Errorf("%w: the report was refused: %s", store.ErrPermanent, f.Code)
		}
		return err
	}
	if ans.Status != http.StatusCreated && ans.Status != http.StatusOK {
		return fmt.Errorf("%w: the report was refused (%d)", store.ErrPermanent, ans.Status)
	}
	var fb struct {
		ErrorID string `json:"error_id"`
	}
	if err := json.Unmarshal(ans.Body, &fb); err != nil || fb.ErrorID == "" {
		return fmt.Errorf("%w: the report's answer names no error_id", store.ErrPermanent)
	}
	if p.RunID == "" {
		return nil
	}
	err = s.cfg.Store.Tenant(j.Tenant).LinkRun(ctx, p.RunID, fb.ErrorID)
	if err == nil {
		s.Changed(j.Tenant) // the run is told again, with its record (a "run" event)
		return nil
	}
	if errors.Is(err, store.ErrNoRun) {
		// Expired meanwhile: the record is there, with the run's id.
		s.log(ctx, slog.LevelWarn, "a failed run's record could not be linked: the run is gone",
			slog.String("error_id", fb.ErrorID))
		return nil
	}
	return err
}
