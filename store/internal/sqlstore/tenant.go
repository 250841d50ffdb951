package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"math"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// tenant is one tenant's view: every statement filters on its id.
type tenant struct {
	s  *Store
	id string
}

var _ store.Tenant = (*tenant)(nil)

// read runs fn in a read transaction, once the tenant has a slot of the
// store's gate.
func (t *tenant) read(ctx context.Context, fn func(Querier) error) error {
	leave, err := t.s.gate.enter(ctx, t.id)
	if err != nil {
		return err
	}
	defer leave()
	return t.s.db.Read(ctx, fn)
}

// write runs fn in a write transaction, once the tenant has a slot of the
// store's gate when writes hold a connection (Dialect.WritesHoldConns).
func (t *tenant) write(ctx context.Context, fn func(Querier) error) error {
	if t.s.d.WritesHoldConns {
		leave, err := t.s.gate.enter(ctx, t.id)
		if err != nil {
			return err
		}
		defer leave()
	}
	return t.s.db.Write(ctx, fn)
}

// Next records one more attempt under key.
func (t *tenant) Next(ctx context.Context, key string) (int, error) {
	n, err := t.next(ctx, t.s.db.Writer(), key)
	if err != nil {
		return 0, t.s.errorf("next attempt", err)
	}
	return n, nil
}

// next counts one more attempt under key in q.
func (t *tenant) next(ctx context.Context, q Execer, key string) (int, error) {
	var n int
	err := q.QueryRow(ctx, `
		INSERT INTO attempts (tenant, attempt_key, n, updated_at) VALUES ($1, $2, 1, $3)
		ON CONFLICT (tenant, attempt_key) DO UPDATE
			SET n = attempts.n + 1, updated_at = excluded.updated_at
		RETURNING n`,
		t.id, key, nanos(t.s.now())).Scan(&n)
	return n, err
}

// historyCap bounds the count History.Record returns where it scans (the
// persistent-failure rule needs 3).
const historyCap = triage.MaxKept

// recentCap is how many of the window's other failures a peek or Start
// of req counts where it scans (on PostgreSQL): historyCap-1, or none
// when the caller does not read the count (req.NoRecent), which spares
// a busy agent's peek a walk of historyCap-1 entries of history_by_key
// and their heap rows. Where history keeps the key's total
// (Dialect.HistoryTotals) the count is read all the same: two probes.
func recentCap(req triage.StartRequest) int64 {
	if req.NoRecent {
		return 0
	}
	return historyCap - 1
}

// Record notes a failure and counts those of the agent and code within
// [at-window, at] (on PostgreSQL at most historyCap). It forgets those
// older than at-window.
func (t *tenant) Record(ctx context.Context, agent, code string, at time.Time, window time.Duration) (int, error) {
	var n int
	err := t.write(ctx, func(q Querier) error {
		var err error
		n, err = t.record(ctx, q, agent, code, at, window)
		return err
	})
	if err != nil {
		return 0, t.s.errorf("record history", err)
	}
	return n, nil
}

// record notes a failure in q, as Record does.
func (t *tenant) record(ctx context.Context, q Querier, agent, code string, at time.Time, window time.Duration) (int, error) {
	to := failureAt(at)
	from := to - int64(max(window, 0))
	var n int
	if err := t.keepFailure(ctx, q, agent, code, to, from); err != nil {
		return 0, err
	}
	if t.s.d.HistoryTotals {
		// The key's failures are within [from, …) now: those of the
		// window are the total but for the later ones, which lie between
		// the window and the total (one range).
		err := q.QueryRow(ctx, `
			SELECT COALESCE(sum(CASE WHEN at = `+historyTotalAt+` THEN n ELSE -n END), 0) FROM history
			WHERE tenant = $1 AND agent = $2 AND code = $3 AND at > $4`,
			t.id, agent, code, to).Scan(&n)
		return n, err
	}
	// Counted up to historyCap, as memory.History keeps at most
	// that many: a storm of one failure costs a bounded scan.
	err := q.QueryRow(ctx, `
		SELECT count(*) FROM (SELECT 1 FROM history
		WHERE tenant = $1 AND agent = $2 AND code = $3 AND at >= $4 AND at <= $5 LIMIT $6) AS w`,
		t.id, agent, code, from, to, historyCap).Scan(&n)
	return n, err
}

// historyTotalAt is the time of the row that keeps a key's total of
// failures where the dialect keeps them (Dialect.HistoryTotals): the
// greatest, which failureAt gives no failure.
const historyTotalAt = "9223372036854775807"

// failureAt is a failure's time as history keeps it: at most one less
// than historyTotalAt (a failure in the year 2262 or after).
func failureAt(at time.Time) int64 {
	return min(nanos(at), math.MaxInt64-1)
}

// keepFailure records a failure of agent and code at to in q, and
// forgets the key's failures before from. Where the dialect keeps totals
// (Dialect.HistoryTotals) the failure's row of its time and the key's
// total are upserted by one statement, the total less the failures
// forgotten, which the next deletes: the failure lands beside its total,
// on one leaf as a rule, and the key's rows before from are a range at
// the start of the key's, empty as a rule.
func (t *tenant) keepFailure(ctx context.Context, q Execer, agent, code string, to, from int64) error {
	if t.s.d.HistoryTotals {
		if _, err := q.Exec(ctx, `INSERT INTO history (tenant, agent, code, at, n)
			VALUES ($1, $2, $3, $4, 1),
				($1, $2, $3, `+historyTotalAt+`, 1 - COALESCE((SELECT sum(n) FROM history
					WHERE tenant = $1 AND agent = $2 AND code = $3 AND at < $5), 0))
			ON CONFLICT (tenant, agent, code, at) DO UPDATE SET n = n + excluded.n`,
			t.id, agent, code, to, from); err != nil {
			return err
		}
	} else if _, err := q.Exec(ctx, `INSERT INTO history (tenant, agent, code, at) VALUES ($1, $2, $3, $4)`,
		t.id, agent, code, to); err != nil {
		return err
	}
	_, err := q.Exec(ctx, `DELETE FROM history WHERE tenant = $1 AND agent = $2 AND code = $3 AND at < $4`,
		t.id, agent, code, from)
	return err
}

// Claim records that key is being handled, taking over a claim without
// feedback older than store.ClaimLease.
func (t *tenant) Claim(ctx context.Context, key string) (*triage.Feedback, bool, error) {
	res, err := t.start(ctx, triage.StartRequest{Key: key}, false)
	if err != nil {
		return nil, false, t.s.errorf("claim delivery", err)
	}
	return res.Prior, res.First, nil
}

// Start claims the delivery and, when it is the first, counts its attempt
// and records its failure, in one transaction.
func (t *tenant) Start(ctx context.Context, req triage.StartRequest) (triage.StartResult, error) {
	res, err := t.start(ctx, req, true)
	if err != nil {
		return triage.StartResult{}, t.s.errorf("start delivery", err)
	}
	return res, nil
}

// inFlightClaim is the condition that a delivery's claim has no answer
// yet: no feedback of its own, and no occurrence it was saved as. (A claim
// pointing at an occurrence that is gone is released by priorFeedback's
// caller, see releaseVanished.)
const inFlightClaim = `deliveries.feedback IS NULL AND deliveries.occurrence_id IS NULL`

// ForgottenFailures is how the one-statement writes (reportCTE, startCTE)
// select a key's failures before the window, followed by the bound's
// parameter: a range of history_by_key, the lower bound the least
// bigint (every row's). PostgreSQL's generic plan of a prepared
// statement estimates "at < $n" at a third of the key's rows and read
// the whole of history for it (a seq scan of every tenant's failures of
// the last window, at each report); a range between two bounds it
// estimates at 0.5 %, and reads the index: the key's oldest entries,
// none as a rule.
const ForgottenFailures = `at >= -9223372036854775808 AND at < `

// startCTE is Start in one statement, where the dialect has writable
// CTEs: it claims the delivery, and when the claim is first (claimed has
// its row), counts the attempt, records the failure and forgets the
// agent's failures older than the window. The statement's snapshot does
// not see the failure it records: the window's count is the others', up
// to historyCap-1, plus this one.
const startCTE = `
WITH claimed AS (
	INSERT INTO deliveries (tenant, delivery_key, claimed_at) VALUES ($1, $2, $3)
	ON CONFLICT (tenant, delivery_key) DO UPDATE SET claimed_at = excluded.claimed_at
		WHERE ` + inFlightClaim + ` AND deliveries.claimed_at < $4
	RETURNING 1
), attempt AS (
	INSERT INTO attempts (tenant, attempt_key, n, updated_at)
	SELECT $1, $5, 1, $3 WHERE EXISTS (SELECT 1 FROM claimed)
	ON CONFLICT (tenant, attempt_key) DO UPDATE
		SET n = attempts.n + 1, updated_at = excluded.updated_at
	RETURNING n
), recorded AS (
	INSERT INTO history (tenant, agent, code, at)
	SELECT $1, $6, $7, $8 WHERE EXISTS (SELECT 1 FROM claimed)
	RETURNING 1
), forgotten AS (
	DELETE FROM history
	WHERE tenant = $1 AND agent = $6 AND code = $7 AND ` + ForgottenFailures + `$9 AND EXISTS (SELECT 1 FROM claimed)
	RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM claimed),
	COALESCE((SELECT n FROM attempt), 0),
	(SELECT count(*) FROM (SELECT 1 FROM history
		WHERE tenant = $1 AND agent = $6 AND code = $7 AND at >= $9 AND at <= $8 LIMIT $10) AS w) + 1`

// start claims req.Key and, when count is set and the claim is the first,
// counts and records req's attempt and failure, in one write.
//
// A claim of req.Key this store failed to release (see releases.go) is
// taken over, as one past its lease is: the retry of a report whose save
// failed is handled anew.
func (t *tenant) start(ctx context.Context, req triage.StartRequest, count bool) (res triage.StartResult, err error) {
	now := t.s.now()
	// Claims in flight taken before lapsed are taken over.
	lapsed := nanos(now.Add(-store.ClaimLease))
	c := claimRef{t.id, req.Key}
	failed, held, err := t.s.holdUnreleased(ctx, c)
	if err != nil {
		return res, err
	}
	if held {
		lapsed = max(lapsed, nanos(failed)+1)
		defer func() { t.s.endHold(c, failed, err == nil) }()
	}
	if count && t.s.d.WritableCTE && !t.s.d.HistoryTotals {
		return t.startOneStatement(ctx, req, now, lapsed)
	}
	err = retry(func() error {
		return t.write(ctx, func(q Querier) error {
			for released := false; ; released = true {
				res = triage.StartResult{}
				var claimed int64
				err := q.QueryRow(ctx, `
					INSERT INTO deliveries (tenant, delivery_key, claimed_at) VALUES ($1, $2, $3)
					ON CONFLICT (tenant, delivery_key) DO UPDATE SET claimed_at = excluded.claimed_at
						WHERE `+inFlightClaim+` AND deliveries.claimed_at < $4
					RETURNING claimed_at`,
					t.id, req.Key, nanos(now), lapsed).Scan(&claimed)
				if err == nil {
					res.First = true
					if !count {
						return nil
					}
					if res.Attempt, err = t.next(ctx, q, req.AttemptKey); err != nil {
						return err
					}
					res.Recent, err = t.record(ctx, q, req.Agent, req.Code, req.At, req.Window)
					return err
				}
				if !errors.Is(err, sql.ErrNoRows) {
					return err
				}
				var vanished int64
				if res.Prior, vanished, err = t.priorFeedback(ctx, q, req.Key); err != nil || vanished == 0 || released {
					return err
				}
				// Released in this transaction: claim it again.
				if err := t.releaseVanished(ctx, q, req.Key, vanished); err != nil {
					return err
				}
			}
		})
	})
	return res, err
}

// priorFeedback reads the feedback of a delivery claimed already (nil
// while it is in flight); errRetry when the claim is gone (released in
// between). A claim saved as an occurrence that is gone (deleted by hand,
// lost to a partial restore) has no answer: priorFeedback returns that
// occurrence's ID as vanished, for the caller to release the claim.
func (t *tenant) priorFeedback(ctx context.Context, q Execer, key string) (fb *triage.Feedback, vanished int64, err error) {
	var (
		doc         *string
		pointer, id *int64
	)
	// One statement, one snapshot: a pointer is committed with its
	// occurrence, so a pointer without one means the occurrence is gone.
	err = q.QueryRow(ctx, `SELECT COALESCE(d.feedback, o.feedback), CASE WHEN d.feedback IS NULL THEN d.occurrence_id END, o.id
		FROM deliveries AS d
		LEFT JOIN occurrences AS o ON o.id = d.occurrence_id AND o.tenant = d.tenant
		WHERE d.tenant = $1 AND d.delivery_key = $2`,
		t.id, key).Scan(&doc, &pointer, &id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, errRetry
	}
	if err != nil {
		return nil, 0, err
	}
	if pointer != nil && id == nil {
		return nil, *pointer, nil
	}
	if doc == nil {
		return nil, 0, nil
	}
	return fb, 0, json.Unmarshal([]byte(*doc), &fb)
}

// releaseVanished releases the claim of key, saved as occurrence
// vanished, which is gone: the claim is made as old as a lost one, so
// that the next claim takes it over. It changes nothing when the claim
// has changed since it was read.
func (t *tenant) releaseVanished(ctx context.Context, q Execer, key string, vanished int64) error {
	_, err := q.Exec(ctx, `UPDATE deliveries SET occurrence_id = NULL, claimed_at = 0
		WHERE tenant = $1 AND delivery_key = $2 AND occurrence_id = $3 AND feedback IS NULL`,
		t.id, key, vanished)
	return err
}

// startOneStatement is start with startCTE: one round trip for a first
// delivery, two for a duplicate (its feedback).
func (t *tenant) startOneStatement(ctx context.Context, req triage.StartRequest, now time.Time, lapsed int64) (triage.StartResult, error) {
	to := nanos(req.At)
	from := to - int64(max(req.Window, 0))
	var res triage.StartResult
	err := retry(func() error {
		res = triage.StartResult{}
		var first bool
		var recent int
		err := t.s.db.Writer().QueryRow(ctx, startCTE,
			t.id, req.Key, nanos(now), lapsed, req.AttemptKey,
			req.Agent, req.Code, to, from, recentCap(req)).Scan(&first, &res.Attempt, &recent)
		if err != nil {
			return err
		}
		if first {
			res.First, res.Recent = true, recent
			return nil
		}
		res.Attempt = 0
		var vanished int64
		if res.Prior, vanished, err = t.priorFeedback(ctx, t.s.db.Reader(), req.Key); err != nil || vanished == 0 {
			return err
		}
		if err := t.releaseVanished(ctx, t.s.db.Writer(), req.Key, vanished); err != nil {
			return err
		}
		return errRetry // the next try takes the claim over
	})
	return res, err
}

// Complete stores the feedback for key.
func (t *tenant) Complete(ctx context.Context, key string, fb *triage.Feedback) error {
	doc, err := json.Marshal(fb)
	if err != nil {
		return t.s.errorf("complete delivery", err)
	}
	if err := t.completeDelivery(ctx, t.s.db.Writer(), key, string(doc)); err != nil {
		return t.s.errorf("complete delivery", err)
	}
	return nil
}

// completeDelivery stores a delivery's feedback document.
func (t *tenant) completeDelivery(ctx context.Context, q Execer, key, feedback string) error {
	_, err := q.Exec(ctx, `
		INSERT INTO deliveries (tenant, delivery_key, claimed_at, feedback) VALUES ($1, $2, $3, $4)
		ON CONFLICT (tenant, delivery_key) DO UPDATE SET feedback = excluded.feedback`,
		t.id, key, nanos(t.s.now()), feedback)
	return err
}

// saveDelivery completes a delivery saved as occurrence id: its feedback
// is the occurrence's, which priorFeedback reads.
func (t *tenant) saveDelivery(ctx context.Context, q Execer, key string, id int64) error {
	_, err := q.Exec(ctx, `
		INSERT INTO deliveries (tenant, delivery_key, claimed_at, occurrence_id) VALUES ($1, $2, $3, $4)
		ON CONFLICT (tenant, delivery_key) DO UPDATE SET occurrence_id = excluded.occurrence_id, feedback = NULL`,
		t.id, key, nanos(t.s.now()), id)
	return err
}

// Release forgets a claim. When it fails (the storage fails), the store
// releases the claim later, if it is still in flight: see releases.go.
func (t *tenant) Release(ctx context.Context, key string) error {
	c := claimRef{t.id, key}
	failed := t.s.now()
	_, err := t.s.db.Writer().Exec(ctx, `DELETE FROM deliveries WHERE tenant = $1 AND delivery_key = $2`, t.id, key)
	if err != nil {
		t.s.keepUnreleased(c, failed)
		return t.s.errorf("release delivery", err)
	}
	t.s.forgetUnreleased(c) // released: an earlier failure is moot
	return nil
}

// schema returns the inventory of source; the zero one when there is none.
func (t *tenant) schema(ctx context.Context, source string) (triage.SchemaInfo, error) {
	var (
		doc  string
		info triage.SchemaInfo
	)
	err := t.s.db.Reader().QueryRow(ctx, `SELECT info FROM schemas WHERE tenant = $1 AND source = $2`,
		t.id, source).Scan(&doc)
	if errors.Is(err, sql.ErrNoRows) {
		return info, nil
	}
	if err != nil {
		return info, err
	}
	return info, json.Unmarshal([]byte(doc), &info)
}

// Lookup returns the field field is a synonym of in source.
func (t *tenant) Lookup(ctx context.Context, source, field string) (string, bool, error) {
	info, err := t.schema(ctx, source)
	if err != nil {
		return "", false, t.s.errorf("lookup synonym", err)
	}
	to, ok := info.Synonyms[field]
	return to, ok, nil
}

// Fields lists the fields of source.
func (t *tenant) Fields(ctx context.Context, source string) ([]string, error) {
	info, err := t.schema(ctx, source)
	if err != nil {
		return nil, t.s.errorf("list fields", err)
	}
	return info.Fields, nil
}

// PutSchema replaces the inventory of source.
func (t *tenant) PutSchema(ctx context.Context, source string, info triage.SchemaInfo) error {
	doc, err := json.Marshal(info)
	if err != nil {
		return t.s.errorf("put schema", err)
	}
	_, err = t.s.db.Writer().Exec(ctx, `
		INSERT INTO schemas (tenant, source, info, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (tenant, source) DO UPDATE SET info = excluded.info, updated_at = excluded.updated_at`,
		t.id, source, string(doc), nanos(t.s.now()))
	if err != nil {
		return t.s.errorf("put schema", err)
	}
	return nil
}

// Get returns a query's cached result.
func (t *tenant) Get(ctx context.Context, queryID string) (triage.CachedResult, bool, error) {
	var (
		r        triage.CachedResult
		storedAt int64
		data     *string
	)
	err := t.s.db.Reader().QueryRow(ctx, `SELECT stored_at, summary, data FROM cache WHERE tenant = $1 AND query_id = $2`,
		t.id, queryID).Scan(&storedAt, &r.Summary, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	if err == nil && data != nil {
		err = json.Unmarshal([]byte(*data), &r.Data)
	}
	if err != nil {
		return triage.CachedResult{}, false, t.s.errorf("get cache", err)
	}
	r.StoredAt = fromNanos(storedAt)
	return r, true, nil
}

// PutCache stores a query's last good result.
func (t *tenant) PutCache(ctx context.Context, queryID string, r triage.CachedResult) error {
	var data []byte
	if r.Data != nil {
		var err error
		if data, err = json.Marshal(r.Data); err != nil {
			return t.s.errorf("put cache", err)
		}
	}
	_, err := t.s.db.Writer().Exec(ctx, `
		INSERT INTO cache (tenant, query_id, stored_at, summary, data) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (tenant, query_id) DO UPDATE
			SET stored_at = excluded.stored_at, summary = excluded.summary, data = excluded.data`,
		t.id, queryID, nanos(r.StoredAt), r.Summary, text(data))
	if err != nil {
		return t.s.errorf("put cache", err)
	}
	return nil
}

// PutAgent registers an agent; a zero UpdatedAt is now.
func (t *tenant) PutAgent(ctx context.Context, a store.Agent) error {
	if a.UpdatedAt.IsZero() {
		a.UpdatedAt = t.s.now()
	}
	_, err := t.s.db.Writer().Exec(ctx, `
		INSERT INTO agents (tenant, agent_id, callback_url, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (tenant, agent_id) DO UPDATE
			SET callback_url = excluded.callback_url, updated_at = excluded.updated_at`,
		t.id, a.ID, a.CallbackURL, nanos(a.UpdatedAt))
	if err != nil {
		return t.s.errorf("put agent", err)
	}
	return nil
}

// Agent returns a registered agent.
func (t *tenant) Agent(ctx context.Context, id string) (store.Agent, bool, error) {
	a := store.Agent{ID: id}
	var updated int64
	err := t.s.db.Reader().QueryRow(ctx, `SELECT callback_url, updated_at FROM agents WHERE tenant = $1 AND agent_id = $2`,
		t.id, id).Scan(&a.CallbackURL, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Agent{}, false, nil
	}
	if err != nil {
		return store.Agent{}, false, t.s.errorf("get agent", err)
	}
	a.UpdatedAt = fromNanos(updated)
	return a, true, nil
}
