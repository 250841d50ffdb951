package server

import (
	"context"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// hookStore is a store whose tenants run a hook before a report's writes:
// start before Start (a report's first write), save before SaveOccurrence.
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
