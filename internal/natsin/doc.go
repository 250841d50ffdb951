// Package natsin is the Error Handler service's ingress from NATS
// JetStream: `triage serve --nats nats://…` takes the reports that
// pipelines publish to a message bus, as POST /v1/errors takes them over
// HTTP, through the same server.Server.Accept.
//
// Start creates or updates the stream (DefaultStream on
// DefaultSubject.>, and a dead-letter stream beside it) and a durable
// pull consumer, then handles each message:
//
//   - its tenant is its subject's last part(s): a report for tenant T is
//     published to triage.reports.T. NATS authenticates publishers and its
//     permissions say who may publish to which subject, so the subject is
//     the tenant's proof; it must be a tenant the service knows (one its
//     API keys name, or "default" without keys);
//   - its Nats-Msg-Id is the report's idempotency key, as HTTP's
//     Idempotency-Key; without one, the report's own identity (fingerprint
//     and timestamp) makes a repeat a duplicate: a message delivered twice
//     is one record;
//   - once the report is committed, its feedback is published to the
//     subject its Triage-Reply-To header names (JetStream keeps no reply
//     subject), else to triage.feedback.T, and the message acknowledged;
//   - a report refused for good (the 4xx POST /v1/errors would answer) has
//     its problem (application/problem+json) stored on the dead-letter
//     subject triage.deadletter.T, with headers that trace it to the
//     message and never the message's other headers, then the message is
//     acknowledged;
//   - a report refused for a reason that passes (the store failed, the
//     same report is in hand elsewhere) is not acknowledged (NAK) with a
//     delay, and comes back.
//
// Config.Workers bounds the messages in hand, Config.MaxAckPending those
// delivered and not acknowledged. docs/nats.md has the subjects, the
// headers, the formats and a walk-through with the nats CLI.
package natsin
