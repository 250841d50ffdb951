package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/triage-go/triage/store"
)

// LeaseExpired is the error of the attempt a Claim records for a job whose
// lease ran out before Complete or Fail: the worker is taken for lost.
const LeaseExpired = "lease expired"

// jobs is the job queue, shared by the tenants.
type jobs struct{ s *Store }

var _ store.Jobs = jobs{}

// Enqueue adds a durable job for the tenant. A zero RunAt is now.
func (t *tenant) Enqueue(ctx context.Context, j store.NewJob) (int64, error) {
	id, err := t.enqueue(ctx, t.s.db.Writer(), j)
	if err != nil {
		return 0, t.s.errorf("enqueue job", err)
	}
	return id, nil
}

// enqueue inserts a job through q.
func (t *tenant) enqueue(ctx context.Context, q Execer, j store.NewJob) (int64, error) {
	if j.Kind == "" {
		return 0, errors.New("job without kind")
	}
	now := t.s.now()
	if j.RunAt.IsZero() {
		j.RunAt = now
	}
	if j.MaxAttempts <= 0 {
		j.MaxAttempts = store.DefaultMaxAttempts
	}
	var id int64
	err := q.QueryRow(ctx, `
		INSERT INTO jobs (tenant, kind, error_id, payload, state, run_at, attempt, max_attempts, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, 0, $7, $8)
		RETURNING id`,
		t.id, j.Kind, j.ErrorID, text(j.Payload), store.JobAvailable, nanos(j.RunAt), j.MaxAttempts, nanos(now)).Scan(&id)
	return id, err
}

// jobColumns are the columns scanJob reads.
const jobColumns = `id, tenant, kind, error_id, payload, state, run_at, attempt, max_attempts`

func scanJob(row Row) (store.Job, error) {
	var (
		j       store.Job
		payload *string
		runAt   int64
	)
	err := row.Scan(&j.ID, &j.Tenant, &j.Kind, &j.ErrorID, &payload, &j.State, &runAt, &j.Attempt, &j.MaxAttempts)
	j.Payload, j.RunAt = raw(payload), fromNanos(runAt)
	return j, err
}

// jobAttempts reads the attempts of list, jobs of an error by ID, into
// them.
func (t *tenant) jobAttempts(ctx context.Context, q Querier, errorID string, list []store.Job) error {
	index := make(map[int64]int, len(list))
	for i, j := range list {
		index[j.ID] = i
	}
	rows, err := q.Query(ctx, `
		SELECT a.job_id, a.attempt, a.at, a.duration_ns, a.error
		FROM job_attempts a JOIN jobs j ON j.id = a.job_id
		WHERE j.tenant = $1 AND j.error_id = $2 AND a.tenant = $1 AND j.id >= $3
		ORDER BY a.job_id, a.id`,
		t.id, errorID, list[0].ID)
	return scanAll(rows, err, func(row Row) error {
		var (
			a     store.JobAttempt
			id    int64
			at    int64
			nanos int64
		)
		if err := row.Scan(&id, &a.Attempt, &at, &nanos, &a.Error); err != nil {
			return err
		}
		i, ok := index[id]
		if !ok {
			return nil // enqueued since the jobs were read
		}
		a.At, a.Duration = fromNanos(at), time.Duration(nanos)
		list[i].Attempts = append(list[i].Attempts, a)
		return nil
	})
}

// dueJobsSQL selects the jobs Claim may lease; the dialect's SkipLocked
// follows. The states are literals, for the partial indexes on them.
const dueJobsSQL = `
	SELECT id, tenant, state, attempt, max_attempts, COALESCE(claimed_at, 0), COALESCE(lease_until, 0) FROM jobs
	WHERE (state = 'available' AND run_at <= $1) OR (state = 'running' AND lease_until <= $1)
	ORDER BY run_at, id
	LIMIT $2`

// Claim leases up to n due jobs for lease. A running job whose lease ran
// out gets an attempt recorded (LeaseExpired) and is leased again, or,
// when that was its last attempt, is failed.
func (q jobs) Claim(ctx context.Context, n int, lease time.Duration) ([]store.Job, error) {
	if n <= 0 {
		return nil, nil
	}
	now := q.s.now()
	var claimed []store.Job
	err := q.s.db.Write(ctx, func(tx Querier) error {
		claimed = nil
		type due struct {
			id                  int64
			tenant, state       string
			attempt, maxAttempt int
			claimedAt, leaseTo  int64
		}
		var list []due
		rows, err := tx.Query(ctx, q.s.dueJobs, nanos(now), n)
		err = scanAll(rows, err, func(row Row) error {
			var d due
			err := row.Scan(&d.id, &d.tenant, &d.state, &d.attempt, &d.maxAttempt, &d.claimedAt, &d.leaseTo)
			list = append(list, d)
			return err
		})
		if err != nil {
			return err
		}
		for _, d := range list {
			if d.state == store.JobRunning {
				// The attempt that ran out, as long as its lease.
				if err := recordAttempt(ctx, tx, d.tenant, d.id, d.attempt, d.claimedAt, d.leaseTo-d.claimedAt, LeaseExpired); err != nil {
					return err
				}
				if d.attempt >= d.maxAttempt {
					if _, err := tx.Exec(ctx, `UPDATE jobs SET state = $2, lease_until = NULL WHERE id = $1`,
						d.id, store.JobFailed); err != nil {
						return err
					}
					continue
				}
			}
			j, err := scanJob(tx.QueryRow(ctx, `
				UPDATE jobs SET state = $2, attempt = attempt + 1, claimed_at = $3, lease_until = $4
				WHERE id = $1
				RETURNING `+jobColumns,
				d.id, store.JobRunning, nanos(now), nanos(now.Add(lease))))
			if err != nil {
				return err
			}
			claimed = append(claimed, j)
		}
		return nil
	})
	if err != nil {
		return nil, q.s.errorf("claim jobs", err)
	}
	return claimed, nil
}

// recordAttempt notes one attempt at a job.
func recordAttempt(ctx context.Context, q Querier, tenant string, id int64, attempt int, at, duration int64, msg string) error {
	_, err := q.Exec(ctx, `
		INSERT INTO job_attempts (tenant, job_id, attempt, at, duration_ns, error) VALUES ($1, $2, $3, $4, $5, $6)`,
		tenant, id, attempt, at, duration, msg)
	return err
}

// selectJobStateSQL reads what Complete and Fail need of a job; the
// dialect's ForUpdate follows.
const selectJobStateSQL = `SELECT tenant, state, attempt, max_attempts FROM jobs WHERE id = $1`

// finish records attempt a of job id and moves the job to the state next
// returns (with the time it runs again, if it does), given its state,
// whether a is its current attempt (not a late report of one whose lease
// ran out), and its attempts.
func (q jobs) finish(ctx context.Context, op string, id int64, a store.JobAttempt,
	next func(state string, current bool, attempt, maxAttempts int) (string, time.Time)) error {
	if a.At.IsZero() {
		a.At = q.s.now()
	}
	err := q.s.db.Write(ctx, func(tx Querier) error {
		var (
			tenant, state        string
			attempt, maxAttempts int
		)
		err := tx.QueryRow(ctx, q.s.lockJob, id).Scan(&tenant, &state, &attempt, &maxAttempts)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("no job %d", id)
		}
		if err != nil {
			return err
		}
		if a.Attempt == 0 {
			a.Attempt = attempt
		}
		if err := recordAttempt(ctx, tx, tenant, id, a.Attempt, nanos(a.At), int64(a.Duration), a.Error); err != nil {
			return err
		}
		to, runAt := next(state, a.Attempt == attempt, attempt, maxAttempts)
		switch {
		case !runAt.IsZero():
			_, err = tx.Exec(ctx, `UPDATE jobs SET state = $2, run_at = $3, lease_until = NULL WHERE id = $1`,
				id, to, nanos(runAt))
		case to != state:
			_, err = tx.Exec(ctx, `UPDATE jobs SET state = $2, lease_until = NULL WHERE id = $1`, id, to)
		}
		return err
	})
	if err != nil {
		return q.s.errorf(op, err)
	}
	return nil
}

// Complete records a successful attempt; the job is succeeded, even when
// the attempt is a late one (its work is done).
func (q jobs) Complete(ctx context.Context, id int64, a store.JobAttempt) error {
	return q.finish(ctx, "complete job", id, a, func(string, bool, int, int) (string, time.Time) {
		return store.JobSucceeded, time.Time{}
	})
}

// Fail records a failed attempt: the job runs again at retryAt, or is
// failed when retryAt is zero or its attempts are exhausted. The failure
// of a late attempt (another worker has the job now), or of a job that is
// succeeded or failed already, changes nothing but the attempts.
func (q jobs) Fail(ctx context.Context, id int64, a store.JobAttempt, retryAt time.Time) error {
	return q.finish(ctx, "fail job", id, a, func(state string, current bool, attempt, maxAttempts int) (string, time.Time) {
		switch {
		case !current || state == store.JobSucceeded || state == store.JobFailed:
			return state, time.Time{}
		case retryAt.IsZero() || attempt >= maxAttempts:
			return store.JobFailed, time.Time{}
		}
		return store.JobAvailable, retryAt
	})
}
