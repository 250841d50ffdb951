package service

import (
	"context"
	"log/slog"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
)

// A team's change of its records goes through the service, whichever door
// asks (PATCH /v1/errors/{error_id}, POST /v1/errors/changes, the MCP tool
// errors_update): the store changes the records, and the service tells the
// tenant's alert targets what follows from it (a resolved record resolves
// its PagerDuty incident).

// ChangeRecord changes one record of tenant's as c asks, by by: the store's
// ChangeRecord (false for no such record; an invalid change is its
// *fault.Error), then, when the record became resolved, AlertResolved.
func (s *Service) ChangeRecord(ctx context.Context, tenant, errorID string, c triage.Change, by string) (store.Changed, bool, error) {
	ch, ok, err := s.cfg.Store.Tenant(tenant).ChangeRecord(ctx, errorID, c, by)
	if err != nil || !ok {
		return ch, ok, err
	}
	if ch.Transition != nil && ch.Transition.To.Status == triage.StatusResolved && ch.Transition.From.Status != triage.StatusResolved {
		s.alertResolved(ctx, tenant, errorID)
	}
	return ch, true, nil
}

// ChangeRecords changes every record of tenant's that f selects as c asks,
// by by, and returns how many it changed; the records it resolved resolve
// their PagerDuty incidents. A failure midway keeps the batches done and
// tells them too.
func (s *Service) ChangeRecords(ctx context.Context, tenant string, f store.Filter, c triage.Change, by string) (int, error) {
	ids, err := s.cfg.Store.Tenant(tenant).ChangeRecords(ctx, f, c, by)
	if c.Status == triage.StatusResolved && len(ids) > 0 {
		s.alertResolved(ctx, tenant, ids...)
	}
	return len(ids), err
}

// alertResolved is AlertResolved for a change that has committed: its
// failure is logged (the change stands, and the incident stays open until
// resolved by hand), not returned.
func (s *Service) alertResolved(ctx context.Context, tenant string, errorIDs ...string) {
	if err := s.AlertResolved(ctx, tenant, errorIDs...); err != nil {
		s.log(ctx, slog.LevelError, "telling the alert targets of a resolve failed", slog.String("tenant", tenant),
			slog.Int("records", len(errorIDs)), slog.Any("error", fault.From(err)))
	}
}
