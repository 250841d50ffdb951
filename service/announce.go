package service

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
)

// announceDelay gathers the announcements of one tenant's changes: one
// NOTIFY for the changes of 50 ms, sent when they are over.
const announceDelay = 50 * time.Millisecond

// Changed tells the tenant's event streams that it has new events:
// this instance's at once, the other instances' through the store's
// announcements (when it makes them), gathered per tenant.
func (s *Service) Changed(tenant string) {
	s.events.Wake(tenant)
	if s.announcer == nil {
		return
	}
	s.announcing.mu.Lock()
	defer s.announcing.mu.Unlock()
	if s.pending == nil {
		s.pending = map[string]bool{}
	}
	s.pending[tenant] = true
	if !s.flushing {
		s.flushing = true
		time.AfterFunc(announceDelay, s.announce)
	}
}

// announce sends the gathered announcements.
func (s *Service) announce() {
	s.announcing.mu.Lock()
	tenants := s.pending
	s.pending, s.flushing = nil, false
	s.announcing.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for tenant := range tenants {
		if err := s.announcer.Announce(ctx, tenant); err != nil {
			s.log(ctx, slog.LevelWarn, "announcing a change to the other instances failed", slog.Any("error", fault.From(err)))
			return
		}
	}
}

// Announces reports whether the store tells every instance of the others'
// changes: event streams then read on a change, and poll only as a
// fallback.
func (s *Service) Announces() bool { return s.announcer != nil }

// Listen wakes this instance's event streams on the other instances'
// announcements, until ctx ends; it returns nil at once when the store
// makes none.
func (s *Service) Listen(ctx context.Context) error {
	if s.announcer == nil {
		return nil
	}
	return s.announcer.Listen(ctx, s.events.Wake)
}

// announcing is the state of the gathered announcements.
type announcing struct {
	announcer store.Announcer
	mu        sync.Mutex
	pending   map[string]bool
	flushing  bool
}
