package natsin_test

import (
	"fmt"

	"github.com/triage-go/triage/internal/natsin"
)

// The subjects of tenant acme's reports, of their feedback and of their
// dead letters, with the default Config and with prefixes of one's own
// (as --nats-subject, --nats-feedback and --nats-dead-letter set them).
func ExampleConfig() {
	var cfg natsin.Config // every zero field is its default
	fmt.Println(cfg.ReportSubject("acme"))
	fmt.Println(cfg.FeedbackSubject("acme"))
	fmt.Println(cfg.DeadLetterSubject("acme"))

	cfg = natsin.Config{Subject: "prod.errors", Feedback: "prod.feedback", DeadLetter: "prod.dlq"}
	fmt.Println(cfg.ReportSubject("acme"), cfg.FeedbackSubject("acme"), cfg.DeadLetterSubject("acme"))
	// Output:
	// triage.reports.acme
	// triage.feedback.acme
	// triage.deadletter.acme
	// prod.errors.acme prod.feedback.acme prod.dlq.acme
}
