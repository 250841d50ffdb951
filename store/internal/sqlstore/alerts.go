package sqlstore

import (
	"context"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// FireAlert records one firing of a rule for a subject, in one write:
// the throttle's row is made if it is new, read (locked until the write
// ends, on PostgreSQL; SQLite's writes are one at a time), moved by
// triage.Throttle.Fire and written back.
func (t *tenant) FireAlert(ctx context.Context, rule, subject string, every time.Duration, jobID int64) (store.Firing, error) {
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
		next, send, held, since := th.Fire(every, t.s.now())
		f = store.Firing{Send: send, Held: held, HeldSince: since}
		if send {
			winner, sentHeld, sentHeldSince = jobID, held, nanos(since)
		}
		_, err := q.Exec(ctx, `UPDATE alert_throttles SET sent_at = $4, job_id = $5, sent_held = $6, sent_held_since = $7,
			held = $8, held_since = $9 WHERE tenant = $1 AND rule = $2 AND subject = $3`,
			t.id, rule, subject, nanos(next.Sent), winner, sentHeld, sentHeldSince, next.Held, nanos(next.HeldSince))
		return err
	})
	if err != nil {
		return store.Firing{}, t.s.errorf("fire alert", err)
	}
	return f, nil
}
