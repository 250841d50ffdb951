// Package webhook posts Triage's JSON to the URLs others gave it: an
// escalation to the operators' webhook, a retry to an agent's callback.
// It is the one place those POSTs are built and sent, whoever sends them:
// the in-process runner (triage handle, handler.Config.Notifier) and the
// service's durable jobs (triage serve) post an escalation with the same
// body and the same headers.
//
// Every post carries Content-Type: application/json and User-Agent:
// UserAgent; an escalation's also carries an Idempotency-Key (Key) that
// names the escalation, not the attempt at posting it, so that a receiver
// can take a repeat (a retried job, a job rescued after its instance
// died) as the same escalation.
//
// AlertPost builds a notification of a tenant's alert rule in its
// target's format: a JSON webhook signed as the Standard Webhooks
// specification signs (checked against its reference library), a Slack
// incoming-webhook message, or a PagerDuty Events API v2 event.
//
// A post's error names its target by scheme and host only: a webhook's
// path and query often hold its credential (Slack's
// /services/T/B/secret, Discord's /api/webhooks/id/token), and the error
// is logged and shown to the tenant. Permanent tells a failure that
// posting again would meet again (a URL that does not parse, a 4xx other
// than 408, 409 and 429) from one worth a retry.
package webhook
