package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/postgres"
	"github.com/triage-go/triage/store/sqlite"
)

// dropped is the indexes and triggers a's statements drop (the names
// after DROP INDEX and DROP TRIGGER), and the columns (ALTER TABLE … DROP
// COLUMN).
func dropped(stmts []string) (indexes, triggers, columns []string) {
	for _, s := range stmts {
		f := strings.Fields(s)
		switch {
		case strings.HasPrefix(s, "DROP INDEX "):
			indexes = append(indexes, f[2])
		case strings.HasPrefix(s, "DROP TRIGGER "):
			triggers = append(triggers, f[2])
		case strings.Contains(s, " DROP COLUMN "):
			columns = append(columns, f[len(f)-1])
		}
	}
	return indexes, triggers, columns
}

func TestParseAblations(t *testing.T) {
	confs, err := parseAblations("none/search,listing/all/counts,counts")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range confs {
		got = append(got, c.String())
	}
	if want := "none|listing,search|all|counts"; strings.Join(got, "|") != want {
		t.Errorf("got %s, want %s", strings.Join(got, "|"), want)
	}
	if confs, err = parseAblations("all,detail"); err != nil || len(confs[0]) != len(parts) || confs[0].String() != "listing,search,counts,streams,detail,expiry" {
		t.Errorf("all,detail: %v, %v", confs, err)
	}
	if all, _ := parseAblations("all"); all[0].has("detail") {
		t.Error("all removes occurrences_by_record, which the write path needs")
	}
	if _, err := parseAblations("listing,nothing"); err == nil {
		t.Error("an unknown part was taken")
	}
}

// TestAblateSQLite removes every part from a migrated SQLite store and
// checks that each index and trigger is gone from sqlite_schema, that the
// write guarantees' keys are still there, that the service still answers
// 201 to a new report and the store alone still takes its writes, and
// that walFrames counts the pages those writes add.
func TestAblateSQLite(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "triage.db")
	st, all := openAblated(t, func(ctx context.Context) (store.Store, error) { return sqlite.Open(ctx, path, store.Config{}) },
		func(ctx context.Context, a ablation) error { return ablateSQLite(ctx, path, a) })
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exists := func(typ, name string) bool {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = ? AND name = ?`, typ, name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n > 0
	}
	for _, p := range all {
		indexes, triggers, _ := dropped(p.sqlite)
		if len(indexes)+len(triggers) == 0 {
			t.Errorf("%s drops nothing on SQLite", p.name)
		}
		for _, n := range indexes {
			if exists("index", n) {
				t.Errorf("%s: index %s still there", p.name, n)
			}
		}
		for _, n := range triggers {
			if exists("trigger", n) {
				t.Errorf("%s: trigger %s still there", p.name, n)
			}
		}
	}
	for _, n := range []string{"records_by_seq", "occurrences_by_record"} {
		if !exists("index", n) {
			t.Errorf("index %s, which the write path needs, was dropped", n)
		}
	}
	if !exists("table", "history") {
		t.Error("the history (its failures and totals, one B-tree since migration 0029), which the handler's window reads, was dropped")
	}

	sampled := serviceAnswers(t, st)
	frames, err := walFrames(ctx, path, func() error { return storeOK(storeFloor("first", sampled, "f", 1, 1, time.Minute)) },
		func() error { return storeOK(storeFloor("alone", sampled, "s", 5, 1, time.Minute)) })
	if err != nil {
		t.Fatal(err)
	}
	// Each report's commit writes its record's and its occurrence's
	// pages at least.
	if frames < 5*2 {
		t.Errorf("%d frames for 5 reports, want 2 each at least", frames)
	}
}

// openAblated is the store open returns, closed when the test ends, with
// every part of "all" removed by ablate, and those parts: the opening of
// the ablation tests.
func openAblated(t *testing.T, open func(context.Context) (store.Store, error), ablate func(context.Context, ablation) error) (store.Store, ablation) {
	t.Helper()
	st, err := open(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	all, err := parseAblations("all")
	if err != nil {
		t.Fatal(err)
	}
	if err := ablate(t.Context(), all[0]); err != nil {
		t.Fatal(err)
	}
	return st, all[0]
}

// serviceAnswers checks that the service on st answers 201 to new
// reports, and returns st sampled (the store alone's reports are the
// service's).
func serviceAnswers(t *testing.T, st store.Store) *sampling {
	t.Helper()
	sampled := &sampling{Store: st}
	base, err := service(sampled, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if r := load("ablated", []string{base}, "t", 5, 1, time.Minute, http.StatusCreated); r.n != 5 || r.failed > 0 {
		t.Fatalf("the service answered %d of 5 reports with 201", r.n)
	}
	return sampled
}

func storeOK(r result, err error) error {
	if err == nil && (r.failed > 0 || r.n == 0) {
		err = fmt.Errorf("%d of %d failed", r.failed, r.n+r.failed)
	}
	return err
}

// TestAblatePostgres is TestAblateSQLite's check of the schema and of a
// 201 on PostgreSQL (TRIAGE_TEST_POSTGRES).
func TestAblatePostgres(t *testing.T) {
	url := os.Getenv("TRIAGE_TEST_POSTGRES")
	if url == "" {
		t.Skip("TRIAGE_TEST_POSTGRES not set")
	}
	ctx := t.Context()
	scratch, drop, err := scratchSchema(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer drop()
	st, all := openAblated(t, func(ctx context.Context) (store.Store, error) { return postgres.Open(ctx, scratch, store.Config{}) },
		func(ctx context.Context, a ablation) error { return ablatePostgres(ctx, scratch, a) })
	conn, err := pgx.Connect(ctx, scratch)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	count := func(q, name string) int {
		var n int
		if err := conn.QueryRow(ctx, q, name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	const (
		index   = `SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1`
		trigger = `SELECT count(*) FROM information_schema.triggers WHERE trigger_schema = current_schema() AND trigger_name = $1`
		column  = `SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'records' AND column_name = $1`
	)
	for _, p := range all {
		indexes, triggers, columns := dropped(p.postgres)
		for _, n := range indexes {
			if count(index, n) > 0 {
				t.Errorf("%s: index %s still there", p.name, n)
			}
		}
		for _, n := range triggers {
			if count(trigger, n) > 0 {
				t.Errorf("%s: trigger %s still there", p.name, n)
			}
		}
		for _, n := range columns {
			if count(column, n) > 0 {
				t.Errorf("%s: column %s still there", p.name, n)
			}
		}
	}
	for _, n := range []string{"records_tenant_error_id_key", "occurrences_tenant_delivery_key_key", "attempts_pkey", "deliveries_pkey", "occurrences_by_record"} {
		if count(index, n) == 0 {
			t.Errorf("index %s, which the write guarantees need, was dropped", n)
		}
	}
	if err := storeOK(storeFloor("alone", serviceAnswers(t, st), "s", 5, 1, time.Minute)); err != nil {
		t.Fatal(err)
	}
}
