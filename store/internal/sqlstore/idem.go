package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/triage-go/triage/store"
)

// The states of an Idempotency-Key's row.
const (
	idemInFlight = "in_flight"
	idemDone     = "done"
)

// selectIdemSQL reads a key's row; the dialect's ForUpdate follows.
const selectIdemSQL = `
	SELECT payload_hash, state, started_at, status, content_type, body
	FROM idempotency WHERE tenant = $1 AND idem_key = $2`

// BeginRequest starts the request of an Idempotency-Key.
func (t *tenant) BeginRequest(ctx context.Context, key, payloadHash string) (store.IdemState, store.StoredResponse, error) {
	now := t.s.now()
	var (
		state store.IdemState
		resp  store.StoredResponse
	)
	err := retry(func() error {
		state, resp = store.IdemNew, store.StoredResponse{}
		return t.write(ctx, func(q Querier) error {
			var started int64
			err := q.QueryRow(ctx, `
				INSERT INTO idempotency (tenant, idem_key, payload_hash, state, started_at) VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT (tenant, idem_key) DO NOTHING
				RETURNING started_at`,
				t.id, key, payloadHash, idemInFlight, nanos(now)).Scan(&started)
			if err == nil || !errors.Is(err, sql.ErrNoRows) {
				return err // new, or failed
			}
			var (
				hash, st    string
				status      *int64
				contentType *string
			)
			err = q.QueryRow(ctx, t.s.lockIdem, t.id, key).Scan(&hash, &st, &started, &status, &contentType, &resp.Body)
			if errors.Is(err, sql.ErrNoRows) {
				return errRetry // abandoned in between
			}
			if err != nil {
				return err
			}
			switch {
			case st == idemInFlight && started < nanos(now.Add(-store.ClaimLease)):
				// Lost: the instance handling it is gone. Take it over.
				resp.Body = nil
				_, err = q.Exec(ctx, `
					UPDATE idempotency SET payload_hash = $3, started_at = $4 WHERE tenant = $1 AND idem_key = $2`,
					t.id, key, payloadHash, nanos(now))
				return err
			case hash != payloadHash:
				state, resp = store.IdemMismatch, store.StoredResponse{}
			case st == idemInFlight:
				state = store.IdemInFlight
			default:
				state = store.IdemDone
				if status != nil {
					resp.Status = int(*status)
				}
				if contentType != nil {
					resp.ContentType = *contentType
				}
			}
			return nil
		})
	})
	if err != nil {
		return 0, store.StoredResponse{}, t.s.errorf("begin request", err)
	}
	return state, resp, nil
}

// FinishRequest stores the response of a begun key.
func (t *tenant) FinishRequest(ctx context.Context, key string, resp store.StoredResponse) error {
	n, err := t.s.db.Writer().Exec(ctx, `
		UPDATE idempotency SET state = $3, status = $4, content_type = $5, body = $6, finished_at = $7
		WHERE tenant = $1 AND idem_key = $2`,
		t.id, key, idemDone, resp.Status, resp.ContentType, resp.Body, nanos(t.s.now()))
	if err == nil && n == 0 {
		err = fmt.Errorf("idempotency key %q was not begun", key)
	}
	if err != nil {
		return t.s.errorf("finish request", err)
	}
	return nil
}

// AbandonRequest forgets a begun key whose request failed. A key whose
// response is stored stays.
func (t *tenant) AbandonRequest(ctx context.Context, key string) error {
	_, err := t.s.db.Writer().Exec(ctx, `DELETE FROM idempotency WHERE tenant = $1 AND idem_key = $2 AND state = $3`,
		t.id, key, idemInFlight)
	if err != nil {
		return t.s.errorf("abandon request", err)
	}
	return nil
}
