package storetest

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// FillOldOccurrences writes, with exec, records and their occurrences of
// the schema before the occurrences were found by their record's seq
// (SQLite's migration 0024, PostgreSQL's 0025): tenant a's e1 with three
// occurrences (received an hour, two hours and three hours before now,
// the one two hours before with delivery key "k1"), its e2 with one, and
// tenant b's e1 (the same error ID) with one, received 100 days before
// now and last seen then. CheckMigratedOccurrences checks them after the
// migration.
func FillOldOccurrences(now time.Time, exec func(query string, args ...any) error) error {
	for _, r := range []struct {
		tenant, errorID string
		at              []time.Duration // before now, the latest first
		keys            []any
	}{
		{"a", "e1", []time.Duration{time.Hour, 2 * time.Hour, 3 * time.Hour}, []any{nil, "k1", nil}},
		{"a", "e2", []time.Duration{30 * time.Minute}, []any{nil}},
		{"b", "e1", []time.Duration{100 * 24 * time.Hour}, []any{"k1"}},
	} {
		if err := exec(`INSERT INTO records (tenant, error_id, query_id, agent_id, error_type, severity,
			first_seen, last_seen, occurrence_count, code, title)
			VALUES ($1, $2, 'q', 'planner', 'query_error', 'low', $3, $4, $5, 'DB_TIMEOUT', 'DB_TIMEOUT: timed out')`,
			r.tenant, r.errorID, now.Add(-r.at[len(r.at)-1]).UnixNano(), now.Add(-r.at[0]).UnixNano(), len(r.at)); err != nil {
			return err
		}
		// Oldest first, as they were saved.
		for i := len(r.at) - 1; i >= 0; i-- {
			if err := exec(`INSERT INTO occurrences (tenant, delivery_key, error_id, query_id, agent_id, error_type, severity,
				next_action, attempt, reported_at, received_at, feedback)
				VALUES ($1, $2, $3, 'q', 'planner', 'query_error', 'low', 'resume', 1, $4, $4, $5)`,
				r.tenant, r.keys[i], r.errorID, now.Add(-r.at[i]).UnixNano(), `{"n": `+strconv.Itoa(i)+`}`); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckMigratedOccurrences checks the occurrences FillOldOccurrences wrote
// at now, on s migrated since: each record's pages list its own (not the
// other tenant's of the same error ID), the latest received first; the
// window's count reads them; a new occurrence goes first in its record's
// page with an ID after theirs; a delivery key saved before is still a
// duplicate; and Expire deletes an expired record's occurrences with it.
func CheckMigratedOccurrences(t *testing.T, s store.Store, now time.Time) {
	t.Helper()
	ctx := t.Context()
	received := func(tenant, errorID string) ([]time.Time, []int64) {
		t.Helper()
		var (
			at     []time.Time
			ids    []int64
			cursor string
		)
		for range 10 {
			page, found, err := s.Tenant(tenant).Occurrences(ctx, errorID, store.OccurrenceFilter{Limit: 1, Cursor: cursor})
			if err != nil || !found {
				t.Fatalf("Occurrences(%s, %s) = %v, %v", tenant, errorID, found, err)
			}
			for _, o := range page.Occurrences {
				if o.ErrorID != errorID {
					t.Errorf("%s's %s lists an occurrence of %s", tenant, errorID, o.ErrorID)
				}
				at, ids = append(at, o.ReceivedAt), append(ids, o.ID)
			}
			if cursor = page.Next; cursor == "" {
				break
			}
		}
		return at, ids
	}
	minutesOf := func(at []time.Time) []int64 {
		var h []int64
		for _, a := range at {
			h = append(h, int64(now.Sub(a).Round(time.Minute)/time.Minute))
		}
		return h
	}
	for _, c := range []struct {
		tenant, errorID string
		minutesAgo      []int64
	}{{"a", "e1", []int64{60, 120, 180}}, {"a", "e2", []int64{30}}, {"b", "e1", []int64{100 * 24 * 60}}} {
		at, _ := received(c.tenant, c.errorID)
		if got := minutesOf(at); !slices.Equal(got, c.minutesAgo) {
			t.Errorf("%s's %s: its pages list occurrences received %v minutes ago, want %v", c.tenant, c.errorID, got, c.minutesAgo)
		}
	}
	r, found, err := s.Tenant("a").ErrorRecord(ctx, "e1")
	if err != nil || !found || len(r.Occurrences) != 3 || r.Occurrences[0].ReceivedAt.Before(r.Occurrences[1].ReceivedAt) {
		t.Errorf("a's e1: ErrorRecord = %d occurrences, %v, %v; want its 3, the latest first", len(r.Occurrences), found, err)
	}
	if n, err := s.Tenant("a").CountOccurrences(ctx, "e1", now.Add(-150*time.Minute), 10); err != nil || n != 2 {
		t.Errorf("a's e1 counts %d occurrences in the last 150 minutes (%v), want 2", n, err)
	}
	_, oldIDs := received("a", "e1")
	o := store.Occurrence{DeliveryKey: "k2", ErrorID: "e1", QueryID: "q", AgentID: "planner", ErrorType: "query_error",
		Severity: "low", NextAction: "resume", Attempt: 1, ReceivedAt: now}
	saved, err := s.Tenant("a").SaveOccurrence(ctx, o)
	if err != nil || saved.ID <= slices.Max(oldIDs) || saved.NewRecord {
		t.Fatalf("a new occurrence of a's e1: %+v, %v; want an ID after %v, in its record", saved, err, oldIDs)
	}
	if _, ids := received("a", "e1"); len(ids) != 4 || ids[0] != saved.ID {
		t.Errorf("a's e1 lists %v after a new occurrence %d, want it first of 4", ids, saved.ID)
	}
	o.DeliveryKey = "k1" // saved before the migration
	if dup, err := s.Tenant("a").SaveOccurrence(ctx, o); err != nil || dup.ID != 0 {
		t.Errorf("a repeat of delivery k1: %+v, %v; want a duplicate", dup, err)
	}
	if _, ids := received("a", "e1"); len(ids) != 4 {
		t.Errorf("a's e1 lists %d occurrences after a repeated delivery, want 4", len(ids))
	}
	// b's e1, last seen 100 days ago, expires with its occurrence; a's
	// records stay.
	if _, err := s.Expire(ctx, store.Retention{Records: 30 * 24 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	if _, found, err := s.Tenant("b").Occurrences(ctx, "e1", store.OccurrenceFilter{}); err != nil || found {
		t.Errorf("b's e1 after Expire: found %v, %v; want it gone", found, err)
	}
	if _, ids := received("a", "e1"); len(ids) != 4 {
		t.Errorf("a's e1 lists %d occurrences after Expire, want 4", len(ids))
	}
}
