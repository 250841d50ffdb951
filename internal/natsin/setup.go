package natsin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// setup creates or updates the report stream, the dead-letter stream and
// the durable consumer, so that `triage serve --nats URL` needs nothing
// made by hand.
func (c *Consumer) setup(ctx context.Context) (jetstream.Consumer, error) {
	if err := ensureStream(ctx, c.js, c.cfg.Stream, c.cfg.Subject+".>", "Triage: error reports from pipeline agents"); err != nil {
		return nil, err
	}
	if err := ensureStream(ctx, c.js, c.cfg.DeadLetterStream, c.cfg.DeadLetter+".>", "Triage: refused error reports, with their problems"); err != nil {
		return nil, err
	}
	cons, err := c.js.CreateOrUpdateConsumer(ctx, c.cfg.Stream, jetstream.ConsumerConfig{
		Durable:       c.cfg.Durable,
		Description:   "Triage: the Error Handler service's ingress",
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       c.cfg.AckWait,
		// Never given up on: a report refused for good is acknowledged
		// (after its dead letter), one refused for a while comes back.
		MaxDeliver:    -1,
		MaxAckPending: c.cfg.MaxAckPending,
		FilterSubject: c.cfg.Subject + ".>",
	})
	if err != nil {
		return nil, fmt.Errorf("natsin: creating the consumer %s on %s: %w", c.cfg.Durable, c.cfg.Stream, err)
	}
	return cons, nil
}

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
			return fmt.Errorf("natsin: creating the stream %s on %s: %w", name, subject, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("natsin: the stream %s: %w", name, err)
	}
	cfg := s.CachedInfo().Config
	if slices.ContainsFunc(cfg.Subjects, func(p string) bool { return covers(p, subject) }) {
		return nil
	}
	cfg.Subjects = append(cfg.Subjects, subject)
	if _, err := js.UpdateStream(ctx, cfg); err != nil {
		return fmt.Errorf("natsin: adding %s to the stream %s: %w", subject, name, err)
	}
	return nil
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
