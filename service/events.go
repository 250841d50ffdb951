package service

import "sync"

// Events wakes the tenants' event streams when the service saves feedback
// or records a run's end. What happened is read from the store, by stream
// position (see store.Feed.FeedbackAfter), so a stream sends each event
// once and in order whichever request finishes first, and sees other
// instances' events too (at its poll).
type Events struct {
	mu   sync.Mutex
	subs map[*Subscription]struct{}
}

func newEvents() *Events { return &Events{subs: map[*Subscription]struct{}{}} }

// Subscription is one event stream's wake-ups.
type Subscription struct {
	tenant string
	wake   chan struct{} // one slot: wake-ups coalesce
}

// Woken receives when the tenant has something new to read.
func (s *Subscription) Woken() <-chan struct{} { return s.wake }

// Subscribe starts the wake-ups of one of the tenant's streams.
func (e *Events) Subscribe(tenant string) *Subscription {
	sub := &Subscription{tenant: tenant, wake: make(chan struct{}, 1)}
	e.mu.Lock()
	e.subs[sub] = struct{}{}
	e.mu.Unlock()
	return sub
}

// Unsubscribe ends a stream's wake-ups.
func (e *Events) Unsubscribe(sub *Subscription) {
	e.mu.Lock()
	delete(e.subs, sub)
	e.mu.Unlock()
}

// Wake tells the tenant's streams that it has new feedback, or a run that
// ended; "" wakes every stream.
func (e *Events) Wake(tenant string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for sub := range e.subs {
		if tenant != "" && sub.tenant != tenant {
			continue
		}
		select {
		case sub.wake <- struct{}{}:
		default: // woken already
		}
	}
}
