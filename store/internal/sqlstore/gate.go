package sqlstore

import (
	"context"
	"sync"
)

// gate bounds the transactions each tenant has open at once, so that one
// tenant's many slow reads (large records, read by many clients) cannot
// hold every connection of the pool while the other tenants wait for
// one. A transaction waits at the gate before it takes a connection. A
// tenant's entry goes when its last transaction ends, so the map holds
// only the tenants with transactions open or waiting.
type gate struct {
	max     int // per tenant; 0: no bound
	mu      sync.Mutex
	tenants map[string]*gateEntry
}

type gateEntry struct {
	slots chan struct{}
	users int // holding or waiting
}

func newGate(max int) *gate {
	return &gate{max: max, tenants: map[string]*gateEntry{}}
}

// enter waits for one of tenant's slots, or for ctx to end (its error),
// and returns the func that gives the slot back.
func (g *gate) enter(ctx context.Context, tenant string) (leave func(), err error) {
	if g.max <= 0 {
		return func() {}, nil
	}
	g.mu.Lock()
	e := g.tenants[tenant]
	if e == nil {
		e = &gateEntry{slots: make(chan struct{}, g.max)}
		g.tenants[tenant] = e
	}
	e.users++
	g.mu.Unlock()
	select {
	case e.slots <- struct{}{}:
		return func() {
			<-e.slots
			g.done(tenant, e)
		}, nil
	case <-ctx.Done():
		g.done(tenant, e)
		return nil, ctx.Err()
	}
}

func (g *gate) done(tenant string, e *gateEntry) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if e.users--; e.users == 0 {
		delete(g.tenants, tenant)
	}
}

// tenantShare is the default bound of a tenant's transactions on conns
// connections: a quarter of them, at least one. A tenant's reads of large
// records are bound by the CPU that copies and checks them, not by
// connections: 64 of them at once read as many records a second through
// 8 of PostgreSQL's 32 connections as through 24 (docs/service.md).
func tenantShare(conns int) int {
	return max(1, conns/4)
}
