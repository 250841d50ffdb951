package postgres

import (
	"context"
	"time"
)

// eventsChannel is the channel of the instances' announcements.
const eventsChannel = "triage_events"

// Announce tells the instances listening on this database that tenant has
// new events: a NOTIFY on triage_events, its payload the tenant.
func (s *Store) Announce(ctx context.Context, tenant string) error {
	_, err := s.pool.Exec(ctx, "SELECT pg_notify($1, $2)", eventsChannel, tenant)
	return err
}

// Listen calls wake with each tenant announced on this database, until ctx
// ends, on a connection of its own taken out of the pool (a listening
// connection must not serve other queries). After a failure it waits a
// second, listens again, and calls wake("") for what it may have missed.
func (s *Store) Listen(ctx context.Context, wake func(tenant string)) error {
	for first := true; ; first = false {
		if !first {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(time.Second):
			}
		}
		_ = s.listen(ctx, wake, !first)
		if ctx.Err() != nil {
			return nil
		}
	}
}

func (s *Store) listen(ctx context.Context, wake func(string), again bool) error {
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	conn := pc.Hijack()
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+eventsChannel); err != nil {
		return err
	}
	if again {
		wake("")
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		wake(n.Payload)
	}
}
