package natsingress_test

import (
	"fmt"

	"github.com/triage-go/triage/adapter/natsingress"
)

// The subjects of tenant acme's reports, of their feedback and of their
// dead letters, with the default Config and with prefixes of one's own
// (as --nats-subject, --nats-feedback and --nats-dead-letter set them);
// and the streams that keep a tenant's reports.
func ExampleConfig() {
	var cfg natsingress.Config // every zero field is its default
	fmt.Println(cfg.ReportSubject("acme"))
	fmt.Println(cfg.FeedbackSubject("acme"))
	fmt.Println(cfg.DeadLetterSubject("acme"))
	fmt.Println(cfg.StreamName("acme"), cfg.StreamName("acme.eu"))

	cfg = natsingress.Config{Subject: "prod.errors", Feedback: "prod.feedback", DeadLetter: "prod.dlq"}
	fmt.Println(cfg.ReportSubject("acme"), cfg.FeedbackSubject("acme"), cfg.DeadLetterSubject("acme"))
	// Output:
	// triage.reports.acme
	// triage.feedback.acme
	// triage.deadletter.acme
	// TRIAGE_REPORTS-acme TRIAGE_REPORTS-acme_2Eeu
	// prod.errors.acme prod.feedback.acme prod.dlq.acme
}
