package server

import (
	"database/sql"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/triage-go/triage/internal/testkit/disktest"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
)

// diskFixture starts a Server on a store of the database db, which the
// test made ready (or not) first.
func diskFixture(t *testing.T, db string) *fixture {
	t.Helper()
	clk := &clock{now: scenarioNow}
	st := openStore(t, db, clk)
	t.Cleanup(func() { st.Close() })
	buf := &syncBuffer{}
	srv, err := New(Config{Store: st, Now: clk.Now, JobPoll: -1, Logger: slog.New(slog.NewTextHandler(buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); hs.Close() })
	return &fixture{t: t, srv: srv, http: hs, store: st, clock: clk, logBuf: buf}
}

// readiness returns /readyz's status and, for a 503, its reason.
func (f *fixture) readiness() (int, string) {
	f.t.Helper()
	r := f.do("GET", "/readyz", nil, nil)
	if r.status == 200 {
		return 200, ""
	}
	if code := codeOf(f.t, r); code != "SERVICE_UNAVAILABLE" || r.header.Get("Retry-After") == "" {
		f.t.Errorf("/readyz: %d %s, want SERVICE_UNAVAILABLE with Retry-After", r.status, code)
	}
	var p struct {
		Details struct{ Reason string }
	}
	if err := json.Unmarshal(r.body, &p); err != nil {
		f.t.Fatal(err)
	}
	return r.status, p.Details.Reason
}

// diskReport is the golden db_timeout report, sent at scenarioNow less i
// seconds: another delivery for each i.
func diskReport(t *testing.T, i int) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(readFile(t, goldenDir+"/db_timeout.json"), &m); err != nil {
		t.Fatal(err)
	}
	m["timestamp"] = scenarioNow.Add(-time.Duration(i) * time.Second).Format(time.RFC3339)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReadOnlyDatabaseRecovers: a server started on a database file it
// may not write is not ready (503, read_only) and refuses reports with
// 503; once the file is writable, the same server is ready and takes the
// report, without a restart.
func TestReadOnlyDatabaseRecovers(t *testing.T) {
	t.Parallel()
	if !disktest.InSubprocess(t, disktest.Options{Unprivileged: true}) {
		return
	}
	db := filepath.Join(t.TempDir(), "triage.db")
	st, err := sqlite.Open(t.Context(), db, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	disktest.Chmod(t, 0o444, db)
	f := diskFixture(t, db)
	if status, reason := f.readiness(); status != 503 || reason != store.ReadOnly {
		t.Fatalf("/readyz on a read-only database: %d %q, want 503 read_only", status, reason)
	}
	report := diskReport(t, 0)
	if r := f.do("POST", "/v1/errors", report, nil); r.status != 503 || codeOf(t, r) != "SERVICE_UNAVAILABLE" {
		t.Fatalf("a report to a read-only database: %d %s", r.status, r.body)
	}

	disktest.Writable(t, db) // the -wal and -shm files too: SQLite made them with the database's mode
	time.Sleep(store.ReadyProbeEvery)
	if status, reason := f.readiness(); status != 200 {
		t.Fatalf("/readyz once the database is writable: %d %q", status, reason)
	}
	r := f.do("POST", "/v1/errors", report, nil)
	if r.status != 201 {
		t.Fatalf("the report's retry once the database is writable: %d %s", r.status, r.body)
	}
	if rec := f.record(r.json(t)["error_id"].(string)); rec.Count != 1 {
		t.Errorf("the record has %d occurrences, want 1", rec.Count)
	}
}

// refuseSaves makes the database refuse (on) or take (off) what a full
// disk refuses: the occurrences' inserts and the delivery claims'
// deletes, and on PostgreSQL the heartbeat's writes, with disk_full
// (53100); on SQLite a trigger's error (SQLITE_CONSTRAINT) stands for
// SQLITE_FULL.
func refuseSaves(t *testing.T, db string, on bool) {
	t.Helper()
	tables := []struct{ name, op string }{{"occurrences", "INSERT"}, {"deliveries", "DELETE"}}
	var stmts []string
	if onPostgres(t) {
		tables = append(tables, struct{ name, op string }{"heartbeat", "INSERT OR UPDATE"})
		if on {
			stmts = append(stmts, `CREATE OR REPLACE FUNCTION refuse_write() RETURNS trigger LANGUAGE plpgsql AS $$
				BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$`)
		}
		for _, tb := range tables {
			stmts = append(stmts, `DROP TRIGGER IF EXISTS refuse_`+tb.name+` ON `+tb.name)
			if on {
				stmts = append(stmts, `CREATE TRIGGER refuse_`+tb.name+` BEFORE `+tb.op+` ON `+tb.name+
					` FOR EACH STATEMENT EXECUTE FUNCTION refuse_write()`)
			}
		}
		conn, err := pgx.Connect(t.Context(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(t.Context())
		for _, s := range stmts {
			if _, err := conn.Exec(t.Context(), s); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for _, tb := range tables {
		stmts = append(stmts, `DROP TRIGGER IF EXISTS refuse_`+tb.name)
		if on {
			stmts = append(stmts, `CREATE TRIGGER refuse_`+tb.name+` BEFORE `+tb.op+` ON `+tb.name+
				` BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`)
		}
	}
	conn, err := sql.Open("sqlite", db+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, s := range stmts {
		if _, err := conn.ExecContext(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRefusedReportRetriedAnew: a report whose save failed, and whose
// delivery claim could not be released either (the disk refused both),
// is answered 503; its retry is handled anew, 503 again while the disk
// refuses, never 409 SESSION_BUSY, and 201 once it takes the save, with
// one occurrence. On PostgreSQL /readyz says disk_full meanwhile.
func TestRefusedReportRetriedAnew(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	f := diskFixture(t, db)
	report := diskReport(t, 0)
	refuseSaves(t, db, true)
	for i := range 2 {
		r := f.do("POST", "/v1/errors", report, nil)
		if r.status != 503 || codeOf(t, r) != "SERVICE_UNAVAILABLE" || r.header.Get("Retry-After") != "1" {
			t.Fatalf("attempt %d while the disk refuses the save: %d %s, want 503", i+1, r.status, r.body)
		}
	}
	if onPostgres(t) {
		if status, reason := f.readiness(); status != 503 || reason != store.DiskFull {
			t.Errorf("/readyz while the disk refuses writes: %d %q, want 503 disk_full", status, reason)
		}
	}
	refuseSaves(t, db, false)
	r := f.do("POST", "/v1/errors", report, nil)
	if r.status != 201 {
		t.Fatalf("the retry once the disk takes the save: %d %s, want 201", r.status, r.body)
	}
	if rec := f.record(r.json(t)["error_id"].(string)); rec.Count != 1 {
		t.Errorf("the record has %d occurrences, want 1", rec.Count)
	}
	if r := f.do("POST", "/v1/errors", report, nil); r.status != 200 || r.json(t)["duplicate"] != true {
		t.Errorf("a repeat of the saved report: %d %s, want 200 duplicate", r.status, r.body)
	}
	time.Sleep(store.ReadyProbeEvery)
	if status, reason := f.readiness(); status != 200 {
		t.Errorf("/readyz once the disk takes writes: %d %q", status, reason)
	}
}

// TestFileSizeLimitOverHTTP: with the files' writes refused (a file size
// limit of 0, RLIMIT_FSIZE, in a process of its own: a full disk), the
// reports that do not fit are refused with 503 and /readyz is 503; the
// refused report's retry is 503, never 409; once the limit is lifted,
// /readyz is 200 and the retry is taken (201), with the report saved
// before the limit still there.
func TestFileSizeLimitOverHTTP(t *testing.T) {
	t.Parallel()
	if !disktest.InSubprocess(t, disktest.Options{Own: true}) {
		return
	}
	f := diskFixture(t, filepath.Join(t.TempDir(), "triage.db"))
	if r := f.do("POST", "/v1/errors", diskReport(t, 0), nil); r.status != 201 {
		t.Fatalf("a report: %d %s", r.status, r.body)
	}
	if status, reason := f.readiness(); status != 200 {
		t.Fatalf("/readyz: %d %q", status, reason)
	}
	lift := disktest.LimitFileSize(t, 0)
	var refused []byte
	for i := 1; i <= 200 && refused == nil; i++ {
		report := diskReport(t, i)
		switch r := f.do("POST", "/v1/errors", report, nil); r.status {
		case 201: // it fit in the WAL's pages
		case 503:
			refused = report
		default:
			t.Fatalf("report %d under the limit: %d %s", i, r.status, r.body)
		}
	}
	if refused == nil {
		t.Fatal("200 reports were taken under a file size limit of 0")
	}
	if status, reason := f.readiness(); status != 503 || (reason != store.IOError && reason != store.DiskFull) {
		t.Errorf("/readyz under the limit: %d %q, want 503 io_error or disk_full", status, reason)
	}
	if r := f.do("POST", "/v1/errors", refused, nil); r.status != 503 {
		t.Errorf("the refused report's retry under the limit: %d %s, want 503", r.status, r.body)
	}
	lift()
	time.Sleep(store.ReadyProbeEvery)
	if status, reason := f.readiness(); status != 200 {
		t.Fatalf("/readyz once the limit is lifted: %d %q", status, reason)
	}
	if r := f.do("POST", "/v1/errors", refused, nil); r.status != 201 {
		t.Fatalf("the refused report's retry once the limit is lifted: %d %s, want 201", r.status, r.body)
	}
	if r := f.do("POST", "/v1/errors", diskReport(t, 0), nil); r.status != 200 {
		t.Errorf("the report saved before the limit: %d %s, want 200 (a duplicate)", r.status, r.body)
	}
}
