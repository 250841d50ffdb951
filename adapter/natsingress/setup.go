package natsingress

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// planLanes returns the streams the consumer takes reports from: each
// tenant's, and the shared stream of the earlier layout when there is
// one (see retireShared). It creates or updates the dead-letter stream.
func (c *Consumer) planLanes(ctx context.Context) ([]*lane, error) {
	if err := ensureStream(ctx, c.js, c.cfg.DeadLetterStream, c.cfg.DeadLetter+".>", "Triage: refused error reports, with their problems"); err != nil {
		return nil, err
	}
	shared, err := c.retireShared(ctx)
	if err != nil {
		return nil, err
	}
	var lanes []*lane
	if shared {
		lanes = append(lanes, &lane{stream: c.cfg.Stream})
	}
	batch := max(1, c.cfg.Workers/max(1, len(c.cfg.Tenants)))
	for _, t := range c.cfg.Tenants {
		lanes = append(lanes, &lane{stream: c.cfg.StreamName(t), tenant: t, batch: batch})
	}
	if shared {
		lanes[0].batch = batch
	}
	return lanes, nil
}

// retireShared takes the report subjects away from the stream named
// Config.Stream, the one stream of every tenant's reports before each
// tenant had its own (JetStream refuses two streams with overlapping
// subjects, and drops a message whose Nats-Msg-Id its stream saw, any
// tenant's). It keeps the stream and its messages, which the consumer
// still drains: it tells whether the stream exists.
func (c *Consumer) retireShared(ctx context.Context) (bool, error) {
	s, err := c.js.Stream(ctx, c.cfg.Stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("natsingress: the stream %s: %w", c.cfg.Stream, err)
	}
	cfg := s.CachedInfo().Config
	reports := c.cfg.Subject + ".>"
	kept := slices.DeleteFunc(slices.Clone(cfg.Subjects), func(p string) bool { return overlaps(p, reports) })
	if len(kept) == len(cfg.Subjects) {
		return true, nil
	}
	if len(kept) == 0 {
		kept = []string{c.cfg.Stream} // a stream takes some subject: its name, which no one uses
	}
	cfg.Subjects = kept
	if _, err := c.js.UpdateStream(ctx, cfg); err != nil {
		return false, fmt.Errorf("natsingress: taking %s away from the shared stream %s: %w", reports, c.cfg.Stream, err)
	}
	c.log.Warn("the shared report stream no longer takes reports: each tenant's have a stream of their own; its messages left are still handled, and it may be deleted once empty",
		slog.String("stream", c.cfg.Stream), slog.Uint64("messages", s.CachedInfo().State.Msgs))
	return true, nil
}

// setupLane creates or updates l's stream (a tenant's) and the durable
// consumer on it, so that `triage serve --nats URL` needs nothing made by
// hand. The shared stream is never created: once it is gone,
// errRetired.
func (c *Consumer) setupLane(ctx context.Context, l *lane) (jetstream.Consumer, error) {
	if err := ensureStream(ctx, c.js, c.cfg.DeadLetterStream, c.cfg.DeadLetter+".>", "Triage: refused error reports, with their problems"); err != nil {
		return nil, err
	}
	cc := jetstream.ConsumerConfig{
		Durable:       c.cfg.Durable,
		Description:   "Triage: the Error Handler service's ingress",
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       c.cfg.AckWait,
		// Never given up on: a report refused for good is acknowledged
		// (after its dead letter), one refused for a while comes back.
		MaxDeliver:    -1,
		MaxAckPending: c.cfg.MaxAckPending,
	}
	if l.tenant == "" {
		// The shared stream's consumer filtered on the report subjects,
		// which the stream no longer takes: a filter JetStream would now
		// refuse. It is used as it is, or made without a filter.
		cons, err := c.js.Consumer(ctx, l.stream, c.cfg.Durable)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			return nil, errRetired
		}
		if errors.Is(err, jetstream.ErrConsumerNotFound) {
			cons, err = c.js.CreateOrUpdateConsumer(ctx, l.stream, cc)
		}
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			return nil, errRetired
		}
		if err != nil {
			return nil, fmt.Errorf("natsingress: the consumer %s on %s: %w", c.cfg.Durable, l.stream, err)
		}
		return cons, nil
	}
	subject := c.cfg.ReportSubject(l.tenant)
	if err := ensureStream(ctx, c.js, l.stream, subject, "Triage: the error reports of tenant "+l.tenant); err != nil {
		return nil, err
	}
	cc.FilterSubject = subject
	cons, err := c.js.CreateOrUpdateConsumer(ctx, l.stream, cc)
	if err != nil {
		return nil, fmt.Errorf("natsingress: creating the consumer %s on %s: %w", c.cfg.Durable, l.stream, err)
	}
	return cons, nil
}

// errRetired is setupLane's error once the shared stream is deleted.
var errRetired = errors.New("natsingress: the shared report stream is deleted")

// ensureStream creates the stream name on subject (file storage, limits
// retention, DefaultMaxAge) when it does not exist; when it does, it adds
// subject to its subjects unless one covers it already, and changes
// nothing else: an operator's settings (replicas, limits) stay.
func ensureStream(ctx context.Context, js jetstream.JetStream, name, subject, description string) error {
	s, err := js.Stream(ctx, name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		_, err = js.CreateStream(ctx, jetstream.StreamConfig{
			Name:        name,
			Description: description,
			Subjects:    []string{subject},
			Storage:     jetstream.FileStorage,
			Retention:   jetstream.LimitsPolicy,
			MaxAge:      DefaultMaxAge,
		})
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) { // another instance made it
			return ensureStream(ctx, js, name, subject, description)
		}
		if err != nil {
			return fmt.Errorf("natsingress: creating the stream %s on %s: %w%s", name, subject, err, overlapHint(err))
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("natsingress: the stream %s: %w", name, err)
	}
	cfg := s.CachedInfo().Config
	if slices.ContainsFunc(cfg.Subjects, func(p string) bool { return covers(p, subject) }) {
		return nil
	}
	cfg.Subjects = append(cfg.Subjects, subject)
	if _, err := js.UpdateStream(ctx, cfg); err != nil {
		return fmt.Errorf("natsingress: adding %s to the stream %s: %w%s", subject, name, err, overlapHint(err))
	}
	return nil
}

// errCodeSubjectOverlap is JetStream's "subjects overlap with an existing
// stream" (nats-server's JSStreamSubjectOverlapErr), which nats.go names
// not.
const errCodeSubjectOverlap jetstream.ErrorCode = 10065

// overlapHint explains JetStream's refusal of a stream whose subjects
// another stream takes.
func overlapHint(err error) string {
	var api *jetstream.APIError
	if errors.As(err, &api) && api.ErrorCode == errCodeSubjectOverlap {
		return " (another stream takes this subject: each tenant's reports need a stream of their own; see docs/nats.md)"
	}
	return ""
}

// covers tells whether the subject filter pattern matches every subject
// that filter does (both may hold the wildcards * and >).
func covers(pattern, filter string) bool {
	p, f := strings.Split(pattern, "."), strings.Split(filter, ".")
	for i, tok := range p {
		switch {
		case tok == ">":
			return i < len(f)
		case i >= len(f):
			return false
		case tok == "*":
			if f[i] == ">" {
				return false
			}
		case tok != f[i]:
			return false
		}
	}
	return len(p) == len(f)
}

// overlaps tells whether some subject matches both subject filters a and
// b (each may hold the wildcards * and >).
func overlaps(a, b string) bool {
	x, y := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; ; i++ {
		switch {
		case i == len(x) || i == len(y):
			return len(x) == len(y)
		case x[i] == ">" || y[i] == ">":
			return true
		case x[i] != "*" && y[i] != "*" && x[i] != y[i]:
			return false
		}
	}
}
