package postgres_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/internal/testkit/pgtest"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/postgres"
	"github.com/triage-go/triage/store/storetest"
)

func open(t testing.TB, dbURL string, opts store.Config) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), dbURL, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	pgtest.URL(t)
	storetest.Run(t, func(t *testing.T, opts store.Config) store.Store {
		return open(t, pgtest.FreshSchema(t), opts)
	})
}

func TestConcurrentOpenMigratesOnce(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	const n = 4
	stores := make([]*postgres.Store, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			s, err := postgres.Open(t.Context(), dbURL, store.Config{})
			if err != nil {
				t.Error(err)
				return
			}
			stores[i] = s
		})
	}
	wg.Wait()
	for _, s := range stores {
		if s != nil {
			defer s.Close()
		}
	}
	if t.Failed() {
		return
	}
	conn := connect(t, dbURL)
	var applied int
	if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM schema_migrations").Scan(&applied); err != nil {
		t.Fatal(err)
	}
	files, err := os.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	if applied != len(files) {
		t.Errorf("schema_migrations has %d rows, want one per migration (%d)", applied, len(files))
	}
	// Every instance works on the one schema.
	for i, s := range stores {
		if got, err := s.Tenant("a").Next(t.Context(), "k"); err != nil || got != i+1 {
			t.Errorf("instance %d: Next = %d, %v; want %d", i, got, err, i+1)
		}
	}
}

func TestReopenKeepsData(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	s := open(t, dbURL, store.Config{})
	if _, err := s.Tenant("a").Next(t.Context(), "k"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open(t, dbURL, store.Config{})
	defer s.Close()
	if n, err := s.Tenant("a").Next(t.Context(), "k"); err != nil || n != 2 {
		t.Errorf("Next after reopening = %d, %v; want 2", n, err)
	}
}

func TestOpenErrorsHideThePassword(t *testing.T) {
	for _, dbURL := range []string{
		"postgres://triage:s3cret-pw@127.0.0.1:1/triage?connect_timeout=2&sslmode=disable", // nothing listens
		"postgres://triage:s3cret-pw@db.example:notaport/triage",                           // unparsable
		"host=127.0.0.1 port=1 user=triage password=s3cret-pw connect_timeout=2 sslmode=disable",
		"postgres://triage:s3cret-pw%zz@127.0.0.1/triage", // a bad escape in the password
	} {
		s, err := postgres.Open(t.Context(), dbURL, store.Config{})
		if err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", dbURL)
			continue
		}
		if strings.Contains(err.Error(), "s3cret-pw") {
			t.Errorf("Open error shows the password: %v", err)
		}
	}
}

// An event stream must not pass over an occurrence whose transaction is
// still running: its ID was taken first, so a reader by ID that went on
// from the later one would never send it.
func TestStreamWaitsForOlderTransactions(t *testing.T) {
	dbURL, s := freshStore(t)
	ctx := t.Context()
	a := s.Tenant("a")
	head, err := a.LatestOccurrence(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// A transaction saves an occurrence and stays open.
	conn := connect(t, dbURL)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // committed below
	var slowSeq int64
	if err := tx.QueryRow(ctx, `INSERT INTO records (tenant, error_id, query_id, agent_id, error_type, severity,
			first_seen, last_seen, occurrence_count) VALUES ('a', 'slow', 'q', 'agent', 'query_error', 'low', 0, 0, 1)
			RETURNING seq`).Scan(&slowSeq); err != nil {
		t.Fatal(err)
	}
	var slowID int64
	if err := tx.QueryRow(ctx, `INSERT INTO occurrences (tenant, delivery_key, error_id, record_seq, query_id, agent_id, error_type,
			severity, next_action, attempt, reported_at, received_at, feedback)
			VALUES ('a', 'slow', 'slow', $1, 'q', 'agent', 'query_error', 'low', 'resume', 1, 0, 0, '{"n": 1}')
			RETURNING id`, slowSeq).Scan(&slowID); err != nil {
		t.Fatal(err)
	}

	var slowXid int64
	if err := tx.QueryRow(ctx, `SELECT pg_current_xact_id()::text::bigint`).Scan(&slowXid); err != nil {
		t.Fatal(err)
	}

	// Another, saved after it, commits first.
	fast, err := a.SaveOccurrence(ctx, store.Occurrence{DeliveryKey: "fast", ErrorID: "fast", QueryID: "q", AgentID: "agent",
		ErrorType: "query_error", Severity: "low", NextAction: "resume", Attempt: 1, Feedback: []byte(`{"n": 2}`)})
	if err != nil {
		t.Fatal(err)
	}
	if fastID := fast.ID; fastID <= slowID {
		t.Fatalf("the occurrence saved second has ID %d, not after the first's %d", fastID, slowID)
	}
	if got, err := a.FeedbackAfter(ctx, head, 10); err != nil || len(got) != 0 {
		t.Fatalf("with an older transaction open, FeedbackAfter = %+v, %v; want nothing yet", got, err)
	}
	// The position stays before the open transaction (transactions of
	// their own, such as the store's readiness probe, may have moved it
	// past head, but never to the open one).
	if latest, err := a.LatestOccurrence(ctx); err != nil || latest >= slowXid {
		t.Errorf("with an older transaction (xid %d) open, LatestOccurrence = %d, %v; want it before", slowXid, latest, err)
	}

	// A stream that begins now starts before both, and is told that the
	// second was committed already.
	start, before, err := a.StreamStart(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) != 1 {
		t.Fatalf("StreamStart = %d, %v: want the one occurrence committed", start, before)
	}

	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// Both, the first saved first, once the streams' position has passed
	// the second. The position is held back by the oldest transaction
	// still running in the whole cluster (another test's, another
	// process's), for as long as that one runs: the test waits for the
	// position, not for a time. Meanwhile a read may find the first
	// alone, never the second without it.
	for {
		latest, err := a.LatestOccurrence(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.FeedbackAfter(ctx, head, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > 0 && string(got[0].Feedback) != `{"n": 1}` {
			t.Fatalf("after the commit, FeedbackAfter begins with %s at %d; want n 1, saved first", got[0].Feedback, got[0].ID)
		}
		if latest < before[0] {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if len(got) != 2 || string(got[1].Feedback) != `{"n": 2}` || got[0].ID >= got[1].ID {
			t.Fatalf("with the position at %d, past both, FeedbackAfter = %+v; want n 1 then n 2", latest, got)
		}
		if got[1].ID != before[0] || got[0].ID <= start {
			t.Errorf("the stream started at %d before %v; the occurrences are at %d and %d", start, before, got[0].ID, got[1].ID)
		}
		break
	}
}

// A database a later build migrated is refused.
func TestOpenRefusesANewerSchema(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	open(t, dbURL, store.Config{}).Close()
	conn := connect(t, dbURL)
	if _, err := conn.Exec(t.Context(), `INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, '9999_later.sql', 0)`); err != nil {
		t.Fatal(err)
	}
	if s, err := postgres.Open(t.Context(), dbURL, store.Config{}); !errors.Is(err, store.ErrNewerSchema) {
		if err == nil {
			s.Close()
		}
		t.Fatalf("Open of a newer schema: %v, want ErrNewerSchema", err)
	}
}

// A delivery whose occurrence is gone (deleted by hand, a partial
// restore) is no answer: the next delivery takes its claim over, by the
// one-statement Start as by Claim.
func TestClaimOfAVanishedOccurrence(t *testing.T) {
	dbURL, s := freshStore(t)
	ctx := t.Context()
	tn := s.Tenant("a")
	conn := connect(t, dbURL)
	for _, key := range []string{"d1", "d2"} {
		if _, first, err := tn.Claim(ctx, key); err != nil || !first {
			t.Fatalf("Claim(%s) = %v, %v; want first", key, first, err)
		}
		if _, err := tn.SaveOccurrence(ctx, occurrence(key)); err != nil {
			t.Fatal(err)
		}
		if prior, first, err := tn.Claim(ctx, key); err != nil || first || prior == nil {
			t.Fatalf("Claim(%s) after the save = %+v, %v, %v; want its feedback", key, prior, first, err)
		}
	}
	if _, err := conn.Exec(ctx, `DELETE FROM occurrences`); err != nil {
		t.Fatal(err)
	}
	res, err := tn.Start(ctx, triage.StartRequest{Key: "d1", AttemptKey: "q|e", Agent: "agent", Code: "X", At: time.Now(), Window: time.Hour})
	if err != nil || !res.First || res.Prior != nil || res.Attempt != 1 {
		t.Errorf("Start of a delivery whose occurrence is gone = %+v, %v; want it taken over and counted", res, err)
	}
	if prior, first, err := tn.Claim(ctx, "d2"); err != nil || !first || prior != nil {
		t.Errorf("Claim of a delivery whose occurrence is gone = %+v, %v, %v; want it taken over", prior, first, err)
	}
	if prior, first, err := tn.Claim(ctx, "d1"); err != nil || first || prior != nil {
		t.Errorf("Claim within the new lease = %+v, %v, %v; want in flight", prior, first, err)
	}
}

// Occurrences another cluster wrote (a logical restore) carry positions
// this cluster has not reached: Open clears them, so that no transaction
// here takes one again and no stream sends them as new.
func TestOpenForgetsForeignPositions(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	s := open(t, dbURL, store.Config{})
	tn := s.Tenant("a")
	for _, key := range []string{"d1", "d2"} {
		if _, err := tn.SaveOccurrence(t.Context(), occurrence(key)); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	conn := connect(t, dbURL)
	// d2 as a restore from a cluster further on would have it.
	if _, err := conn.Exec(t.Context(), `UPDATE occurrences SET xid = (pg_snapshot_xmax(pg_current_snapshot())::text::bigint + 1000000)::text::xid8
		WHERE delivery_key = 'd2'`); err != nil {
		t.Fatal(err)
	}
	s = open(t, dbURL, store.Config{})
	defer s.Close()
	var local, foreign *string
	if err := conn.QueryRow(t.Context(), `SELECT
		(SELECT xid::text FROM occurrences WHERE delivery_key = 'd1'),
		(SELECT xid::text FROM occurrences WHERE delivery_key = 'd2')`).Scan(&local, &foreign); err != nil {
		t.Fatal(err)
	}
	if local == nil || foreign != nil {
		t.Errorf("after reopening: d1's position %v (want kept), d2's %v (want cleared)", local, foreign)
	}
}

// connect is a connection of the test's own to dbURL, closed when the test
// ends: for what the store does not do (hold a transaction open, plant a
// row).
func connect(t testing.TB, dbURL string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// occurrence is a saved delivery key of error "e-"+key.
func occurrence(key string) store.Occurrence {
	return store.Occurrence{DeliveryKey: key, ErrorID: "e-" + key, QueryID: "q", AgentID: "agent",
		ErrorType: "query_error", Severity: "low", NextAction: "resume", Attempt: 1, Feedback: []byte(`{"error_id":"e"}`)}
}

// freshStore is a store in a fresh schema (its URL), closed when the test
// ends.
func freshStore(t *testing.T) (string, *postgres.Store) {
	t.Helper()
	dbURL := pgtest.FreshSchema(t)
	s := open(t, dbURL, store.Config{})
	t.Cleanup(func() { s.Close() })
	return dbURL, s
}

// Two instances on one schema run each job once.
func TestWorkOnTwoInstances(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	storetest.WorkOnTwoInstances(t, func(t *testing.T) store.Store { return open(t, dbURL, store.Config{}) })
}

// TestRiverMigration opens a schema of the migrations before River (0001
// to 0009) whose jobs table holds a job due, one running and one that
// succeeded: the two still to run move to River's queue, with their
// Reports of one query and of one delivery at once, from two instances
// on one database: on PostgreSQL the second claim of a delivery waits for
// the first's commit, and the second count of an attempt for the first's.
func TestReportOnInstances(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	storetest.ReportOnInstances(t, func(t *testing.T) store.Store { return open(t, dbURL, store.Config{}) })
}

// attempts so far, and run; the finished one and the old tables go.
func TestRiverMigration(t *testing.T) {
	ctx := t.Context()
	dbURL := pgtest.FreshSchema(t)
	runAt := time.Date(2026, 1, 1, 12, 0, 0, 123456789, time.UTC)
	if err := postgres.OldSchema(ctx, dbURL, 9, func(exec storetest.Exec) error { return storetest.FillOldJobs(runAt, exec) }); err != nil {
		t.Fatal(err)
	}
	conn := connect(t, dbURL)

	s := open(t, dbURL, store.Config{})
	defer s.Close()
	var old int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()
		AND tablename IN ('jobs', 'job_attempts')`).Scan(&old); err != nil || old != 0 {
		t.Errorf("%d of the old tables left (%v)", old, err)
	}
	storetest.CheckMigratedJobs(t, s, runAt)
}

// A save whose transaction fails once River inserted its jobs (here a
// deferred trigger refuses the commit) leaves neither the occurrence nor
// the jobs: they commit together or not at all.
func TestSaveRolledBackEnqueuesNothing(t *testing.T) {
	dbURL, s := freshStore(t)
	ctx := t.Context()
	conn := connect(t, dbURL)
	if _, err := conn.Exec(ctx, `
		CREATE FUNCTION refuse_job() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN RAISE EXCEPTION 'refused at commit'; END $$;
		CREATE CONSTRAINT TRIGGER refuse_job AFTER INSERT ON river_job DEFERRABLE INITIALLY DEFERRED
			FOR EACH ROW WHEN (NEW.args->>'error_id' = 'refused') EXECUTE FUNCTION refuse_job()`); err != nil {
		t.Fatal(err)
	}
	tn := s.Tenant("a")
	for _, errorID := range []string{"refused", "e1"} {
		o := occurrence(errorID)
		o.ErrorID = errorID
		o.Jobs = []store.NewJob{{Kind: store.JobRetry, ErrorID: errorID}, {Kind: store.JobEscalation, ErrorID: errorID}}
		_, err := tn.SaveOccurrence(ctx, o)
		if refused := errorID == "refused"; refused != (err != nil) {
			t.Fatalf("SaveOccurrence(%s): %v", errorID, err)
		}
	}
	var jobs, occurrences int
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM river_job), (SELECT count(*) FROM occurrences)`).Scan(&jobs, &occurrences); err != nil {
		t.Fatal(err)
	}
	if jobs != 2 || occurrences != 1 {
		t.Errorf("%d jobs and %d occurrences; want those of the save that committed, 2 and 1", jobs, occurrences)
	}
	if _, ok, err := tn.ErrorRecord(ctx, "refused"); err != nil || ok {
		t.Errorf("the refused save's record: %v, %v; want none", ok, err)
	}
}

// Migration 0011 drops the foreign key from occurrences to records: the
// statement that saves an occurrence writes its record too, and the check
// at commit cost every save a lookup and a lock (see the migration).
func TestOccurrencesHaveNoForeignKey(t *testing.T) {
	dbURL, _ := freshStore(t)
	var n int
	if err := connect(t, dbURL).QueryRow(t.Context(), `SELECT count(*) FROM pg_constraint
		WHERE contype = 'f' AND conrelid = 'occurrences'::regclass`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("occurrences has %d foreign keys, want none", n)
	}
}

// BenchmarkBulkChange measures a bulk resolve of 10,000 records by filter
// (docs/service.md): run it once, with -bench BulkChange -benchtime 1x
// (each run fills a schema of its own, untimed by the benchmark: the
// figures are the ones it logs).
func BenchmarkBulkChange(b *testing.B) {
	for b.Loop() {
		s := open(b, pgtest.FreshSchema(b), store.Config{})
		storetest.MeasureBulkChange(b, s, 10_000)
		s.Close()
	}
}
