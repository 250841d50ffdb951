package natsingress

import (
	"bytes"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

// FuzzDecode holds decode to its contract on any subject and headers:
// it never panics; a message it takes names a tenant that is an
// identifier, the body and key as given, and a reply subject the consumer
// may publish to (no wildcard, none of NATS's own, none of its report or
// dead-letter subjects) that is the tenant's feedback subject or under it,
// and under no longer tenant's (acme.eu's, for acme); a message it refuses is refused with
// TENANT_UNAUTHORIZED or INVALID_REQUEST, and its dead-letter subject is
// one the consumer may publish to whenever the message's subject was one
// NATS could deliver. Seeds: testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	f.Add("triage.reports.acme", "triage.feedback.acme.x1", "id-1", "application/json", []byte(`{}`))
	f.Fuzz(func(t *testing.T, subject, replyTo, msgID, contentType string, body []byte) {
		cfg, err := Config{URL: "nats://127.0.0.1:4222", Tenants: []string{"acme", "acme.eu", "globex"}}.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		h := nats.Header{}
		if replyTo != "" {
			for _, v := range strings.Split(replyTo, "\n") { // several values
				h.Add(HeaderReplyTo, v)
			}
		}
		if msgID != "" {
			h.Set(HeaderMsgID, msgID)
		}
		if contentType != "" {
			h.Set("Content-Type", contentType)
		}
		d, err := cfg.decode(subject, h, body)
		if err != nil {
			if c := fault.CodeOf(err); c != fault.TenantUnauthorized && c != fault.InvalidRequest {
				t.Fatalf("refused with %s: %v", c, err)
			}
			if deliverable(subject) && !deliverable(cfg.DeadLetterSubject(d.tenant)) {
				t.Fatalf("subject %q: dead letter to %q", subject, cfg.DeadLetterSubject(d.tenant))
			}
			return
		}
		if !triage.IsIdentifier(d.sub.Tenant) || cfg.ReportSubject(d.sub.Tenant) != subject || d.tenant != d.sub.Tenant {
			t.Fatalf("subject %q: tenant %q (%q)", subject, d.sub.Tenant, d.tenant)
		}
		if d.sub.Key != msgID || d.sub.KeyName != HeaderMsgID || !bytes.Equal(d.sub.Body, body) || d.sub.ContentType != contentType {
			t.Fatalf("submission %+v from key %q, content type %q", d.sub, msgID, contentType)
		}
		if (d.replyTo == "") != (replyTo == "") {
			t.Fatalf("reply to %q from %q", d.replyTo, replyTo)
		}
		if d.replyTo != "" && (!deliverable(d.replyTo) || strings.HasPrefix(d.replyTo, "$") ||
			under(d.replyTo, cfg.Subject) || under(d.replyTo, cfg.DeadLetter) || d.replyTo != replyTo ||
			!under(d.replyTo, cfg.FeedbackSubject(d.sub.Tenant)) ||
			(d.sub.Tenant == "acme" && under(d.replyTo, cfg.FeedbackSubject("acme.eu")))) {
			t.Fatalf("answers on %q", d.replyTo)
		}
	})
}

// deliverable tells whether NATS takes a publication to subject: tokens
// none empty, no wildcard, no whitespace.
func deliverable(subject string) bool {
	if subject == "" || strings.ContainsAny(subject, " \t\r\n\f\v*>") {
		return false
	}
	for _, tok := range strings.Split(subject, ".") {
		if tok == "" {
			return false
		}
	}
	return true
}
