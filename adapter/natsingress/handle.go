package natsingress

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/wire/problem"
)

// handle handles one message: its report accepted (committed), its
// feedback published, then the message acknowledged; or, refused for
// good, its problem stored on the dead-letter stream, then the message
// acknowledged; or, refused for a reason that passes (a store failure, the
// same report in flight), the message not acknowledged (NAK) with a delay,
// so that NATS delivers it again.
func (c *Consumer) handle(msg jetstream.Msg) {
	// The handling has AckWait: past it NATS delivers the message again.
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.AckWait)
	defer cancel()
	meta, err := msg.Metadata()
	if err != nil { // not a JetStream message: nothing to acknowledge
		c.log.Warn("NATS message without JetStream metadata ignored", slog.String("subject", msg.Subject()))
		return
	}
	start := time.Now()
	outcome, code := "retried", fault.Code("")
	defer func() {
		c.messages.WithLabelValues(outcome, string(code)).Inc()
		c.seconds.WithLabelValues(outcome).Observe(time.Since(start).Seconds())
	}()
	d, err := c.cfg.decode(msg.Subject(), msg.Headers(), msg.Data())
	var ans service.Answer
	if err == nil {
		ans, err = c.svc.Accept(ctx, d.sub)
	}
	switch {
	case err != nil:
		f := fault.From(err)
		code = f.Code
		if f.Retryable || f.Code == fault.Cancelled {
			c.retry(msg, meta, f)
			return
		}
		body, merr := json.Marshal(problem.From(f, c.cfg.Problems))
		if merr != nil {
			c.retry(msg, meta, fault.From(merr))
			return
		}
		outcome = c.refuse(msg, meta, d, f.HTTPStatus(), f.Code, body)
	case ans.Status >= 400: // a key's stored refusal, answered again
		if p, perr := problem.Parse(ans.Body); perr == nil {
			code = p.Code
		}
		outcome = c.refuse(msg, meta, d, ans.Status, code, ans.Body)
	default:
		outcome = c.answer(msg, meta, d, ans)
	}
}

// answer publishes the feedback of a committed report, then acknowledges
// the message.
func (c *Consumer) answer(msg jetstream.Msg, meta *jetstream.MsgMetadata, d delivery, ans service.Answer) (outcome string) {
	h := traceHeaders(msg, meta)
	h.Set("Content-Type", ans.ContentType)
	h.Set(HeaderStatus, strconv.Itoa(ans.Status))
	if ans.Replayed {
		h.Set(HeaderReplayed, "true")
	}
	to := d.replyTo
	if to == "" {
		to = c.cfg.FeedbackSubject(d.sub.Tenant)
	}
	if err := c.nc.PublishMsg(&nats.Msg{Subject: to, Header: h, Data: ans.Body}); err != nil {
		// Committed, not answered: delivered again, it is answered from
		// the record (the same error_id).
		c.retry(msg, meta, fault.Wrap(err, fault.TransportError, "The feedback could not be published."))
		return "retried"
	}
	c.ack(msg, meta)
	return "answered"
}

// refuse stores a refused report's problem on the dead-letter stream,
// answers it on Triage-Reply-To when the message has one, then
// acknowledges the message. A dead letter that cannot be stored leaves
// the message to be delivered again.
func (c *Consumer) refuse(msg jetstream.Msg, meta *jetstream.MsgMetadata, d delivery, status int, code fault.Code, body []byte) (outcome string) {
	h := traceHeaders(msg, meta)
	h.Set("Content-Type", problem.ContentType)
	h.Set(HeaderStatus, strconv.Itoa(status))
	if code != "" {
		h.Set(HeaderCode, string(code))
	}
	if d.replyTo != "" {
		h.Set(HeaderReplyTo, d.replyTo)
	}
	dead := &nats.Msg{Subject: c.cfg.DeadLetterSubject(d.tenant), Header: h, Data: body}
	// One dead letter per stored message, however often it is delivered.
	id := "triage-dl-" + meta.Stream + "-" + strconv.FormatUint(meta.Sequence.Stream, 10)
	ctx, cancel := context.WithTimeout(context.Background(), publishTimeout)
	defer cancel()
	if _, err := c.js.PublishMsg(ctx, dead, jetstream.WithMsgID(id)); err != nil {
		c.retry(msg, meta, fault.Wrap(err, fault.TransportError, "The dead letter could not be stored."))
		return "retried"
	}
	c.log.Info("NATS report refused, sent to the dead-letter subject",
		slog.String("subject", msg.Subject()), slog.Uint64("stream_seq", meta.Sequence.Stream),
		slog.Int("status", status), slog.String("code", string(code)), slog.String("dead_letter", dead.Subject))
	if d.replyTo != "" {
		reply := &nats.Msg{Subject: d.replyTo, Header: traceHeaders(msg, meta), Data: body}
		reply.Header.Set("Content-Type", problem.ContentType)
		reply.Header.Set(HeaderStatus, strconv.Itoa(status))
		if code != "" {
			reply.Header.Set(HeaderCode, string(code))
		}
		if err := c.nc.PublishMsg(reply); err != nil {
			c.log.Warn("publishing a refusal to Triage-Reply-To failed", slog.Any("error", err))
		}
	}
	c.ack(msg, meta)
	return "dead_letter"
}

// publishTimeout bounds a dead letter's publication, and an
// acknowledgement's confirmation: after the handling, whose own time may
// be up.
const publishTimeout = 5 * time.Second

// ack acknowledges the message and waits for NATS to confirm it. A lost
// acknowledgement costs a delivery more, which the idempotency answers.
func (c *Consumer) ack(msg jetstream.Msg, meta *jetstream.MsgMetadata) {
	ctx, cancel := context.WithTimeout(context.Background(), publishTimeout)
	defer cancel()
	if err := msg.DoubleAck(ctx); err != nil {
		c.log.Warn("acknowledging a NATS message failed; it will be delivered again",
			slog.Uint64("stream_seq", meta.Sequence.Stream), slog.Any("error", err))
	}
}

// retry leaves the message to NATS to deliver again after a delay: the
// fault's Retry-After, at least 1s doubling with each delivery, at most
// MaxRetryDelay.
func (c *Consumer) retry(msg jetstream.Msg, meta *jetstream.MsgMetadata, f *fault.Error) {
	delay := retryDelay(meta.NumDelivered, f.RetryAfter, c.cfg.MaxRetryDelay)
	level := slog.LevelWarn
	if f.Code == fault.SessionBusy {
		level = slog.LevelDebug // the same report in hand elsewhere: routine
	}
	c.log.Log(context.Background(), level, "NATS report not handled now; delivered again later",
		slog.String("subject", msg.Subject()), slog.Uint64("stream_seq", meta.Sequence.Stream),
		slog.Uint64("delivered", meta.NumDelivered), slog.Duration("delay", delay), slog.Any("fault", f))
	if err := msg.NakWithDelay(delay); err != nil {
		c.log.Warn("NAK of a NATS message failed; it will be delivered again after the ack wait",
			slog.Uint64("stream_seq", meta.Sequence.Stream), slog.Any("error", err))
	}
}

// retryDelay is the delay of a message's next delivery after its
// delivered-th was refused for a reason that passes.
func retryDelay(delivered uint64, retryAfter, maxDelay time.Duration) time.Duration {
	d := time.Second << min(max(delivered, 1)-1, 16)
	return min(max(d, retryAfter), maxDelay)
}
