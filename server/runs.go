package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/aguirun"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/graph"
	"github.com/triage-go/triage/internal/negotiate"
	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/wire/agui"
	"github.com/triage-go/triage/wire/sse"
)

// runWriteTimeout bounds each write of a run's stream: a client that stops
// reading loses its stream, and the run is stopped.
var runWriteTimeout = 10 * time.Second

// runs serves AG-UI agent runs: POST /v1/agents/{agent_id}/runs.
type runs struct {
	agents *agent.Manager
	mu     sync.Mutex
	graphs map[string]*graph.Runnable[aguirun.AgentState]
}

func newRuns(m *agent.Manager) *runs {
	return &runs{agents: m, graphs: map[string]*graph.Runnable[aguirun.AgentState]{}}
}

// graph returns the agent's graph, built on first use.
func (rs *runs) graph(agentID string) (*graph.Runnable[aguirun.AgentState], error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if g, ok := rs.graphs[agentID]; ok {
		return g, nil
	}
	known := false
	for _, a := range rs.agents.Agents() {
		known = known || a.ID == agentID
	}
	if !known {
		return nil, fault.New(fault.CapabilityNotFound, "Agent not found: "+agentID,
			fault.WithDetail("agentId", agentID))
	}
	g, err := aguirun.AgentGraph(rs.agents, agentID)
	if err != nil {
		return nil, fault.Wrap(err, fault.InternalError, "")
	}
	rs.graphs[agentID] = g
	return g, nil
}

// reserve holds a team's capacity for one run: a team's graph delegates to
// its members, whose sessions hold their own. Other agents' runs hold
// theirs through the session their graph opens.
func (rs *runs) reserve(owner, agentID string) (func(), error) {
	for _, a := range rs.agents.Agents() {
		if a.ID == agentID && a.Kind == agent.KindTeam {
			return rs.agents.Reserve(owner, agentID)
		}
	}
	return func() {}, nil
}

// postRun runs an agent for an AG-UI client (HttpAgent): the body is a
// RunAgentInput; a request that is not one is a problem (400, 415, 422)
// before the stream starts, as is one without a prompt (422: see
// agent.EmptyPrompt), a runId the tenant used already (409),
// and a run asked for while the service shuts down (503). Once the stream
// has started, every failure is a RUN_ERROR, the last event. The client
// going away cancels the run; so does the service shutting down (Close),
// whose RUN_ERROR says so (shuttingDown). The run is recorded before the
// stream starts and its outcome after it ends (see run_records.go and
// service.Service.StartRunEarly, FinishRun): RUN_STARTED goes out once
// the start is decided, while it commits, and the agent runs once it is
// committed; a commit that fails ends the stream with its RUN_ERROR.
func (s *Server) postRun(w http.ResponseWriter, r *http.Request, tenant string) error {
	if s.runs == nil {
		return fault.New(fault.CapabilityNotFound, "This service runs no agents.")
	}
	if s.stopping.Err() != nil {
		return shuttingDown()
	}
	if err := requireJSON(r); err != nil {
		return err
	}
	body, err := readBody(w, r, s.cfg.MaxBody)
	if err != nil {
		return err
	}
	in, err := agui.ParseRunAgentInput(body)
	if err != nil {
		return err
	}
	history, prompt := aguirun.Conversation(in)
	if agent.EmptyPrompt(prompt) {
		return fault.New(fault.InvalidRequest, "The run has no prompt: its last user message has no text.",
			fault.WithStatus(http.StatusUnprocessableEntity),
			fault.WithFieldErrors(fault.FieldError{Field: "messages", Message: "must hold a user message with text: the last user message is the prompt"}))
	}
	agentID := r.PathValue("agent_id")
	g, err := s.runs.graph(agentID)
	if err != nil {
		return err
	}
	ctx, stop := s.runContext(r.Context())
	defer stop()
	release, err := s.runs.reserve(tenant, agentID)
	if err != nil {
		return err
	}
	defer release()
	runID := in.RunID
	if runID == "" {
		runID = uuid.NewString()
	}
	state := aguirun.AgentState{AgentID: agentID, Owner: tenant, Prompt: prompt, History: history, MessageID: aguirun.MessageID(runID)}
	commit, err := s.startRunRecord(ctx, tenant, in, runID, agentID)
	if err != nil {
		return err
	}
	// committed waits for the start's commit, once: before the agent
	// runs, and in any case before the run's end is written.
	var (
		commitOnce sync.Once
		commitErr  error
	)
	committed := func() error {
		commitOnce.Do(func() { commitErr = commit() })
		return commitErr
	}

	var (
		final      aguirun.AgentState
		runErr     error
		streamGone bool
		events     *runOutline // an AG-UI stream's: a CAP stream keeps none
	)
	if wantsCAP(r) {
		// CAP has no event that says a run started: its stream starts
		// once the start is durable, and a failed commit is a problem.
		if err := committed(); err != nil {
			return err
		}
		final, streamGone, runErr = s.streamCAP(ctx, w, g, state, runID)
	} else {
		// RUN_STARTED goes out while the start commits; the agent runs
		// only once it is committed (aguirun.Options.Ready).
		events = newRunOutline(s.cfg.Now)
		final, streamGone, runErr = s.streamAGUI(ctx, w, g, state, in, runID, events, committed)
	}
	outcome, f := runOutcome(runErr, streamGone)
	s.metrics.run(agentID, outcome, f)
	if err := committed(); err != nil {
		// The start was undone (its RUN_ERROR said so, if the stream
		// still took it): no record to end, and the client may run it
		// again with the same runId.
		s.log.Warn("an AG-UI run's start could not be recorded", slog.String("agent", agentID), slog.Any("error", fault.From(err)))
		return nil
	}
	// The RUN_ERROR is out: the failure's recording, a job enqueued with
	// the run's end, comes after it.
	end := runEndOf(final, outcome, f, s.recordsFailures(agentID), in.ThreadID, service.TraceParent(r.Context(), r.Header))
	if events != nil {
		end.Events, end.EventsOmitted = events.events()
	}
	s.svc.FinishRun(ctx, tenant, runID, agentID, end)
	return nil
}

// errShutdown is the cause of shuttingDown's fault: it tells a run the
// shutdown stopped from one that failed otherwise (errors.Is).
var errShutdown = errors.New("the service is shutting down")

// shuttingDown is the failure of the runs a shutdown stops, and the
// answer to a run asked for during one: SERVICE_UNAVAILABLE, retryable
// after ShutdownRetryAfter; a thread may go on (session_valid), here or on
// another instance.
func shuttingDown() *fault.Error {
	return fault.Wrap(errShutdown, fault.ServiceUnavailable, "The service is shutting down. Please retry in a moment.",
		fault.WithRetryAfter(ShutdownRetryAfter), fault.WithSessionValid(true),
		fault.WithDetail("reason", "shutting_down"))
}

// runContext is a run's context: parent's, cancelled when the service
// shuts down with shuttingDown's fault as its cause (which aguirun writes
// as the run's RUN_ERROR). stop releases it.
func (s *Server) runContext(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	unhook := context.AfterFunc(s.stopping, func() { cancel(context.Cause(s.stopping)) })
	return ctx, func() {
		unhook()
		cancel(nil)
	}
}

// streamAGUI streams the run as AG-UI events over SSE, with a keep-alive
// comment every Heartbeat, and outlines them in events. streamGone says the run's context ended before
// the run did: the client went away, or a keep-alive could not be written.
func (s *Server) streamAGUI(ctx context.Context, w http.ResponseWriter, g *graph.Runnable[aguirun.AgentState], state aguirun.AgentState, in *agui.RunAgentInput, runID string, events *runOutline, ready func() error) (aguirun.AgentState, bool, error) {
	rc := http.NewResponseController(w)
	// Events wait in the writer while the run has more ready, and are
	// flushed when it has none (aguirun.Run): one write for a burst.
	sw := sse.NewBatchWriter(deadlineWriter{w: w, rc: rc, timeout: runWriteTimeout})
	aw := agui.NewWriter(sw, &agui.WriterOptions{Written: events.written})
	sse.SetHeaders(w.Header())
	_ = rc.SetWriteDeadline(time.Now().Add(runWriteTimeout))
	w.WriteHeader(http.StatusOK)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(s.cfg.Heartbeat)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if sw.WriteComment("keep-alive") != nil {
					cancel()
					return
				}
			}
		}
	}()
	final, runErr := aguirun.Run(ctx, aw, g, state, aguirun.Options[aguirun.AgentState]{
		ThreadID: in.ThreadID, RunID: runID, ParentRunID: in.ParentRunID,
		Errors: &agui.Options{Debug: s.cfg.Debug},
		Now:    s.cfg.Now,
		Ready:  ready,
	})
	streamGone := ctx.Err() != nil
	cancel()
	wg.Wait()
	return final, streamGone, runErr
}

// wantsCAP says the client asked for seed 001's CAP stream: an Accept that
// prefers application/x-ndjson to text/event-stream (HttpAgent sends the
// latter), which a request without Accept gets (see negotiate.Best).
func wantsCAP(r *http.Request) bool {
	return negotiate.Best(r.Header.Values("Accept"), "text/event-stream", "application/x-ndjson") == "application/x-ndjson"
}

// streamCAP streams the run as CAP packets, one JSON packet a line.
func (s *Server) streamCAP(ctx context.Context, w http.ResponseWriter, g *graph.Runnable[aguirun.AgentState], state aguirun.AgentState, runID string) (aguirun.AgentState, bool, error) {
	rc := http.NewResponseController(w)
	dw := deadlineWriter{w: w, rc: rc, timeout: runWriteTimeout}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	_ = rc.SetWriteDeadline(time.Now().Add(runWriteTimeout))
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush() // the headers now: the first packet may be long in coming
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	final, runErr := aguirun.RunCAP(ctx, dw, g, state, aguirun.CAPOptions{StreamID: runID, Flush: dw.Flush})
	return final, ctx.Err() != nil, runErr
}
