package handler

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage"
)

// TestPrepare: Prepare's key is triage.DeliveryKey (from the fingerprint it
// computed once), whatever the report's time zone and precision; the fault
// it classifies a report without an error code by is the one Decide would
// classify it by, and Decide decides the same with it or without it.
func TestPrepare(t *testing.T) {
	h := newHandler(t, Config{})
	noCode := strings.Replace(validReport, `"error_code": "DB_TIMEOUT",`, "", 1)
	if noCode == validReport {
		t.Fatal("the report has no error_code member to remove")
	}
	for _, raw := range []string{validReport, noCode} {
		for _, at := range []time.Time{time.Date(2025, 8, 8, 12, 20, 5, 0, time.UTC),
			time.Date(2025, 8, 8, 14, 20, 5, 123456789, time.FixedZone("CEST", 2*3600)),
			time.Date(2025, 8, 8, 12, 20, 5, 500, time.UTC)} {
			r := mustDecode(t, raw)
			r.Timestamp = at
			p := h.Prepare(r)
			if want := triage.DeliveryKey(r); p.Key != want || p.Start.Key != want {
				t.Errorf("key %q, start key %q, want %q", p.Key, p.Start.Key, want)
			}
			if r.Data.ErrorCode != "" {
				if p.fault != nil {
					t.Errorf("a report with an error code was classified by Prepare: %v", p.fault)
				}
				continue
			}
			if p.fault == nil || !reflect.DeepEqual(p.fault, h.classes.Fault(r)) {
				t.Errorf("Prepare's fault %v, the classifier's %v", p.fault, h.classes.Fault(r))
			}
			in := Input{Report: r, Prepared: p, Started: triage.StartResult{First: true, Attempt: 1, Recent: 1}}
			with, err := h.Decide(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			in.Prepared.fault = nil
			without, err := h.Decide(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(with, without) {
				t.Errorf("Decide with Prepare's fault: %+v\nwithout: %+v", with.Feedback, without.Feedback)
			}
		}
	}
}
