package sqlstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

var errFull = errors.New("disk full")

func testReason(err error) string {
	if errors.Is(err, errFull) {
		return store.DiskFull
	}
	return ""
}

// probes counts a probe's runs and answers err.
type probes struct {
	n   int
	err error
}

func (p *probes) probe(context.Context) error {
	p.n++
	return p.err
}

// TestHealthReadyAfterFailure: a write that failed for a reason of the
// storage makes Ready fail with that reason until a probe commits, though
// other writes commit meanwhile; a failure of another kind changes nothing.
func TestHealthReadyAfterFailure(t *testing.T) {
	h := NewHealth(testReason)
	p := &probes{}
	h.Observe(nil) // a commit, maybe empty, is no proof before a probe's
	if err := h.Ready(t.Context(), p.probe); err != nil || p.n != 1 {
		t.Fatalf("at first: Ready = %v, %d probes; want nil after a probe", err, p.n)
	}
	p.n = 0
	h.lastCommit = time.Now().Add(-store.ReadyFresh)
	h.lastProbe = time.Time{}
	h.Observe(nil)
	if err := h.Ready(t.Context(), p.probe); err != nil || p.n != 0 {
		t.Fatalf("after a commit: Ready = %v, %d probes; want nil without a probe", err, p.n)
	}
	h.Observe(errors.New("UNIQUE constraint failed"))
	if err := h.Ready(t.Context(), p.probe); err != nil || p.n != 0 {
		t.Fatalf("after a constraint's failure: Ready = %v, %d probes", err, p.n)
	}
	if r := h.Observe(errFull); r != store.DiskFull {
		t.Fatalf("Observe(disk full) = %q", r)
	}
	h.Observe(nil) // a write that committed, maybe empty: no proof
	p.err = errFull
	err := h.Ready(t.Context(), p.probe)
	var nr *store.NotReadyError
	if !errors.As(err, &nr) || nr.Reason != store.DiskFull || p.n != 1 {
		t.Fatalf("after a failure: Ready = %v, %d probes; want disk_full after a probe", err, p.n)
	}
	// Within ReadyProbeEvery, the probe's outcome stands.
	p.err = nil
	if err := h.Ready(t.Context(), p.probe); !errors.As(err, &nr) || p.n != 1 {
		t.Fatalf("again at once: Ready = %v, %d probes", err, p.n)
	}
	h.lastProbe = h.lastProbe.Add(-store.ReadyProbeEvery)
	if err := h.Ready(t.Context(), p.probe); err != nil || p.n != 2 {
		t.Fatalf("once the probe commits: Ready = %v, %d probes", err, p.n)
	}
	if err := h.Ready(t.Context(), p.probe); err != nil || p.n != 2 {
		t.Fatalf("then: Ready = %v, %d probes; want nil without a probe", err, p.n)
	}
}

// TestHealthProbesWhenIdle: with no write committed within ReadyFresh, Ready
// probes, at most once per ReadyProbeEvery; a failure seen after a probe
// that committed is reported at once.
func TestHealthProbesWhenIdle(t *testing.T) {
	h := NewHealth(testReason)
	p := &probes{}
	if err := h.Ready(t.Context(), p.probe); err != nil || p.n != 1 {
		t.Fatalf("idle: Ready = %v, %d probes; want a probe", err, p.n)
	}
	h.lastCommit = time.Now().Add(-store.ReadyFresh)
	if err := h.Ready(t.Context(), p.probe); err != nil || p.n != 1 {
		t.Fatalf("within ReadyProbeEvery: Ready = %v, %d probes; want none", err, p.n)
	}
	h.Observe(errFull)
	if err := h.Ready(t.Context(), p.probe); err == nil || p.n != 1 {
		t.Fatalf("a failure after the probe: Ready = %v, %d probes; want the failure", err, p.n)
	}
	p.err = context.DeadlineExceeded
	h.lastProbe = time.Time{}
	err := h.Ready(t.Context(), p.probe)
	var nr *store.NotReadyError
	if !errors.As(err, &nr) || nr.Reason != store.WriteFailed || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a probe that timed out: Ready = %v", err)
	}
}
