package sqlite

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// TestReportRowsAgree: a report's rows point at one another as they did
// when the statements returned them. The occurrence's id now comes from
// the driver (LastInsertId) and the claim completes the delivery with
// it, and the record takes its seq from the occurrence: Saved.ID is the
// occurrence the delivery and a new record point at, and the occurrence
// is filed under its record's seq, for new and repeated errors, after
// reports of other tenants and without a delivery key in between.
func TestReportRowsAgree(t *testing.T) {
	ctx := t.Context()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	for i := range 12 {
		tenant := []string{"a", "b"}[i%2]
		tn := s.Tenant(tenant)
		key, errorID := fmt.Sprintf("k%02d", i), fmt.Sprintf("e%d", i%5) // errors repeat
		req := triage.StartRequest{Key: key, AttemptKey: "q/" + errorID, Agent: "agent", Code: "E", At: at, Window: time.Hour}
		p, err := tn.PeekReport(ctx, req)
		if err != nil || !p.First {
			t.Fatalf("peek %s: %+v, %v", key, p, err)
		}
		o := store.Occurrence{DeliveryKey: key, ErrorID: errorID, QueryID: "q", AgentID: "agent", ErrorType: "query_error",
			Severity: "high", NextAction: "retry", Attempt: p.Attempt, ReportedAt: at, ReceivedAt: at.Add(time.Duration(i) * time.Second),
			Report: json.RawMessage(`{}`), Feedback: json.RawMessage(`{}`)}
		saved, err := tn.Report(ctx, req, p.StartResult, o)
		if err != nil || saved.ID == 0 {
			t.Fatalf("report %s: %+v, %v", key, saved, err)
		}
		var occID, recordSeq, pointer, seq, latest int64
		if err := s.read.QueryRowContext(ctx, `SELECT id, record_seq FROM occurrences WHERE tenant = ? AND delivery_key = ?`,
			tenant, key).Scan(&occID, &recordSeq); err != nil {
			t.Fatal(err)
		}
		if err := s.read.QueryRowContext(ctx, `SELECT occurrence_id FROM deliveries WHERE tenant = ? AND delivery_key = ?`,
			tenant, key).Scan(&pointer); err != nil {
			t.Fatal(err)
		}
		if err := s.read.QueryRowContext(ctx, `SELECT seq, latest_id FROM records WHERE tenant = ? AND error_id = ?`,
			tenant, errorID).Scan(&seq, &latest); err != nil {
			t.Fatal(err)
		}
		if occID != saved.ID || pointer != saved.ID || latest != saved.ID || recordSeq != seq {
			t.Errorf("report %s: saved %d, occurrence %d under seq %d, delivery -> %d, record %d -> %d",
				key, saved.ID, occID, recordSeq, pointer, seq, latest)
		}
		if i%3 == 0 { // an occurrence with no delivery key in between
			if _, err := tn.SaveOccurrence(ctx, store.Occurrence{ErrorID: "other", QueryID: "q", AgentID: "agent",
				ErrorType: "query_error", Severity: "high", NextAction: "retry", Attempt: 1, ReportedAt: at, ReceivedAt: at}); err != nil {
				t.Fatal(err)
			}
		}
	}
}
