package main

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// An ablation removes named parts of the store's schema from the scratch
// database after it is migrated and before the pre-fill and the loads,
// so that what each part costs a report is measured beside the same
// run's floors (issue 28: "where a target cannot be met without breaking
// a guarantee, say which guarantee and show the measured bound"). Each
// part removed breaks a feature, never a statement the write path runs:
// an index a write names (INDEXED BY) or takes a conflict on (ON
// CONFLICT) is never dropped, nor a table a write inserts into.
type part struct {
	name string
	// breaks is what no longer works once the part is gone.
	breaks string
	// sqlite and postgres are the statements that remove it.
	sqlite, postgres []string
	// notInAll keeps the part out of "all": the write path was measured
	// to need it.
	notInAll bool
}

// parts are the removable parts of the store, in the order they are
// listed. What remains when all are removed is what the write path's
// guarantees need: the record's table and its unique (tenant, error_id)
// (the dedup by error: duplicates answer one error_id), the
// occurrences' unique (tenant, delivery_key) and the deliveries' key (a
// delivery handled once, a 201 for a committed report), the attempts'
// key (attempts counted in order), the history (on SQLite one B-tree of
// failures and totals by key, on PostgreSQL the table and history_by_key:
// the handler's window of failures, which its decision reads), and the River tables a job would be enqueued into (a report
// enqueues none unless something can run it).
var parts = []part{
	{name: "listing", breaks: "the listing's filters and sorts by agent, status, last seen, count and first seen, and GET ?query_id (each becomes a scan of the tenant's records)",
		// SQLite's records_by_seq (tenant, seq) is unique: the key the
		// occurrences' foreign key to their record names, kept.
		sqlite:   dropIndexes("records_by_agent", "records_by_status", "records_by_last_seen", "records_by_count", "records_by_query"),
		postgres: dropIndexes("records_by_agent", "records_by_status", "records_by_last_seen", "records_by_count", "records_by_query", "records_by_seq")},
	// SQLite indexes records_fts behind the reports (migration 0027):
	// its mark moved past any seq, no record is ever behind it.
	{name: "search", breaks: "the listing's full-text search (SQLite: records are no longer indexed into records_fts; PostgreSQL: the search column and its GIN index are dropped, a search fails)",
		sqlite: append(dropTriggers("records_fts_update", "records_fts_delete"),
			`UPDATE records_fts_behind SET seq = 9223372036854775807`),
		postgres: []string{`DROP INDEX records_search`, `ALTER TABLE records DROP COLUMN search`}},
	// On PostgreSQL the hourly count is a step of the report's own
	// statement since migration 0028 (no trigger to drop): there, counts
	// removes the index on the hour only, and the rows are still written.
	{name: "counts", breaks: "the trends and counts per hour (SQLite: record_counts is no longer kept; PostgreSQL: its rows are still written by the report's statement, the index on their hour is dropped and the expiry of old counts scans them)",
		sqlite:   append(dropTriggers("record_counts_insert", "record_counts_update"), dropIndexes("record_counts_by_hour")...),
		postgres: dropIndexes("record_counts_by_hour")},
	{name: "streams", breaks: "the feedback stream of a tenant (FeedbackAfter: occurrences_by_tenant, and occurrences_by_xid on PostgreSQL) and an MCP session's records (occurrences_by_received): each becomes a scan",
		sqlite:   dropIndexes("occurrences_by_tenant", "occurrences_by_received"),
		postgres: dropIndexes("occurrences_by_tenant", "occurrences_by_received", "occurrences_by_xid")},
	// occurrences_by_record is the child key of the occurrences' foreign
	// key to their record: removed, the store alone took 6× the CPU per
	// report on SQLite (353 → 2,253 µs at 1k records), each report's
	// write scanning the occurrences. The write path needs it: it is not
	// in "all", and is offered to show so.
	{name: "detail", notInAll: true, breaks: "a record's occurrences (GET of one error record, the expiry's deletes by record) and, measured, the write path itself: each becomes a scan of the tenant's occurrences (not in all)",
		sqlite:   dropIndexes("occurrences_by_record"),
		postgres: dropIndexes("occurrences_by_record")},
	{name: "expiry", breaks: "the expiry of old claims and attempts by their time (deliveries_by_claim, attempts_by_update): each expiry scans the tables",
		sqlite:   dropIndexes("deliveries_by_claim", "attempts_by_update"),
		postgres: dropIndexes("deliveries_by_claim", "attempts_by_update")},
}

func dropIndexes(names ...string) []string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "DROP INDEX " + n
	}
	return q
}

func dropTriggers(names ...string) []string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "DROP TRIGGER " + n
	}
	return q
}

// ablation is one configuration of parts removed: none, some, or all.
type ablation []part

// parseAblations parses -ablate: configurations separated by "/", each a
// comma-separated list of part names, "none" or "all". "" is one
// configuration, none.
func parseAblations(s string) ([]ablation, error) {
	var out []ablation
	for conf := range strings.SplitSeq(s, "/") {
		var a ablation
		for name := range strings.SplitSeq(conf, ",") {
			switch name = strings.TrimSpace(name); name {
			case "", "none":
			case "all":
				for _, p := range parts {
					if !p.notInAll {
						a = append(a, p)
					}
				}
			default:
				i := slices.IndexFunc(parts, func(p part) bool { return p.name == name })
				if i < 0 {
					return nil, fmt.Errorf("-ablate: no part %q (the parts: %s, all, none)", name, partNames())
				}
				a = append(a, parts[i])
			}
		}
		slices.SortFunc(a, func(x, y part) int {
			return slices.IndexFunc(parts, func(p part) bool { return p.name == x.name }) - slices.IndexFunc(parts, func(p part) bool { return p.name == y.name })
		})
		out = append(out, slices.CompactFunc(a, func(x, y part) bool { return x.name == y.name }))
	}
	return out, nil
}

func partNames() string {
	var n []string
	for _, p := range parts {
		n = append(n, p.name)
	}
	return strings.Join(n, ", ")
}

func (a ablation) String() string {
	if len(a) == 0 {
		return "none"
	}
	if len(a) == len(parts)-1 && !a.has("detail") {
		return "all"
	}
	var n []string
	for _, p := range a {
		n = append(n, p.name)
	}
	return strings.Join(n, ",")
}

func (a ablation) has(name string) bool {
	return slices.ContainsFunc(a, func(p part) bool { return p.name == name })
}

// ablateSQLite removes a's parts from the SQLite database at path, which
// its store has open (the store's statements are prepared again on the
// changed schema).
func ablateSQLite(ctx context.Context, path string, a ablation) error {
	if len(a) == 0 {
		return nil
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	db, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		return err
	}
	defer db.Close()
	for _, p := range a {
		for _, s := range p.sqlite {
			if _, err := db.ExecContext(ctx, s); err != nil {
				return fmt.Errorf("ablating %s: %s: %w", p.name, s, err)
			}
		}
	}
	return nil
}

// ablatePostgres removes a's parts from the schema first in url's search
// path.
func ablatePostgres(ctx context.Context, url string, a ablation) error {
	if len(a) == 0 {
		return nil
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, p := range a {
		for _, s := range p.postgres {
			if _, err := conn.Exec(ctx, s); err != nil {
				return fmt.Errorf("ablating %s: %s: %w", p.name, s, err)
			}
		}
	}
	return nil
}

// walFrames runs fn and returns the frames (pages, leaf or interior) it
// added to the WAL of the SQLite database at path: every page a commit
// changes is one frame. A read transaction held open across fn (begun
// once the WAL holds frames not yet checkpointed, so that it reads from
// it) keeps the WAL from being restarted, so its frame count only grows;
// a checkpoint meanwhile copies frames into the database and leaves the
// count as it is. fn's commits, one report each from one client, are the
// reports' "batch 1".
func walFrames(ctx context.Context, path string, first, fn func() error) (int64, error) {
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(2)
	frames := func() (int64, error) {
		var busy, log, done int64
		err := db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &log, &done)
		return log, err
	}
	// The WAL emptied first (a checkpoint of it all, when no reader
	// holds it), so that first's frames are not all checkpointed by the
	// time the reader begins: a reader that finds every frame in the
	// database reads from it alone, and does not keep the WAL from
	// being restarted.
	if _, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return 0, err
	}
	if err := first(); err != nil {
		return 0, err
	}
	reader, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer reader.Close()
	if _, err := reader.ExecContext(ctx, `BEGIN`); err != nil {
		return 0, err
	}
	defer reader.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`) //nolint:errcheck
	var n int
	if err := reader.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&n); err != nil {
		return 0, err
	}
	before, err := frames()
	if err != nil {
		return 0, err
	}
	if err := fn(); err != nil {
		return 0, err
	}
	after, err := frames()
	if err != nil {
		return 0, err
	}
	if after < before {
		return 0, fmt.Errorf("the WAL was restarted during the count (%d frames, then %d)", before, after)
	}
	return after - before, nil
}

// abRow is one configuration's figures, for the table that puts the
// configurations side by side (NaN or -1: not measured).
type abRow struct {
	abl ablation
	// The shares of the floor: the services' and the stores' alone
	// (SQLite: of floor 2; PostgreSQL: of the PostgreSQL floor).
	sqlService, sqlStore, pgService, pgStore float64
	// The one-client p50 as a multiple of its floor's.
	sqlServiceOne, sqlStoreOne, pgServiceOne float64
	// Bytes written per report, the services'.
	sqlWritten, pgWritten int64
	// Pages (WAL frames) per report at batch 1, SQLite: the store
	// alone's and the service's, each from one client.
	storePages, servicePages float64
	// CPU per report over the loads from many clients: this process's
	// (client and in-process servers) for floor 2, the SQLite service
	// and its store alone; PostgreSQL's processes' for its service and
	// its store alone (0: not measured).
	floor2CPU, sqlServiceCPU, sqlStoreCPU time.Duration
	pgServiceCPU, pgStoreCPU              float64
	// failed is why the configuration's run stopped, nil if it did not
	// (the figures measured before are kept).
	failed error
}

func newABRow() abRow {
	n := math.NaN()
	return abRow{sqlService: n, sqlStore: n, pgService: n, pgStore: n, sqlServiceOne: n, sqlStoreOne: n, pgServiceOne: n,
		sqlWritten: -1, pgWritten: -1, storePages: n, servicePages: n}
}

// pagesPerReport is how many reports of one client at a time the WAL's
// frames are counted over.
const pagesPerReport = 200

// pages counts the WAL frames per report of the store alone and of the
// service, each from one client (see walFrames), on the SQLite store at
// path. A count that fails is said and left out.
func (row *abRow) pages(ctx context.Context, path string, s *sampling, base string, bound time.Duration) {
	prefix := fmt.Sprintf("pages_%d", run0)
	one := func(name string, r result) error {
		if r.failed > 0 || r.n == 0 {
			return fmt.Errorf("%s: %d of %d failed", name, r.failed, r.n+r.failed)
		}
		return nil
	}
	count := func(name string, load func(p string, n int) (result, error)) float64 {
		var i int
		frames, err := walFrames(ctx, path, func() error {
			i++
			r, err := load(fmt.Sprintf("%s_%s_first", prefix, name), 1)
			if err == nil {
				err = one(name, r)
			}
			return err
		}, func() error {
			r, err := load(fmt.Sprintf("%s_%s", prefix, name), pagesPerReport)
			if err == nil {
				err = one(name, r)
			}
			return err
		})
		if err != nil {
			fmt.Fprintf(os.Stderr, "  pages per report of %s not counted: %v\n", name, err)
			return math.NaN()
		}
		return float64(frames) / pagesPerReport
	}
	row.storePages = count("store", func(p string, n int) (result, error) { return storeFloor("pages", s, p, n, 1, bound) })
	row.servicePages = count("service", func(p string, n int) (result, error) {
		return load("pages", []string{base}, p, n, 1, bound, http.StatusCreated), nil
	})
}

// fill takes the row's figures from a run's results, by their targets'
// names.
func (row *abRow) fill(results []result) {
	for _, r := range results {
		if r.floor < 0 || r.n == 0 {
			continue
		}
		f := results[r.floor]
		share := r.rps() / f.rps()
		one := math.NaN()
		if r.one != nil && f.one != nil && f.one.p50 > 0 {
			one = float64(r.one.p50) / float64(f.one.p50)
		}
		var pgCPU float64
		if r.pg != nil {
			pgCPU = r.pg.cpuMS
		}
		switch r.name {
		case "triage serve, SQLite":
			row.sqlService, row.sqlServiceOne, row.sqlWritten = share, one, r.written
			row.sqlServiceCPU, row.floor2CPU = r.cpu, f.cpu
		case "store alone: the service's read and write of a report, SQLite":
			row.sqlStore, row.sqlStoreOne, row.sqlStoreCPU = share, one, r.cpu
		case "triage serve, PostgreSQL":
			row.pgService, row.pgServiceOne, row.pgWritten, row.pgServiceCPU = share, one, r.written, pgCPU
		case "store alone: the service's read and write of a report, PostgreSQL":
			row.pgStore, row.pgStoreCPU = share, pgCPU
		}
	}
}

// printAblations prints the configurations side by side.
func printAblations(rows []abRow, records int) {
	pct := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return fmt.Sprintf("%.0f %%", 100*v)
	}
	x := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return fmt.Sprintf("%.2f×", v)
	}
	kb := func(v int64) string {
		if v < 0 {
			return ""
		}
		return fmt.Sprintf("%.1f KB", float64(v)/1000)
	}
	pg := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return fmt.Sprintf("%.1f", v)
	}
	fmt.Printf("\nparts of the store removed, side by side (%d records before each load; shares of the same run's floors):\n\n", records)
	fmt.Printf("| removed | SQLite service / floor 2 | SQLite store alone / floor 2 | PostgreSQL service / its floor | PostgreSQL store alone / its floor | one client p50: SQLite service / floor 2 | store alone / floor 2 | PostgreSQL service / its floor | written per report: SQLite / PostgreSQL | pages per report at batch 1: store alone / service (SQLite) |\n")
	fmt.Printf("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		name := r.abl.String()
		if r.failed != nil {
			name += " (its run failed: " + r.failed.Error() + ")"
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s / %s |\n", name, pct(r.sqlService), pct(r.sqlStore),
			pct(r.pgService), pct(r.pgStore), x(r.sqlServiceOne), x(r.sqlStoreOne), x(r.pgServiceOne),
			kb(r.sqlWritten), kb(r.pgWritten), pg(r.storePages), pg(r.servicePages))
	}
	fmt.Printf("\nCPU per report over the loads from many clients (this process's: client and in-process servers; PostgreSQL's processes'), a figure a loaded machine moves less than a rate:\n\n")
	fmt.Printf("| removed | floor 2 | SQLite service | SQLite store alone | PostgreSQL's, service / store alone |\n|---|---|---|---|---|\n")
	us := func(d time.Duration) string {
		if d <= 0 {
			return ""
		}
		return fmt.Sprintf("%d µs", d.Microseconds())
	}
	ms := func(v float64) string {
		if v <= 0 {
			return ""
		}
		return fmt.Sprintf("%.2f ms", v)
	}
	for _, r := range rows {
		fmt.Printf("| %s | %s | %s | %s | %s / %s |\n", r.abl, us(r.floor2CPU), us(r.sqlServiceCPU), us(r.sqlStoreCPU), ms(r.pgServiceCPU), ms(r.pgStoreCPU))
	}
	fmt.Println()
	for _, p := range parts {
		fmt.Printf("- %s: %s\n", p.name, p.breaks)
	}
}
