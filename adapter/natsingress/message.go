package natsingress

import (
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/service"
)

// delivery is what the consumer reads off one message.
type delivery struct {
	// sub is the report's submission: the subject's tenant, the body, its
	// Content-Type, and Nats-Msg-Id as its idempotency key.
	sub service.Submission
	// tenant is the subject's part after the report prefix, as given
	// ("unknown" when there is none): what the dead-letter subject ends
	// with, whether or not it is a tenant.
	tenant string
	// replyTo is the Triage-Reply-To subject, "" for none.
	replyTo string
}

// decode reads a message published to the report subjects: the tenant
// from its subject, the idempotency key from Nats-Msg-Id (its first
// value, as JetStream reads it) and where to answer from Triage-Reply-To.
// The error, a *fault.Error, refuses a message whose subject names no
// tenant (TENANT_UNAUTHORIZED, as a request without a valid key) or whose
// Triage-Reply-To is not a subject the tenant may be answered on
// (INVALID_REQUEST; see answerable); the delivery's tenant is set all the
// same. Whether the tenant is one the service knows, and the key and the
// body, Accept checks.
func (c *Config) decode(subject string, h nats.Header, data []byte) (delivery, error) {
	d := delivery{tenant: "unknown"}
	rest, ok := strings.CutPrefix(subject, c.Subject+".")
	if ok && rest != "" {
		d.tenant = rest
	}
	if !ok || !triage.IsIdentifier(rest) {
		return d, fault.New(fault.TenantUnauthorized, "The subject names no tenant this service knows.")
	}
	d.sub = service.Submission{Tenant: rest, Body: data, ContentType: h.Get("Content-Type"),
		Key: h.Get(HeaderMsgID), KeyName: HeaderMsgID}
	if vals := h.Values(HeaderReplyTo); len(vals) > 0 {
		if len(vals) > 1 || !c.answerable(rest, vals[0]) {
			return d, fault.New(fault.InvalidRequest, "The "+HeaderReplyTo+" header is invalid.",
				fault.WithFieldErrors(fault.FieldError{Field: HeaderReplyTo,
					Message: "must be one subject without spaces or wildcards: " + c.FeedbackSubject(rest) +
						" (this tenant's feedback subject) or a subject under it"}))
		}
		d.replyTo = vals[0]
	}
	return d, nil
}

// answerable tells whether tenant's reports may be answered on subject:
// its feedback subject or a subject under it (a literal subject), and no
// other tenant's. A tenant's answers stay on its own subjects, which its
// subscribers alone may be allowed to read; so never another tenant's,
// nor NATS's own ($JS.API…, $SYS…: the consumer's credentials must not be
// lent to a publisher), nor the report and dead-letter subjects (the
// prefixes do not overlap). Tenants may hold dots ("acme" and
// "acme.eu"): a subject under the feedback subjects of two tenants of
// Tenants is the longer one's, so that acme's message cannot be answered
// on triage.feedback.acme.eu.x when acme.eu is a tenant too.
func (c *Config) answerable(tenant, subject string) bool {
	if !isLiteralSubject(subject) || !under(subject, c.FeedbackSubject(tenant)) {
		return false
	}
	for _, other := range c.Tenants {
		if len(other) > len(tenant) && under(subject, c.FeedbackSubject(other)) {
			return false
		}
	}
	return true
}

// traceHeaders returns the headers that trace an answer or a dead letter
// to msg: its subject, stream, stream sequence, deliveries and
// Nats-Msg-Id, and its W3C trace context. No other header of msg is
// copied: a publisher's headers may carry credentials.
func traceHeaders(msg jetstream.Msg, meta *jetstream.MsgMetadata) nats.Header {
	h := nats.Header{}
	h.Set(HeaderSubject, msg.Subject())
	h.Set(HeaderStream, meta.Stream)
	h.Set(HeaderSequence, strconv.FormatUint(meta.Sequence.Stream, 10))
	h.Set(HeaderDelivered, strconv.FormatUint(meta.NumDelivered, 10))
	in := msg.Headers()
	if id := in.Get(HeaderMsgID); printable(id, 255) {
		h.Set(HeaderMessageID, id)
	}
	for _, name := range []string{"traceparent", "tracestate"} {
		if v := in.Get(name); printable(v, 512) {
			h.Set(name, v)
		}
	}
	return h
}

// printable tells whether s is 1 to max bytes of printable ASCII.
func printable(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
