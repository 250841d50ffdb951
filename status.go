package triage

import "time"

// A record's place in a team's workflow: what the team decided about the
// error, as Sentry's issues have it. The service keeps it with the record,
// changes it when a team member asks (a Change) and when an occurrence
// arrives (a resolved record regresses; an ignored one wakes when its
// condition lapses), and records every change as a Transition.

// Status is where a record stands.
type Status string

// The statuses of a record.
const (
	// StatusUnresolved is a record no one has decided about yet, or one
	// that was set back: every new record starts here.
	StatusUnresolved Status = "unresolved"
	// StatusResolved is a record the team says is fixed (Resolution says
	// in which release).
	StatusResolved Status = "resolved"
	// StatusIgnored is a record the team does not want to hear about, for
	// good or until its Ignore condition lapses; its occurrences are kept
	// and counted, and alert no one.
	StatusIgnored Status = "ignored"
	// StatusRegressed is a resolved record that occurred again (in a
	// release after the one it was resolved in, when one was named). Only
	// the service sets it; it reads as unresolved until someone acts.
	StatusRegressed Status = "regressed"
)

// Statuses are the statuses, in the order the API lists them.
var Statuses = []Status{StatusUnresolved, StatusResolved, StatusIgnored, StatusRegressed}

// Valid reports whether s is one of Statuses.
func (s Status) Valid() bool {
	for _, v := range Statuses {
		if s == v {
			return true
		}
	}
	return false
}

// Resolution says in which release a resolved record was fixed. The zero
// Resolution is "fixed now": any later occurrence regresses it.
type Resolution struct {
	// InRelease names the release with the fix: an occurrence in that
	// release or an earlier one leaves the record resolved, one in a
	// later release (or in none) regresses it.
	InRelease string `json:"in_release,omitempty"`
	// InNextRelease says the fix ships in the release after the latest
	// the tenant had reported when the record was resolved (kept in
	// InRelease, as that release's name): occurrences in it and before it
	// are expected, one in a later release (or in none) regresses.
	InNextRelease bool `json:"in_next_release,omitempty"`
}

// Ignore is how long an ignored record stays ignored. The zero Ignore is
// forever. With Until set, the record wakes at that instant; with Count,
// once it has occurred Count more times (in any Window when Window is
// set). It wakes as unresolved.
type Ignore struct {
	Until time.Time `json:"until,omitzero"`
	Count int       `json:"count,omitempty"`
	// Window, with Count, is the span Count occurrences must fall in.
	Window time.Duration `json:"window_ns,omitempty"`
	// Seen counts the occurrences since the record was ignored (for a
	// Count without a Window).
	Seen int `json:"seen,omitempty"`
}

// Forever reports whether the condition never lapses.
func (ig Ignore) Forever() bool { return ig.Until.IsZero() && ig.Count == 0 }

// Workflow is a record's workflow state.
type Workflow struct {
	Status Status `json:"status"`
	// Resolution is set while the record is resolved.
	Resolution *Resolution `json:"resolution,omitempty"`
	// Ignore is set while the record is ignored.
	Ignore *Ignore `json:"ignore,omitempty"`
	// Assignee is who works on it: a free name (a person, a team), empty
	// for no one.
	Assignee string `json:"assignee,omitempty"`
	// Changed is when the status last changed (zero: never, the record
	// is as it was created).
	Changed time.Time `json:"status_changed_at,omitzero"`
}

// Change is what a team member asks of a record: a status (with its
// resolution or ignore condition), an assignee, or both, with a note.
type Change struct {
	// Status is the status wanted; empty keeps it. StatusRegressed is the
	// service's to set, never asked for.
	Status Status `json:"status,omitempty"`
	// Resolution, with StatusResolved, names the release of the fix.
	Resolution *Resolution `json:"resolution,omitempty"`
	// Ignore, with StatusIgnored, is the condition; nil is forever.
	Ignore *IgnoreFor `json:"ignore,omitempty"`
	// Assignee, when not nil, replaces the assignee ("" unassigns).
	Assignee *string `json:"assignee,omitempty"`
	// Note is kept with the transition (at most MaxNoteLength bytes).
	Note string `json:"note,omitempty"`
}

// IgnoreFor is the ignore condition a Change asks for, in the terms of a
// request: a duration from now, or a number of occurrences (within a
// window).
type IgnoreFor struct {
	Seconds       int `json:"seconds,omitempty"`
	Count         int `json:"count,omitempty"`
	WindowSeconds int `json:"window_seconds,omitempty"`
}

// MaxNoteLength bounds a transition's note, in bytes.
const MaxNoteLength = 4096

// Transition is one change of a record's workflow, kept in its history.
type Transition struct {
	At time.Time `json:"at"`
	// By is who made it: the API key's name, "operator", or "triage" for
	// the service's own (a regression, an ignore that lapsed).
	By   string   `json:"by"`
	From Workflow `json:"from"`
	To   Workflow `json:"to"`
	Note string   `json:"note,omitempty"`
	// Release is the occurrence's release, for the service's own
	// transitions.
	Release string `json:"release,omitempty"`
}

// ByService is Transition.By for the service's own transitions.
const ByService = "triage"
