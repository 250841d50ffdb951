package sqlite

import (
	"fmt"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/store"
)

// TestServiceReportIsOneWrite counts the writer's entries (one
// transaction each, in its batches) of the service's reports: a new
// report is one write, a repeat of a saved one none (issue 28; it was two:
// Start, then SaveOccurrence).
func TestServiceReportIsOneWrite(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	svc, err := service.New(service.Config{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	body := func(i int) []byte {
		return fmt.Appendf(nil, `{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:%02dZ","status":"error",
			"data":{"error_type":"query_error","error_code":"DB_TIMEOUT","message":"Query timed out after 30s","query_id":"q_%d"}}`, i%60, i%3)
	}
	const n = 20
	before := s.writer.writes.Load()
	for i := range n {
		a, err := svc.Accept(t.Context(), service.Submission{Body: body(i)})
		if err != nil || a.Status != http.StatusCreated {
			t.Fatalf("report %d: %+v, %v", i, a.Status, err)
		}
	}
	if got := s.writer.writes.Load() - before; got != n {
		t.Errorf("%d new reports made %d writes, want %d", n, got, n)
	}
	before = s.writer.writes.Load()
	for i := range n {
		a, err := svc.Accept(t.Context(), service.Submission{Body: body(i)})
		if err != nil || a.Status != http.StatusOK {
			t.Fatalf("repeat %d: %+v, %v", i, a.Status, err)
		}
	}
	if got := s.writer.writes.Load() - before; got != 0 {
		t.Errorf("%d repeats made %d writes, want none", n, got)
	}
}
