package postgres_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestStorageParameters reads the storage parameters migration 0026 set
// (docs/service.md, "PostgreSQL's storage parameters"): room kept on the
// pages of the tables updated in place, and autovacuum sooner on the
// tables a report writes.
func TestStorageParameters(t *testing.T) {
	dbURL, _ := freshStore(t)
	conn := connect(t, dbURL)
	want := map[string][]string{
		"records":       {"fillfactor=90", "autovacuum_vacuum_scale_factor=0.02", "autovacuum_vacuum_insert_scale_factor=0.02"},
		"deliveries":    {"fillfactor=90", "autovacuum_vacuum_scale_factor=0.02", "autovacuum_vacuum_insert_scale_factor=0.02"},
		"attempts":      {"fillfactor=90", "autovacuum_vacuum_scale_factor=0.02", "autovacuum_vacuum_insert_scale_factor=0.02"},
		"record_counts": {"fillfactor=90", "autovacuum_vacuum_scale_factor=0.02"},
		"occurrences":   {"autovacuum_vacuum_insert_scale_factor=0.02", "autovacuum_analyze_scale_factor=0.05"},
		"history":       {"autovacuum_vacuum_threshold=10000"},
	}
	for table, opts := range want {
		var got []string
		if err := conn.QueryRow(t.Context(), `SELECT COALESCE(reloptions, '{}') FROM pg_class
			WHERE oid = to_regclass($1)`, table).Scan(&got); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		for _, o := range opts {
			if !slices.Contains(got, o) {
				t.Errorf("%s's storage parameters are %v, want %s among them", table, got, o)
			}
		}
	}
}

// TestRecordRepeatStaysOnItsPage fills the records table's first page,
// then counts a repeat into its first record: the record's new version
// (never a HOT update: the sorts' indexes hold last_seen and the count)
// is written on the page the room kept free (fillfactor 90) holds, so a
// repeat changes one page of the table, not two.
func TestRecordRepeatStaysOnItsPage(t *testing.T) {
	dbURL, s := freshStore(t)
	ctx := t.Context()
	tn := s.Tenant("a")
	conn := connect(t, dbURL)
	page := func(errorID string) int {
		t.Helper()
		var p int
		if err := conn.QueryRow(ctx, `SELECT (ctid::text::point)[0]::int FROM records WHERE tenant = 'a' AND error_id = $1`,
			errorID).Scan(&p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	o := func(i int) string { return fmt.Sprintf("k%04d", i) }
	title := strings.Repeat("a title of some length ", 4)
	for i := 0; ; i++ {
		occ := occurrence(o(i))
		occ.Title = title
		if _, err := tn.SaveOccurrence(ctx, occ); err != nil {
			t.Fatal(err)
		}
		if page("e-"+o(i)) > 0 { // the first page is as full as inserts fill it
			break
		}
		if i > 1000 {
			t.Fatal("a thousand records on one page")
		}
	}
	if p := page("e-" + o(0)); p != 0 {
		t.Fatalf("the first record is on page %d", p)
	}
	repeat := occurrence(o(0) + "-again")
	repeat.ErrorID, repeat.Title = "e-"+o(0), title
	saved, err := tn.SaveOccurrence(ctx, repeat)
	if err != nil || saved.NewRecord {
		t.Fatalf("the repeat: %+v, %v", saved, err)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT occurrence_count FROM records WHERE tenant = 'a' AND error_id = $1`, "e-"+o(0)).Scan(&n); err != nil || n != 2 {
		t.Fatalf("the record's count: %d, %v; want 2", n, err)
	}
	if p := page("e-" + o(0)); p != 0 {
		t.Errorf("the repeat moved the record to page %d: its page kept no room for its new version", p)
	}
}
