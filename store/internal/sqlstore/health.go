package sqlstore

import (
	"context"
	"sync"
	"time"

	"github.com/triage-go/triage/store"
)

// Health is what a store knows of its writes, for store.Store.Ready: the
// outcome of the latest ones, and of a probe (a write of its own) when
// none committed lately or the latest failed. The stores tell it every
// write's outcome (Observe); it never looks at the reads.
//
// It keeps time with the real clock, whatever store.Config.Now says:
// readiness is about now, not about the service's notion of it.
type Health struct {
	// reason is the store.NotReadyError reason of an error of the
	// storage (a full disk, a read-only database, an I/O error), and ""
	// for any other error (a constraint, a cancelled context): those say
	// nothing of whether a write can be committed.
	reason func(error) string

	probeMu sync.Mutex // one probe at a time

	mu     sync.Mutex
	failed *store.NotReadyError // the latest failure of the storage, until a probe commits
	// lastCommit is when a write last committed, while none failed; zero
	// until a probe committed: a write that commits may have written
	// nothing (the migrations of a database migrated already), so the
	// first proof is a probe's.
	lastCommit time.Time
	lastProbe  time.Time
	probeErr   error // the latest probe's
}

// NewHealth returns the health of a store whose storage's errors reason
// tells.
func NewHealth(reason func(error) string) *Health {
	return &Health{reason: reason}
}

// Observe notes the outcome of a write: nil for one that committed. It
// returns the reason of a failure of the storage, "" for any other
// outcome.
func (h *Health) Observe(err error) string {
	if err == nil {
		h.mu.Lock()
		if h.failed == nil && !h.lastCommit.IsZero() {
			h.lastCommit = time.Now()
		}
		h.mu.Unlock()
		return ""
	}
	r := h.reason(err)
	if r == "" {
		return ""
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	since := time.Now()
	if h.failed != nil {
		since = h.failed.Since
	}
	h.failed = &store.NotReadyError{Reason: r, Since: since, Err: err}
	return r
}

// Ready is store.Store.Ready: nil when a write committed within
// store.ReadyFresh, none failed since, and a probe committed once; else
// the outcome of probe, a
// small write that commits (run at most once per store.ReadyProbeEvery:
// within it, the latest probe's outcome, or a failure seen since). Only a
// probe clears a failure: a write that commits may have written nothing.
func (h *Health) Ready(ctx context.Context, probe func(context.Context) error) error {
	if err, ok := h.known(); ok {
		return err
	}
	h.probeMu.Lock()
	defer h.probeMu.Unlock()
	if err, ok := h.known(); ok { // a probe that ran meanwhile answered
		return err
	}
	err := probe(ctx)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lastProbe = time.Now()
	switch r := h.reason(err); {
	case err == nil:
		h.failed, h.probeErr, h.lastCommit = nil, nil, h.lastProbe
		return nil
	case r != "":
		since := h.lastProbe
		if h.failed != nil {
			since = h.failed.Since
		}
		h.failed = &store.NotReadyError{Reason: r, Since: since, Err: err}
		h.probeErr = h.failed
	default:
		h.probeErr = &store.NotReadyError{Reason: store.WriteFailed, Since: h.lastProbe, Err: err}
	}
	return h.probeErr
}

// known returns what Ready answers without a probe, and whether it does.
func (h *Health) known() (error, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.failed == nil && time.Since(h.lastCommit) < store.ReadyFresh:
		return nil, true
	case time.Since(h.lastProbe) < store.ReadyProbeEvery:
		if h.failed != nil {
			return h.failed, true
		}
		return h.probeErr, true
	}
	return nil, false
}

// heartbeatSQL is the probe's write: the heartbeat row (migration 0008),
// written in place.
const heartbeatSQL = `INSERT INTO heartbeat (id, at) VALUES (1, $1)
	ON CONFLICT (id) DO UPDATE SET at = excluded.at`

// Heartbeat writes the heartbeat row: the probe of Ready.
func (s *Store) Heartbeat(ctx context.Context) error {
	if _, err := s.db.Writer().Exec(ctx, heartbeatSQL, time.Now().UnixNano()); err != nil {
		return s.errorf("heartbeat", err)
	}
	return nil
}
