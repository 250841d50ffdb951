package policy

import "github.com/triage-go/triage"

// Decision is what the recovery policy chose for a report: the rule that
// matched, the actions to run, how to go on, how severe it is, and the
// message and suggestions (already rendered from the rule's templates).
type Decision struct {
	Rule        string            `json:"rule"`
	Actions     []string          `json:"actions"`
	NextAction  triage.NextAction `json:"next_action"`
	Severity    triage.Severity   `json:"severity"`
	Message     string            `json:"message"`
	Suggestions []string          `json:"suggestions"`
}
