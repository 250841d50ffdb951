package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/triage-go/triage/fault"
)

// The faults of seed 002's InProcessExecutor table, and the manager's own.
// Each names its category, as the seed does, and says truthfully whether
// the session survives.

// errNotStarted is "Executor not started" (INTERNAL).
func errNotStarted() *fault.Error {
	return fault.New(fault.InternalError, "Executor not started",
		fault.WithCategory(fault.CategoryInternal), fault.WithSessionValid(false))
}

// errNoAgents is "No agents registered" (CONFIG).
func errNoAgents() *fault.Error {
	return fault.New(fault.ConfigError, "No agents registered")
}

// errAgentNotFound is "Agent not found: {agentId}" (UPSTREAM, permanent).
func errAgentNotFound(id string) *fault.Error {
	return fault.New(fault.CapabilityNotFound, "Agent not found: "+id,
		fault.WithCategory(fault.CategoryUpstream), fault.WithDetail("agentId", id),
		fault.WithSessionValid(false))
}

// errCapacity is "Session capacity reached" (UPSTREAM, permanent).
func errCapacity(id string, max int) *fault.Error {
	return fault.New(fault.ServiceUnavailable, "Session capacity reached",
		fault.WithCategory(fault.CategoryUpstream), fault.WithRetryable(false),
		fault.WithDetail("agentId", id), fault.WithDetail("maxSessions", max),
		fault.WithSessionValid(false))
}

// errSessionNotFound is "Session not found: {sessionId}" (UPSTREAM).
func errSessionNotFound(id string) *fault.Error {
	return fault.New(fault.SessionNotFound, "Session not found: "+id,
		fault.WithCategory(fault.CategoryUpstream), fault.WithDetail("sessionId", id))
}

// errSessionInvalid is a session that failed (its worker crashed) and can
// no longer be used.
func errSessionInvalid(id string) *fault.Error {
	return fault.New(fault.SessionNotFound, "Session "+id+" is no longer valid",
		fault.WithCategory(fault.CategoryUpstream), fault.WithDetail("sessionId", id))
}

// errSessionBusy is a prompt sent while another runs in the same session.
func errSessionBusy(id string) *fault.Error {
	return fault.New(fault.SessionBusy, "Session "+id+" is already running a prompt",
		fault.WithCategory(fault.CategoryUpstream), fault.WithDetail("sessionId", id),
		fault.WithSessionValid(true))
}

// errSessionClosed is a prompt sent to a closed session.
func errSessionClosed(id string) *fault.Error {
	return fault.New(fault.SessionNotFound, "Session "+id+" is closed",
		fault.WithCategory(fault.CategoryUpstream), fault.WithDetail("sessionId", id))
}

// errCancelled is a prompt the caller cancelled. cause, when not nil, is
// the caller's context's error, so that errors.Is(err, context.Canceled)
// holds for a prompt its context stopped (a graph tells a branch its
// sibling's failure stopped from one that failed by that).
func errCancelled(id string, cause error) *fault.Error {
	opts := []fault.Option{fault.WithDetail("sessionId", id), fault.WithSessionValid(true)}
	if cause != nil {
		return fault.Wrap(cause, fault.Cancelled, "Prompt cancelled", opts...)
	}
	return fault.New(fault.Cancelled, "Prompt cancelled", opts...)
}

// errPromptTimeout is a prompt that ran past its deadline.
func errPromptTimeout(id string, d time.Duration) *fault.Error {
	return fault.New(fault.Timeout, "Prompt timed out after "+d.String(),
		fault.WithCategory(fault.CategoryTimeout), fault.WithRetryable(true),
		fault.WithDetail("sessionId", id), fault.WithSessionValid(true))
}

// agentFailed turns what a backend returned into the fault the caller
// sees. A fault passes through, with the agent named; anything else is
// seed 002's "Agent {agentId} failed" (UPSTREAM, not retryable), its text
// kept for debug only.
func agentFailed(agentID string, err error) *fault.Error {
	var f *fault.Error
	if errors.As(err, &f) {
		f = f.Clone()
		if f.Source == "" {
			f.Source = agentID
		}
		if _, ok := f.Details["agentId"]; !ok {
			if f.Details == nil {
				f.Details = map[string]any{}
			}
			f.Details["agentId"] = agentID
		}
		return f
	}
	return fault.Wrap(err, fault.UpstreamError, "Agent "+agentID+" failed",
		fault.WithCategory(fault.CategoryUpstream), fault.WithRetryable(false),
		fault.WithSource(agentID), fault.WithDetail("agentId", agentID),
		fault.WithSessionValid(true))
}

// errWorkerTimeout is seed 002's "Worker {workerId} timed out" (TRANSPORT,
// retryable): a worker agent's prompt that ran past its deadline. The
// pool has asked the worker to cancel the turn; the session stays valid.
func errWorkerTimeout(agentID string, err error) *fault.Error {
	worker := agentID
	if f, ok := fault.As(err); ok {
		if w, ok := f.Details["workerId"].(string); ok && w != "" {
			worker = w
		}
	}
	return fault.New(fault.Timeout, "Worker "+worker+" timed out",
		fault.WithCategory(fault.CategoryTransport), fault.WithRetryable(true),
		fault.WithSource(agentID), fault.WithDetail("agentId", agentID),
		fault.WithDetail("workerId", worker), fault.WithSessionValid(true))
}

// promptSafely is b.Prompt (or, for a backend that prompts on an owner's
// behalf, its promptFor with the session's owner) with a panic turned into
// the agent's failure (INTERNAL_ERROR, the session no longer valid): a
// backend is code of the agent's kind (a provider's client, a worker's
// protocol), and the Manager's bookkeeping (the session's state, its slot)
// must stand whatever it does. The panic's value is only logged, redacted.
func (m *Manager) promptSafely(e *entry, ctx context.Context, owner, session, text string, emit func(Chunk)) (res Result, err error) {
	defer m.recoverBackend(e, &err)
	if b, ok := e.backend.(ownerPrompter); ok {
		return b.promptFor(ctx, owner, session, text, emit)
	}
	return e.backend.Prompt(ctx, session, text, emit)
}

// newSessionSafely is b.NewSession with a panic turned into a failure, as
// promptSafely does.
func (m *Manager) newSessionSafely(e *entry, ctx context.Context) (id string, err error) {
	defer m.recoverBackend(e, &err)
	return e.backend.NewSession(ctx)
}

// recoverBackend, deferred, turns a backend's panic into *err, logged
// (redacted, without its stack).
func (m *Manager) recoverBackend(e *entry, err *error) {
	if p := recover(); p != nil {
		m.cfg.Logger.Error("agent backend panicked", slog.String("agent", e.info.ID), slog.String("panic", fault.Redact(fmt.Sprint(p))))
		*err = fault.New(fault.InternalError, "The agent's backend failed unexpectedly.",
			fault.WithRetryable(false), fault.WithSessionValid(false))
	}
}
