package sqlstore

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/triage-go/triage/store"
)

// A delivery's claim is released when its handling or its save failed, so
// that the client's retry is handled anew. The release is a write, which
// fails when the storage does (the disk that refused the save refuses the
// release): the claim would then hold the retries for its whole lease
// (409 SESSION_BUSY for store.ClaimLease). The store keeps the claims it
// failed to release, and releases them later: at the next Start of the
// delivery, which takes the claim over in its own write, and every
// releaseRetryEvery in the background (for a retry that another instance
// takes), until the lease would have let it go anyway.
//
// Only a claim taken no later than the failed release is released, and
// only while it is in flight: a claim another instance took once the
// lease ran out, or one that was saved since, is left alone.

// releaseRetryEvery is how often the claims not released are tried again
// in the background: under the one second of SESSION_BUSY's and
// SERVICE_UNAVAILABLE's Retry-After.
const releaseRetryEvery = 500 * time.Millisecond

// maxUnreleased bounds the claims kept: past it, a claim not released
// holds until its lease ends, as it did before.
const maxUnreleased = 10_000

// releaseSQL releases a delivery's claim while it is in flight, and only
// if it was taken before $3.
const releaseSQL = `DELETE FROM deliveries WHERE tenant = $1 AND delivery_key = $2
	AND ` + inFlightClaim + ` AND deliveries.claimed_at < $3`

// claimRef names a delivery's claim.
type claimRef struct{ tenant, key string }

// unreleased are the claims the store failed to release.
type unreleased struct {
	// n is len(claims), read without the lock: a Start, the service's
	// every report, takes no lock while there is none (the usual case).
	n       atomic.Int64
	mu      sync.Mutex
	claims  map[claimRef]*unreleasedClaim
	running bool // the background retries
	closed  bool
	stop    chan struct{}
	done    sync.WaitGroup
}

// unreleasedClaim is a claim the store failed to release.
type unreleasedClaim struct {
	// failed is when its release failed, by the store's clock (that of
	// the claims' claimed_at).
	failed time.Time
	// busy, while a Start or the background retries release the claim
	// (hold it), is closed when they are done; nil otherwise. The
	// holder is alone: a release cannot race a take-over.
	busy chan struct{}
}

// keepUnreleased keeps a claim whose release failed at failed, and starts
// the background retries.
func (s *Store) keepUnreleased(c claimRef, failed time.Time) {
	u := &s.unreleased
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.closed {
		return
	}
	if u.claims == nil {
		u.claims = map[claimRef]*unreleasedClaim{}
		u.stop = make(chan struct{})
	}
	switch e := u.claims[c]; {
	case e != nil:
		if failed.After(e.failed) {
			e.failed = failed
		}
	case len(u.claims) < maxUnreleased:
		u.claims[c] = &unreleasedClaim{failed: failed}
		u.n.Store(int64(len(u.claims)))
	default:
		return // its lease lets it go
	}
	if !u.running {
		u.running = true
		u.done.Add(1)
		go s.retryReleases()
	}
}

// keepsUnreleased tells whether the store keeps c, a claim it failed to
// release.
func (s *Store) keepsUnreleased(c claimRef) bool {
	u := &s.unreleased
	if u.n.Load() == 0 {
		return false
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.claims[c] != nil
}

// holdUnreleased holds c when the store keeps it, once no one else does,
// and returns when its release failed; false when the store does not
// keep it. The holder ends the hold with endHold.
func (s *Store) holdUnreleased(ctx context.Context, c claimRef) (time.Time, bool, error) {
	u := &s.unreleased
	if u.n.Load() == 0 {
		return time.Time{}, false, nil
	}
	for {
		u.mu.Lock()
		e := u.claims[c]
		if e == nil {
			u.mu.Unlock()
			return time.Time{}, false, nil
		}
		if e.busy == nil {
			e.busy = make(chan struct{})
			u.mu.Unlock()
			return e.failed, true, nil
		}
		busy := e.busy
		u.mu.Unlock()
		select {
		case <-busy:
		case <-ctx.Done():
			return time.Time{}, false, ctx.Err()
		}
	}
}

// endHold ends a hold of c taken when its release had failed at failed:
// the store forgets c when released (unless its release failed again
// since), and lets others hold it otherwise.
func (s *Store) endHold(c claimRef, failed time.Time, released bool) {
	u := &s.unreleased
	u.mu.Lock()
	defer u.mu.Unlock()
	e := u.claims[c]
	if e == nil || e.busy == nil {
		return
	}
	close(e.busy)
	e.busy = nil
	if released && !e.failed.After(failed) {
		delete(u.claims, c)
		u.n.Store(int64(len(u.claims)))
	}
}

// forgetUnreleased forgets c, released, unless someone holds it.
func (s *Store) forgetUnreleased(c claimRef) {
	u := &s.unreleased
	if u.n.Load() == 0 {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if e := u.claims[c]; e != nil && e.busy == nil {
		delete(u.claims, c)
		u.n.Store(int64(len(u.claims)))
	}
}

// retryReleases releases the claims kept, every releaseRetryEvery, until
// none is left or the store closes.
func (s *Store) retryReleases() {
	u := &s.unreleased
	defer u.done.Done()
	tick := time.NewTicker(releaseRetryEvery)
	defer tick.Stop()
	type held struct {
		c      claimRef
		failed time.Time
	}
	for {
		select {
		case <-u.stop:
			return
		case <-tick.C:
		}
		var claims []held
		u.mu.Lock()
		for c, e := range u.claims {
			if e.busy == nil {
				e.busy = make(chan struct{})
				claims = append(claims, held{c, e.failed})
			}
		}
		u.mu.Unlock()
		lapsed := s.now().Add(-store.ClaimLease)
		for _, h := range claims {
			if h.failed.Before(lapsed) {
				s.endHold(h.c, h.failed, true) // the lease lets it go
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, err := s.db.Writer().Exec(ctx, releaseSQL, h.c.tenant, h.c.key, nanos(h.failed)+1)
			cancel()
			s.endHold(h.c, h.failed, err == nil)
		}
		u.mu.Lock()
		if len(u.claims) == 0 || u.closed {
			u.running = false
			u.mu.Unlock()
			return
		}
		u.mu.Unlock()
	}
}

// Close stops the background releases, and waits for them. The store's
// database is closed by its package.
func (s *Store) Close() {
	u := &s.unreleased
	u.mu.Lock()
	if !u.closed {
		u.closed = true
		if u.stop != nil {
			close(u.stop)
		}
	}
	u.mu.Unlock()
	u.done.Wait()
}
