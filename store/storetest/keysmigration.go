package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// oldDeliveryKey is r's delivery key in its form before SQLite's migration
// 0023 and PostgreSQL's 0024: the fingerprint, "@" and the time in UTC,
// RFC 3339 with nanoseconds (trailing zeros dropped).
func oldDeliveryKey(r *triage.Report) string {
	return triage.Fingerprint(r) + "@" + r.Timestamp.UTC().Format(time.RFC3339Nano)
}

// oldKeyReports are the reports FillOldDeliveryKeys delivers: times whose
// old form has no fraction, one digit, nine, trailing zeros, and one in
// another zone; the last one's delivery row goes (only its occurrence
// keeps its key).
func oldKeyReports(now time.Time) []*triage.Report {
	base := now.UTC().Truncate(time.Second)
	var list []*triage.Report
	for i, at := range []time.Time{
		base,
		base.Add(500 * time.Millisecond),
		base.Add(123456789),
		base.Add(120 * time.Microsecond),
		base.Add(7).In(time.FixedZone("CEST", 2*3600)),
		base.Add(-time.Hour),
	} {
		list = append(list, &triage.Report{AgentID: "agent", Timestamp: at, Data: triage.Data{
			ErrorType: triage.QueryError, ErrorCode: "E", QueryID: "q_old_" + string(rune('a'+i)), Message: "timed out"}})
	}
	return list
}

// FillOldDeliveryKeys writes to tenant a of s, with the store's own
// report path, the reports of oldKeyReports(now) delivered under their
// keys' old form (as a service did before the key began with the time),
// and a delivery under a key of another form, "custom-key"; then, with
// exec, deletes the last report's delivery row (as Retention.Deliveries
// or Release would). The caller then migrates s's database again from
// before the keys' rewrite, and CheckMigratedDeliveryKeys checks it.
func FillOldDeliveryKeys(t *testing.T, s store.Store, now time.Time, exec func(query string, args ...any) error) {
	t.Helper()
	ctx := t.Context()
	tn := s.Tenant("a")
	reports := oldKeyReports(now)
	for _, r := range reports {
		key, errorID := oldDeliveryKey(r), triage.ErrorID(triage.Fingerprint(r))
		if p, saved, err := report(ctx, tn, reportRequest(key, r.Data.QueryID, now), errorID); err != nil || !p.First || saved.ID == 0 {
			t.Fatalf("report %s: %+v, %+v, %v; want a new occurrence", key, p, saved, err)
		}
	}
	if p, saved, err := report(ctx, tn, reportRequest("custom-key", "q_custom", now), "e_custom"); err != nil || !p.First || saved.ID == 0 {
		t.Fatalf("report custom-key: %+v, %+v, %v; want a new occurrence", p, saved, err)
	}
	must(t, exec(`DELETE FROM deliveries WHERE tenant = 'a' AND delivery_key = $1`, oldDeliveryKey(reports[len(reports)-1])))
}

// CheckMigratedDeliveryKeys checks s, filled by FillOldDeliveryKeys at
// now and migrated since: each report delivered again, under its key's
// new form (triage.DeliveryKey), is a repeat that answers its first
// delivery's error_id, by the one-write path and by Start, and adds no
// occurrence; the report whose delivery row went is not counted twice
// either (its occurrence holds the new key); a key of another form is as
// it was.
func CheckMigratedDeliveryKeys(t *testing.T, s store.Store, now time.Time) {
	t.Helper()
	ctx := t.Context()
	tn := s.Tenant("a")
	reports := oldKeyReports(now)
	for i, r := range reports {
		key, errorID := triage.DeliveryKey(r), triage.ErrorID(triage.Fingerprint(r))
		req := reportRequest(key, r.Data.QueryID, now)
		if i == len(reports)-1 { // its delivery row is gone: claimed anew, saved already
			p, saved, err := report(ctx, tn, req, errorID)
			if errors.Is(err, store.ErrTwoStep) { // the store's answer when the occurrence holds the key: Start's way
				var res triage.StartResult
				res, err = tn.Start(ctx, req)
				p.StartResult = res
			}
			if err != nil || !p.First || saved.ID != 0 {
				t.Errorf("the report whose delivery went, again as %s: %+v, %+v, %v; want a claim, no new occurrence", key, p, saved, err)
			}
		} else {
			p, err := tn.PeekReport(ctx, req)
			if err != nil || p.First || p.Prior == nil || p.Prior.ErrorID != errorID || !p.Saved {
				t.Errorf("PeekReport(%s) = %+v, %v; want the repeat of %s, saved", key, p, err, errorID)
			}
			if res, err := tn.Start(ctx, req); err != nil || res.First || res.Prior == nil || res.Prior.ErrorID != errorID {
				t.Errorf("Start(%s) = %+v, %v; want the repeat of %s", key, res, err, errorID)
			}
		}
		if saved, err := tn.SaveOccurrence(ctx, reportOccurrence(key, errorID, 1, now)); err != nil || saved.ID != 0 {
			t.Errorf("SaveOccurrence(%s) = %+v, %v; want saved already", key, saved, err)
		}
		if rec := record(t, tn, errorID); rec.Count != 1 {
			t.Errorf("%s counts %d occurrences, want 1", errorID, rec.Count)
		}
	}
	p, err := tn.PeekReport(ctx, reportRequest("custom-key", "q_custom", now))
	if err != nil || p.First || p.Prior == nil || p.Prior.ErrorID != "e_custom" {
		t.Errorf("PeekReport(custom-key) = %+v, %v; want the repeat of e_custom", p, err)
	}
	// The old form finds nothing: the keys were rewritten, not copied.
	old := oldDeliveryKey(reports[0])
	if p, err := tn.PeekReport(ctx, reportRequest(old, reports[0].Data.QueryID, now)); err != nil || !p.First {
		t.Errorf("PeekReport(%s) = %+v, %v; want a first delivery (the key is rewritten)", old, p, err)
	}
}
