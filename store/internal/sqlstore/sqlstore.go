package sqlstore

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// Row is one row of a result, as database/sql's and pgx's rows are.
type Row interface {
	Scan(dest ...any) error
}

// Rows is a result set. Close must be called once the rows are read; it
// returns the error that ended the iteration, if any.
type Rows interface {
	Row
	Next() bool
	Err() error
	Close() error
}

// Querier runs statements, with $1, $2, … parameters. QueryRow's Scan
// returns an error that errors.Is sql.ErrNoRows when there is no row.
type Querier interface {
	Exec(ctx context.Context, query string, args ...any) (rowsAffected int64, err error)
	Query(ctx context.Context, query string, args ...any) (Rows, error)
	QueryRow(ctx context.Context, query string, args ...any) Row
}

// IDQuerier is a Querier that also runs an INSERT for the rowid it took
// (SQLite's): RETURNING would cost the statement a journal of its own and
// a temporary table for its row, which a statement with no trigger and no
// RETURNING goes without. id is the rowid of the row inserted last on the
// connection, and means nothing when rowsAffected is 0.
type IDQuerier interface {
	ExecID(ctx context.Context, query string, args ...any) (id, rowsAffected int64, err error)
}

// Execer runs single statements that write, each atomic on its own (and
// committed, durably, once it returns). A QueryRow's statement may run only
// when its Row is scanned: scan it at once.
type Execer interface {
	Exec(ctx context.Context, query string, args ...any) (rowsAffected int64, err error)
	QueryRow(ctx context.Context, query string, args ...any) Row
}

// EarlyExecer is an Execer that can answer a statement before its commit
// is durable: ExecEarly returns once the statement ran and its
// transaction is about to commit, with commit, which waits for that
// commit and returns its error (nil: durable). Until then no other write
// can see the statement's effects (a later write of the database runs
// after the commit, or waits for it), and they are lost if the commit
// fails. When the statement fails, ExecEarly returns its error and a nil
// commit. SQLite's writer, whose commit is an fsync, is one; a DB whose
// Writer is not runs the statement with Exec.
type EarlyExecer interface {
	ExecEarly(ctx context.Context, query string, args ...any) (rowsAffected int64, commit func() error, err error)
}

// DB is a database as the store uses it.
type DB interface {
	// Writer runs single statements that write, each atomic on its own.
	Writer() Execer
	// Reader runs single statements that only read.
	Reader() Querier
	// Write runs fn in a read-write transaction, committed when fn
	// returns nil and rolled back otherwise. It returns once the commit
	// is durable (a database may share one commit among several writes,
	// each rolled back on its own).
	Write(ctx context.Context, fn func(Querier) error) error
	// Read runs fn in a read-only transaction that sees one snapshot.
	Read(ctx context.Context, fn func(Querier) error) error
	// Conns is how many connections the transactions share: Read's (and
	// Write's, with Dialect.WritesHoldConns).
	Conns() int
}

// Behind is a DB that writes part of its indexes behind its writes (SQLite's
// full-text index, store/sqlite's migration 0027): a read that needs them
// calls CatchUp first, which returns once every write committed before it
// was called is indexed.
type Behind interface {
	CatchUp(ctx context.Context) error
}

// IdleReader is a DB whose writer's connection can answer a short read
// while no write uses it (store/sqlite): in WAL mode a commit drops every
// page another connection had cached, so that a reader's first read after
// one reads each page it needs again from the operating system, while the
// writer's connection, whose own commits they are, keeps them. ReadIdle
// runs fn on the writer's connection and tells true when the writer was
// idle; when it was not, fn does not run (ran false): the caller reads
// from Reader. fn must be one bounded read (a lookup by key): writes wait
// for it.
type IdleReader interface {
	ReadIdle(ctx context.Context, fn func(Querier) error) (ran bool, err error)
}

// Queue is the durable job queue a Store enqueues to and reads jobs from
// (store/internal/riverjobs, on River), in the transactions of its DB: the
// Querier a Queue method is given is one of DB.Write's or DB.Read's.
type Queue interface {
	store.Jobs
	// Rows returns the river_job rows of jobs for tenant, which the
	// store inserts in its own transaction (Dialect.InsertJob).
	Rows(tenant string, jobs []store.NewJob) ([]JobRow, error)
	// Insert enqueues one job for tenant on its own.
	Insert(ctx context.Context, tenant string, j store.NewJob) (int64, error)
	// ListTx returns the latest n jobs of tenant's error errorID whose ID
	// is below before (all of them when before is 0), the latest first,
	// and whether there are older ones.
	ListTx(ctx context.Context, q Querier, tenant, errorID string, before int64, n int) ([]store.Job, bool, error)
}

// JobRow is a job as the store inserts it into River's river_job: its
// arguments (JSON), kind, attempts, state ("available" or "scheduled")
// and when it is due, and its metadata (JSON: the trace context it
// carries); the other columns take River's defaults (queue "default",
// priority 1, no tags or unique key).
type JobRow struct {
	Args        []byte
	Kind        string
	MaxAttempts int
	State       string
	ScheduledAt time.Time
	Metadata    []byte
	CreatedAt   time.Time
}

// Dialect is what differs between the SQL databases.
type Dialect struct {
	// Name prefixes the errors: "sqlite", "postgres".
	Name string
	// Least and Greatest are the functions returning the least and the
	// greatest of two values: min and max on SQLite, LEAST and GREATEST
	// on PostgreSQL.
	Least, Greatest string
	// ForUpdate locks the rows a SELECT reads, until the transaction
	// ends: " FOR UPDATE" on PostgreSQL, "" on SQLite, whose write
	// transactions are serialised anyway.
	ForUpdate string
	// MigrationLock, when not empty, is a statement run first in the
	// migrations' transaction, that holds until it ends and serialises
	// the instances migrating one database at once.
	MigrationLock string
	// HistoryTotals tells that history is keyed by tenant, agent, code
	// and time, a row per time counting its failures (n), and that each
	// key's total is kept in its row at the greatest time, historyTotalAt
	// (SQLite's migration 0029): a window's count is the total less the
	// failures after the window and before it, ranges of the one B-tree
	// beside the total, rather than a count of the window's rows. Where
	// writes are serialised anyway (SQLite) that turns a scan of every
	// failure in the window into two probes; where they are not
	// (PostgreSQL), the totals' rows would serialise the Records of one
	// agent and code.
	HistoryTotals bool
	// InsertJob inserts a JobRow into river_job: $1 its Args (JSON
	// text), $2 Kind, $3 MaxAttempts, $4 State, $5 ScheduledAt as
	// RiverTime gives it, $6 Metadata (JSON text), $7 CreatedAt as
	// RiverTime gives it.
	InsertJob string
	// RiverTime is a time as River's tables keep it (SQLite: text in
	// UTC to the millisecond).
	RiverTime func(time.Time) any
	// WritableCTE tells that a statement's WITH clause may hold INSERTs,
	// UPDATEs and DELETEs (PostgreSQL): Start then claims, counts and
	// records in one statement, one round trip instead of seven.
	WritableCTE bool
	// XidPositions tells that an occurrence's position in the event
	// streams is the ID of the transaction that saved it (its xid column,
	// PostgreSQL), and that the streams read only the occurrences of
	// transactions older than any still running. Without it (SQLite,
	// whose writes are serialised, so IDs are taken in commit order) the
	// position is the occurrence's ID.
	XidPositions bool
	// WritesHoldConns tells that a write transaction holds a connection
	// of the pool that reads take too (PostgreSQL), so that a tenant's
	// writes count against its share of them; without it (SQLite) writes
	// queue for one writer, which batches them, and only reads count.
	WritesHoldConns bool
	// FullText is how the records are searched: FTS5 or TSVector.
	FullText FullText
	// ByQuery, when set, is the records r of a listing by a query ID
	// (store.Filter.QueryID) that the planner must read through that
	// query's range of records_by_query (SQLite: records r INDEXED BY
	// records_by_query), then sort. Without statistics SQLite walks the
	// sort's index instead (records_by_last_seen, records_by_count),
	// through every record of the tenant, to find the one or few of a
	// query; PostgreSQL's statistics tell it a query ID is rare.
	ByQuery string
	// Listed, when set, is the condition on records r that the listing's
	// indexes (records_by_agent, _status, _last_seen, _count, _query)
	// hold r, and Unlisted that they do not yet: SQLite writes them
	// behind the reports (partial indexes, migration 0028), and its
	// unlisted records are a range of seq, at most a catch-up's worth. A
	// listing then reads the listed records through the indexes and the
	// unlisted through the table, and merges them: every record is
	// exactly one of the two.
	Listed, Unlisted string
	// AnyUnlisted, with Listed, is a statement returning whether any
	// record is unlisted: a listing that finds none reads the listed
	// records alone (the statement before the indexes were behind, with
	// Listed), without the merge's two sorts.
	AnyUnlisted string
}

// Store implements store.Store but for Ping, Ready and Close, which the
// packages built on it implement (with Health, Heartbeat and Close).
type Store struct {
	db  DB
	d   Dialect
	now func() time.Time

	upsertRecord, saveOccurrence, report, peek, lockIdem string

	// queue is the job queue.
	queue Queue

	// unreleased are the delivery claims it failed to release (see
	// releases.go).
	unreleased unreleased

	// gate bounds each tenant's open transactions
	// (store.Config.TenantConns).
	gate *gate
}

// New returns a store on db, whose schema is up to date (see Migrate).
func New(db DB, d Dialect, opts store.Config, queue Queue) *Store {
	return &Store{
		db:             db,
		d:              d,
		now:            opts.Clock(),
		upsertRecord:   fmt.Sprintf(upsertRecordSQL, d.Least, d.Greatest),
		saveOccurrence: fmt.Sprintf(saveCTE, d.Least, d.Greatest),
		report:         fmt.Sprintf(reportCTE, d.Least, d.Greatest),
		peek:           PeekSQL(d),
		lockIdem:       selectIdemSQL + d.ForUpdate,
		queue:          queue,
		gate:           newGate(tenantConns(opts.TenantConns, db.Conns())),
	}
}

// tenantConns is the bound of a tenant's open transactions: n, at most
// conns; by default (0) tenantShare's; none when n is negative.
func tenantConns(n, conns int) int {
	switch {
	case n < 0:
		return 0
	case n == 0:
		return tenantShare(conns)
	}
	return min(n, max(conns, 1))
}

// Tenant returns the view of one tenant's data.
func (s *Store) Tenant(id string) store.Tenant { return &tenant{s: s, id: id} }

// Jobs returns the job queue.
func (s *Store) Jobs() store.Jobs { return s.queue }

// errorf wraps err with the dialect's name and the operation.
func (s *Store) errorf(op string, err error) error {
	return fmt.Errorf("%s: %s: %w", s.d.Name, op, err)
}

// The times nanos can tell apart: from 1677-09-21 to 2262-04-11.
var (
	minTime = time.Unix(0, math.MinInt64)
	maxTime = time.Unix(0, math.MaxInt64)
)

// nanos is how a time is stored: integer nanoseconds since the Unix epoch
// (UTC), and 0 for the zero time. A time beyond the int64 range (a
// report's timestamp may be anything) is clamped to it.
func nanos(t time.Time) int64 {
	switch {
	case t.IsZero():
		return 0
	case t.Before(minTime):
		return math.MinInt64
	case t.After(maxTime):
		return math.MaxInt64
	}
	return t.UnixNano()
}

// fromNanos is the time nanos stored, in UTC.
func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// text is a JSON document as a parameter: NULL when empty.
func text(doc []byte) any {
	if len(doc) == 0 {
		return nil
	}
	return string(doc)
}

// docDest is where a document column is scanned to: into its bytes at
// once, one copy fewer than through a string (on PostgreSQL; SQLite's
// driver makes a string first anyway). NULL leaves it nil, and
// nilIfEmpty makes an empty one (never stored: text stores it as NULL)
// nil too.
func docDest(doc *json.RawMessage) *[]byte { return (*[]byte)(doc) }

// nilIfEmpty is doc, or nil when it is empty.
func nilIfEmpty(doc json.RawMessage) json.RawMessage {
	if len(doc) == 0 {
		return nil
	}
	return doc
}

// raw is a stored JSON document: nil for NULL.
func raw(s *string) json.RawMessage {
	if s == nil {
		return nil
	}
	return json.RawMessage(*s)
}

// cursorPrefix makes a cursor recognisable, so that a guessed one is
// refused rather than read as some position.
const cursorPrefix = "rec:"

// encodeCursor is the cursor continuing a listing after the record with
// sequence number seq.
func encodeCursor(seq int64) string { return encodeIDCursor(cursorPrefix, seq) }

// decodeCursor reads a cursor encodeCursor made; any other string is
// store.ErrBadCursor.
func decodeCursor(c string) (int64, error) { return decodeIDCursor(cursorPrefix, c) }

// encodeIDCursor is a cursor continuing after the row id: prefix and id,
// base64url.
func encodeIDCursor(prefix string, id int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(prefix + strconv.FormatInt(id, 10)))
}

// decodeIDCursor reads a cursor encodeIDCursor made with prefix; any
// other string (another prefix's too) is store.ErrBadCursor.
func decodeIDCursor(prefix, c string) (int64, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, store.ErrBadCursor
	}
	digits, ok := strings.CutPrefix(string(b), prefix)
	if !ok {
		return 0, store.ErrBadCursor
	}
	id, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || id <= 0 {
		return 0, store.ErrBadCursor
	}
	return id, nil
}

// pageSize is the page size a filter asks for, within 1 and store.MaxLimit:
// store.DefaultLimit when it asks for none (0 or less).
func pageSize(n int) int {
	switch {
	case n <= 0:
		return store.DefaultLimit
	case n > store.MaxLimit:
		return store.MaxLimit
	}
	return n
}

// errRetry asks a loop to run its transaction again: a row it conflicted
// with was gone when it looked (deleted in between).
var errRetry = errors.New("row changed concurrently; retry")

// retries bounds the loops on errRetry.
const retries = 5

// retry runs fn until it returns anything but errRetry, at most retries
// times.
func retry(fn func() error) error {
	var err error
	for range retries {
		if err = fn(); !errors.Is(err, errRetry) {
			return err
		}
	}
	return err
}

// scanAll calls scan for each row of rows, and closes them. err is the
// error of the query that returned rows.
func scanAll(rows Rows, err error, scan func(Row) error) error {
	if err != nil {
		return err
	}
	for rows.Next() {
		if err := scan(rows); err != nil {
			return errors.Join(err, rows.Close())
		}
	}
	return errors.Join(rows.Err(), rows.Close())
}

// Expire deletes the bookkeeping, the checkpoints and the run records
// older than r keeps.
func (s *Store) Expire(ctx context.Context, r store.Retention) (int64, error) {
	r = r.WithDefaults()
	now := s.now()
	var total int64
	for _, d := range []struct {
		query string
		keep  time.Duration
	}{
		{`DELETE FROM deliveries WHERE claimed_at < $1`, r.Deliveries},
		{`DELETE FROM idempotency WHERE started_at < $1`, r.Idempotency},
		{`DELETE FROM attempts WHERE updated_at < $1`, r.Attempts},
		{`DELETE FROM runs WHERE started_at < $1`, r.Runs},
		{`DELETE FROM mcp_sessions WHERE opened_at < $1`, r.Sessions},
		{expireCounts(s.d), r.Counts},
		// A throttle holding nothing back, idle for longer than the
		// longest throttle, would let the next firing notify anyway.
		{`DELETE FROM alert_throttles WHERE held = 0 AND sent_at < $1`, triage.MaxThrottle},
	} {
		n, err := s.db.Writer().Exec(ctx, d.query, nanos(now.Add(-d.keep)))
		if err != nil {
			return total, s.errorf("expire", err)
		}
		total += n
	}
	for _, c := range []struct {
		done bool
		keep time.Duration
	}{{false, r.Checkpoints}, {true, r.FinishedCheckpoints}} {
		n, err := s.expireCheckpoints(ctx, c.done, nanos(now.Add(-c.keep)))
		total += n
		if err != nil {
			return total, s.errorf("expire checkpoints", err)
		}
	}
	if r.Records > 0 {
		n, err := s.expireRecords(ctx, nanos(now.Add(-r.Records)))
		total += n
		if err != nil {
			return total, s.errorf("expire records", err)
		}
	}
	return total, nil
}

// ExpireCountsSQL deletes the hourly counts before the hour of $1 (in
// nanoseconds): each tenant's range of record_counts_by_hour, the tenants
// found one index look-up each (a walk from one to the next). An index on
// the hour alone served it before (migrations 0019 on SQLite, 0020 on
// PostgreSQL dropped it): every new record wrote an entry there, on
// SQLite a random leaf (the entry ends with the error ID).
const ExpireCountsSQL = `WITH RECURSIVE t (tenant) AS (` + countTenants + `)
	DELETE FROM record_counts WHERE tenant IN (SELECT tenant FROM t WHERE tenant IS NOT NULL)
		AND hour < $1 / 3600000000000`

// ExpireCountsAnySQL is ExpireCountsSQL on PostgreSQL: the tenants as an
// array, so that the index's range is (tenant = ANY, hour <). With
// record_counts keyed by (tenant, seq, hour) (migration 0023) the planner
// joined the tenants by hash instead and read the whole primary key, the
// smaller index, for the hours (its second column but one).
const ExpireCountsAnySQL = `WITH RECURSIVE t (tenant) AS (` + countTenants + `)
	DELETE FROM record_counts WHERE tenant = ANY (ARRAY(SELECT tenant FROM t WHERE tenant IS NOT NULL))
		AND hour < $1 / 3600000000000`

// countTenants walks record_counts' tenants, one index look-up each.
const countTenants = `
		SELECT min(tenant) FROM record_counts
		UNION ALL
		SELECT (SELECT min(c.tenant) FROM record_counts AS c WHERE c.tenant > t.tenant) FROM t WHERE t.tenant IS NOT NULL
	`

// expireCounts is d's ExpireCountsSQL.
func expireCounts(d Dialect) string {
	if d.Name == "postgres" {
		return ExpireCountsAnySQL
	}
	return ExpireCountsSQL
}

// expireChunk is how many records one write of expireRecords deletes: a
// write holds SQLite's writer, so a large expiry goes in short writes.
const expireChunk = 200

// noPendingJob is the condition, on records r, that no job of the record
// is still to run.
const noPendingJob = `NOT EXISTS (SELECT 1 FROM river_job j
	WHERE j.args->>'tenant' = r.tenant AND j.args->>'error_id' = r.error_id
	AND j.state IN ('available', 'pending', 'retryable', 'running', 'scheduled'))`

// ExpireRecordSQL are the deletes of what an expired record leaves, $1 its
// tenant and $2 its seq (BySeq) or its error ID: the occurrences' delivery
// claims, the occurrences (by the record's seq: occurrences_by_record),
// its workflow's transitions, its finished jobs (see noPendingJob) and its
// hourly counts (by its seq, their key). Each reads its own index's range
// (the plan tests check it).
var ExpireRecordSQL = []struct {
	Query string
	BySeq bool
}{
	{`DELETE FROM deliveries WHERE tenant = $1 AND delivery_key IN
		(SELECT delivery_key FROM occurrences WHERE tenant = $1 AND record_seq = $2 AND delivery_key IS NOT NULL)`, true},
	{`DELETE FROM occurrences WHERE tenant = $1 AND record_seq = $2`, true},
	{`DELETE FROM record_transitions WHERE tenant = $1 AND error_id = $2`, false},
	{`DELETE FROM river_job WHERE args->>'tenant' = $1 AND args->>'error_id' = $2`, false},
	{`DELETE FROM record_counts WHERE tenant = $1 AND seq = $2`, true},
}

// expireRecords deletes the records last seen before cutoff, without a
// job still to run, with their occurrences, the occurrences' delivery
// claims (else a repeat of a delivery would replay the feedback of an
// error that is gone, and bring back its record) and the jobs: it finds
// them with reads that walk the records once, by seq, then deletes each
// in a write that checks the conditions again (a new occurrence may have
// come meanwhile).
func (s *Store) expireRecords(ctx context.Context, cutoff int64) (int64, error) {
	type key struct {
		seq             int64
		tenant, errorID string
	}
	var total, after int64
	for {
		keys := make([]key, 0, expireChunk)
		err := s.db.Read(ctx, func(q Querier) error {
			rows, err := q.Query(ctx, `SELECT r.seq, r.tenant, r.error_id FROM records r
				WHERE r.seq > $1 AND r.last_seen < $2 AND `+noPendingJob+` ORDER BY r.seq LIMIT $3`, after, cutoff, expireChunk)
			return scanAll(rows, err, func(row Row) error {
				var k key
				if err := row.Scan(&k.seq, &k.tenant, &k.errorID); err != nil {
					return err
				}
				keys = append(keys, k)
				return nil
			})
		})
		if err != nil || len(keys) == 0 {
			return total, err
		}
		after = keys[len(keys)-1].seq
		var deleted int64
		err = s.db.Write(ctx, func(q Querier) error {
			deleted = 0
			for _, k := range keys {
				n, err := q.Exec(ctx, `DELETE FROM records AS r WHERE r.tenant = $1 AND r.error_id = $2 AND r.last_seen < $3 AND `+noPendingJob,
					k.tenant, k.errorID, cutoff)
				if err != nil {
					return err
				}
				if n == 0 {
					continue // seen again, or a job to run, since the read
				}
				deleted += n
				for _, del := range ExpireRecordSQL {
					var key any = k.errorID
					if del.BySeq {
						key = k.seq
					}
					n, err := q.Exec(ctx, del.Query, k.tenant, key)
					if err != nil {
						return err
					}
					deleted += n
				}
			}
			return nil
		})
		total += deleted
		if err != nil || len(keys) < expireChunk {
			return total, err
		}
	}
}
