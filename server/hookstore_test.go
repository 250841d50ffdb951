package server

import (
	"context"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// hookStore is a store whose tenants run a hook before a report's writes:
// start before PeekReport or Start (a report's first store call), save before
// Report or SaveOccurrence (its commit).
// A hook's error is the write's.
type hookStore struct {
	store.Store
	start func(context.Context) error
	save  func(context.Context) error
}

func (h hookStore) Tenant(id string) store.Tenant {
	return hookTenant{Tenant: h.Store.Tenant(id), h: h}
}

type hookTenant struct {
	store.Tenant
	h hookStore
}

func (t hookTenant) Start(ctx context.Context, req triage.StartRequest) (triage.StartResult, error) {
	if t.h.start != nil {
		if err := t.h.start(ctx); err != nil {
			return triage.StartResult{}, err
		}
	}
	return t.Tenant.Start(ctx, req)
}

func (t hookTenant) SaveOccurrence(ctx context.Context, o store.Occurrence) (store.Saved, error) {
	if t.h.save != nil {
		if err := t.h.save(ctx); err != nil {
			return store.Saved{}, err
		}
	}
	return t.Tenant.SaveOccurrence(ctx, o)
}

// PeekReport is the report's first call to its store (Start's, on the
// two-write way): the start hook's.
func (t hookTenant) PeekReport(ctx context.Context, req triage.StartRequest) (store.Peeked, error) {
	if t.h.start != nil {
		if err := t.h.start(ctx); err != nil {
			return store.Peeked{}, err
		}
	}
	return t.Tenant.PeekReport(ctx, req)
}

// Report is the report's commit (SaveOccurrence's, on the two-write
// way): the save hook's.
func (t hookTenant) Report(ctx context.Context, req triage.StartRequest, seen triage.StartResult, o store.Occurrence) (store.Saved, error) {
	if t.h.save != nil {
		if err := t.h.save(ctx); err != nil {
			return store.Saved{}, err
		}
	}
	return t.Tenant.Report(ctx, req, seen, o)
}
