package sqlstore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// FireAlert records one firing of a rule for a subject, in one write:
// the throttle's row is made if it is new, read (locked until the write
// ends, on PostgreSQL; SQLite's writes are one at a time), moved by
// triage.Throttle.Fire and written back; the first firing held back
// enqueues the digest in the same write.
func (t *tenant) FireAlert(ctx context.Context, rule, subject string, every time.Duration, jobID int64, digest *store.NewJob) (store.Firing, error) {
	f, err := t.throttle(ctx, rule, subject, jobID, func(q Querier, th triage.Throttle, now time.Time) (triage.Throttle, store.Firing, error) {
		next, send, held, since := th.Fire(every, now)
		if !send && next.Held == 1 && digest != nil {
			d := *digest
			d.RunAt = next.Sent.Add(every)
			if err := t.enqueueAll(ctx, q, []store.NewJob{d}); err != nil {
				return next, store.Firing{}, err
			}
		}
		return next, store.Firing{Send: send, Held: held, HeldSince: since}, nil
	})
	if err != nil {
		return store.Firing{}, t.s.errorf("fire alert", err)
	}
	return f, nil
}

// DigestAlert sends what a throttle held back once its interval has
// passed, in one write as FireAlert.
func (t *tenant) DigestAlert(ctx context.Context, rule, subject string, every time.Duration, jobID int64) (store.Firing, error) {
	f, err := t.throttle(ctx, rule, subject, jobID, func(_ Querier, th triage.Throttle, now time.Time) (triage.Throttle, store.Firing, error) {
		switch {
		case th.DigestDue(every, now):
			return triage.Throttle{Sent: now}, store.Firing{Send: true, Held: th.Held, HeldSince: th.HeldSince}, nil
		case th.Held > 0:
			return th, store.Firing{DigestAt: th.Sent.Add(every)}, nil
		}
		return th, store.Firing{}, nil // a notification carried them
	})
	if err != nil {
		return store.Firing{}, t.s.errorf("digest alert", err)
	}
	return f, nil
}

// throttle moves the throttle of a rule and subject by move, in one
// write, for the job jobID: a job that won the throttle before (its post
// failed) wins it again with what it won then, and move is not called.
func (t *tenant) throttle(ctx context.Context, rule, subject string, jobID int64,
	move func(q Querier, th triage.Throttle, now time.Time) (triage.Throttle, store.Firing, error)) (store.Firing, error) {
	var f store.Firing
	err := t.write(ctx, func(q Querier) error {
		if _, err := q.Exec(ctx, `INSERT INTO alert_throttles
			(tenant, rule, subject, sent_at, job_id, sent_held, sent_held_since, held, held_since)
			VALUES ($1, $2, $3, 0, 0, 0, 0, 0, 0) ON CONFLICT (tenant, rule, subject) DO NOTHING`,
			t.id, rule, subject); err != nil {
			return err
		}
		var (
			sent, heldSince, sentHeldSince int64
			winner                         int64
			th                             triage.Throttle
			sentHeld                       int
		)
		if err := q.QueryRow(ctx, `SELECT sent_at, job_id, sent_held, sent_held_since, held, held_since
			FROM alert_throttles WHERE tenant = $1 AND rule = $2 AND subject = $3`+t.s.d.ForUpdate,
			t.id, rule, subject).Scan(&sent, &winner, &sentHeld, &sentHeldSince, &th.Held, &heldSince); err != nil {
			return err
		}
		if sent != 0 && winner == jobID {
			// This job won its firing before: it notifies again, as then.
			f = store.Firing{Send: true, Held: sentHeld, HeldSince: fromNanos(sentHeldSince)}
			return nil
		}
		th.Sent, th.HeldSince = fromNanos(sent), fromNanos(heldSince)
		next, fired, err := move(q, th, t.s.now())
		if err != nil {
			return err
		}
		f = fired
		if f.Send {
			winner, sentHeld, sentHeldSince = jobID, f.Held, nanos(f.HeldSince)
		}
		_, err = q.Exec(ctx, `UPDATE alert_throttles SET sent_at = $4, job_id = $5, sent_held = $6, sent_held_since = $7,
			held = $8, held_since = $9 WHERE tenant = $1 AND rule = $2 AND subject = $3`,
			t.id, rule, subject, nanos(next.Sent), winner, sentHeld, sentHeldSince, next.Held, nanos(next.HeldSince))
		return err
	})
	return f, err
}

// AlertRules returns the tenant's alert rules and targets.
func (t *tenant) AlertRules(ctx context.Context) ([]triage.AlertRule, []triage.AlertTarget, error) {
	var rules, targets []byte
	rows, err := t.s.db.Reader().Query(ctx, `SELECT rules, targets FROM alert_rules WHERE tenant = $1`, t.id)
	err = scanAll(rows, err, func(row Row) error { return row.Scan(&rules, &targets) })
	if err != nil {
		return nil, nil, t.s.errorf("alert rules", err)
	}
	r, tg, err := decodeAlertRules(rules, targets)
	if err != nil {
		return nil, nil, t.s.errorf("alert rules", err)
	}
	return r, tg, nil
}

// ChangeAlertRules changes the tenant's alert rules and targets in one
// write, the row locked from its read (PostgreSQL; SQLite's writes are one
// at a time).
func (t *tenant) ChangeAlertRules(ctx context.Context, change func([]triage.AlertRule, []triage.AlertTarget) ([]triage.AlertRule, []triage.AlertTarget, error)) error {
	var refused error
	err := t.write(ctx, func(q Querier) error {
		refused = nil
		if _, err := q.Exec(ctx, `INSERT INTO alert_rules (tenant, rules, targets, updated_at) VALUES ($1, '[]', '[]', 0)
			ON CONFLICT (tenant) DO NOTHING`, t.id); err != nil {
			return err
		}
		var rules, targets []byte
		if err := q.QueryRow(ctx, `SELECT rules, targets FROM alert_rules WHERE tenant = $1`+t.s.d.ForUpdate,
			t.id).Scan(&rules, &targets); err != nil {
			return err
		}
		r, tg, err := decodeAlertRules(rules, targets)
		if err != nil {
			return err
		}
		if r, tg, err = change(r, tg); err != nil {
			refused = err
			return err
		}
		if r == nil {
			r = []triage.AlertRule{}
		}
		if tg == nil {
			tg = []triage.AlertTarget{}
		}
		if rules, err = json.Marshal(r); err != nil {
			return err
		}
		if targets, err = json.Marshal(tg); err != nil {
			return err
		}
		// updated_at is the rules' version (store.PeekedReads): greater
		// after every change, whatever the clocks of the instances do.
		_, err = q.Exec(ctx, `UPDATE alert_rules SET rules = $2, targets = $3, updated_at = `+t.s.d.Greatest+`($4, updated_at + 1) WHERE tenant = $1`,
			t.id, string(rules), string(targets), nanos(t.s.now()))
		return err
	})
	if refused != nil && err != nil {
		return refused
	}
	if err != nil {
		return t.s.errorf("change alert rules", err)
	}
	return nil
}

// decodeAlertRules reads the stored rules and targets (nil: none).
func decodeAlertRules(rules, targets []byte) ([]triage.AlertRule, []triage.AlertTarget, error) {
	var r []triage.AlertRule
	var tg []triage.AlertTarget
	if len(rules) > 0 {
		if err := json.Unmarshal(rules, &r); err != nil {
			return nil, nil, err
		}
	}
	if len(targets) > 0 {
		if err := json.Unmarshal(targets, &tg); err != nil {
			return nil, nil, err
		}
	}
	if len(r) == 0 {
		r = nil
	}
	if len(tg) == 0 {
		tg = nil
	}
	return r, tg, nil
}

// CountRuns counts an agent's ended runs in a window, and its failed
// ones, of the latest atMost.
func (t *tenant) CountRuns(ctx context.Context, agent string, since time.Time, atMost int) (failed, total int, err error) {
	if atMost <= 0 {
		return 0, 0, nil
	}
	var f *int64 // SUM of no rows is NULL
	err = t.s.db.Reader().QueryRow(ctx, CountRunsSQL, t.id, agent, nanos(since), atMost).Scan(&total, &f)
	if err != nil {
		return 0, 0, t.s.errorf("count runs", err)
	}
	if f != nil {
		failed = int(*f)
	}
	return failed, total, nil
}

// CountRunsSQL is CountRuns' query: $1 the tenant, $2 the agent, $3 since
// (nanoseconds), $4 atMost. Its plan tests check that it reads
// runs_by_agent_start's range only (and the rows it finds, for their
// outcome).
const CountRunsSQL = `SELECT count(*), SUM(CASE WHEN outcome = 'failed' THEN 1 ELSE 0 END) FROM (SELECT outcome FROM runs
	WHERE tenant = $1 AND agent_id = $2 AND started_at >= $3 AND outcome <> 'running'
	ORDER BY started_at DESC LIMIT $4) AS r`
