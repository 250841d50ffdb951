// Package natsingress is the Error Handler service's ingress from NATS
// JetStream: `triage serve --nats nats://…` takes the reports that
// pipelines publish to a message bus, as POST /v1/errors takes them over
// HTTP, through the same service.Service.Accept (the consumer depends on
// the small interface Service, not on the HTTP server).
//
// Start creates or updates a stream per tenant the service knows
// (Config.StreamName: "TRIAGE_REPORTS-acme" on "triage.reports.acme", so
// that JetStream's deduplication by Nats-Msg-Id is each tenant's), a
// dead-letter stream beside them, and a durable pull consumer on each
// report stream, then handles each message:
//
//   - its tenant is its subject's last part(s): a report for tenant T is
//     published to triage.reports.T. NATS authenticates publishers and its
//     permissions say who may publish to which subject, so the subject is
//     the tenant's proof; only the tenants the service knows (its API
//     keys', or "default" without keys) have a stream;
//   - its Nats-Msg-Id is the report's idempotency key, as HTTP's
//     Idempotency-Key; without one, the report's own identity (fingerprint
//     and timestamp) makes a repeat a duplicate: a message delivered twice
//     is one record;
//   - once the report is committed, its feedback is published to the
//     subject its Triage-Reply-To header names (JetStream keeps no reply
//     subject; it must be triage.feedback.T or under it), else to
//     triage.feedback.T, and the message acknowledged;
//   - a report refused for good (the 4xx POST /v1/errors would answer) has
//     its problem (application/problem+json) stored on the dead-letter
//     subject triage.deadletter.T, with headers that trace it to the
//     message and never the message's other headers, then the message is
//     acknowledged;
//   - a report refused for a reason that passes (the store failed, the
//     same report is in hand elsewhere) is not acknowledged (NAK) with a
//     delay, and comes back.
//
// Config.Workers bounds the messages in hand, all tenants' together (the
// tenants with messages waiting take the free workers in turn),
// Config.MaxAckPending those of a tenant delivered and not acknowledged. docs/nats.md has the subjects, the
// headers, the formats and a walk-through with the nats CLI.
package natsingress
