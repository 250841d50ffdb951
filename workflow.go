package triage

import (
	"fmt"
	"net/http"
	"time"

	"github.com/triage-go/triage/fault"
)

// A record's workflow (Workflow) changes two ways: a team member
// asks (applyChange) and an occurrence arrives (occur). Both are values in,
// values out: the store keeps what they return, in the transaction that
// saves the occurrence or the change.

// The bounds of a change.
const (
	maxAssigneeLength = 200
	maxIgnoreSeconds  = 366 * 24 * 3600
	maxCount          = 1_000_000
	// maxIgnoreWindow is the longest window an ignore counts in: the
	// retention of the hourly counts that answer it.
	maxIgnoreWindow = 30 * 24 * 3600
)

// Releases orders a tenant's releases: Later(a, b) reports whether a
// came after b (in the order the tenant first reported them; a release
// never seen before comes after every other). Latest is the latest
// release reported, "" when none has been.
type Releases struct {
	Later  func(a, b string) bool
	Latest string
}

// Apply returns w changed as c asks, by by at now, and the
// transition to keep in the record's history; nil when c changes nothing
// (asking twice for the same is not an error, and leaves no trace). An
// invalid change is a fault.InvalidRequest whose field errors name the
// members at fault, with status 422, or 409 when it conflicts with what
// the service knows (a next release when none has been reported).
func (w Workflow) Apply(c Change, by string, now time.Time, releases Releases) (Workflow, *Transition, error) {
	if err := checkChange(c); err != nil {
		return w, nil, err
	}
	next := w
	if c.Assignee != nil {
		next.Assignee = *c.Assignee
	}
	switch c.Status {
	case StatusUnresolved:
		next.Status, next.Resolution, next.Ignore = StatusUnresolved, nil, nil
	case StatusResolved:
		r := Resolution{}
		if c.Resolution != nil {
			r = *c.Resolution
		}
		if r.InNextRelease {
			if releases.Latest == "" {
				return w, nil, fault.New(fault.InvalidRequest,
					"No release has been reported yet, so there is no next release: name the release of the fix (resolution.in_release), or resolve it without one.",
					fault.WithStatus(http.StatusConflict),
					fault.WithFieldErrors(fault.FieldError{Field: "resolution.in_next_release", Message: "no release has been reported yet"}))
			}
			r.InRelease = releases.Latest
		}
		next.Status, next.Resolution, next.Ignore = StatusResolved, &r, nil
	case StatusIgnored:
		next.Status, next.Resolution, next.Ignore = StatusIgnored, nil, ignoreFrom(c.Ignore, now)
	}
	if sameWorkflow(w, next) {
		return w, nil, nil
	}
	if next.Status != w.Status || !sameCondition(w, next) {
		next.Changed = now
	}
	return next, &Transition{At: now, By: by, From: w, To: next, Note: c.Note}, nil
}

// checkChange reports every member of c at fault at once.
func checkChange(c Change) error {
	var fields []fault.FieldError
	add := func(field, msg string) { fields = append(fields, fault.FieldError{Field: field, Message: msg}) }
	switch c.Status {
	case "":
		if c.Assignee == nil {
			add("status", "a change names a status, an assignee or both")
		}
	case StatusUnresolved, StatusResolved, StatusIgnored:
	case StatusRegressed:
		add("status", "regressed is set by the service when a resolved record occurs again; ask for unresolved, resolved or ignored")
	default:
		add("status", fmt.Sprintf("must be unresolved, resolved or ignored, not %q", c.Status))
	}
	if c.Resolution != nil {
		if c.Status != StatusResolved {
			add("resolution", "only with status resolved")
		}
		if c.Resolution.InNextRelease && c.Resolution.InRelease != "" {
			add("resolution", "name a release (in_release) or ask for the next one (in_next_release), not both")
		}
		if n := len(c.Resolution.InRelease); n > maxReleaseLength {
			add("resolution.in_release", fmt.Sprintf("at most %d bytes", maxReleaseLength))
		}
	}
	if ig := c.Ignore; ig != nil {
		if c.Status != StatusIgnored {
			add("ignore", "only with status ignored")
		}
		switch {
		case ig.Seconds < 0 || ig.Seconds > maxIgnoreSeconds:
			add("ignore.seconds", fmt.Sprintf("from 1 to %d (a year)", maxIgnoreSeconds))
		case ig.Count < 0 || ig.Count > maxCount:
			add("ignore.count", fmt.Sprintf("from 1 to %d", maxCount))
		case ig.WindowSeconds < 0 || ig.WindowSeconds > maxIgnoreWindow:
			add("ignore.window_seconds", fmt.Sprintf("from 60 to %d (30 days)", maxIgnoreWindow))
		case ig.WindowSeconds > 0 && ig.WindowSeconds < 60:
			add("ignore.window_seconds", "at least 60")
		case ig.Seconds > 0 && ig.Count > 0:
			add("ignore", "ignore for a time (seconds) or for a number of occurrences (count), not both")
		case ig.WindowSeconds > 0 && ig.Count == 0:
			add("ignore.window_seconds", "only with count")
		}
	}
	if c.Assignee != nil && len(*c.Assignee) > maxAssigneeLength {
		add("assignee", fmt.Sprintf("at most %d bytes", maxAssigneeLength))
	}
	if len(c.Note) > MaxNoteLength {
		add("note", fmt.Sprintf("at most %d bytes", MaxNoteLength))
	}
	return invalidChange(fields)
}

// invalidChange is nil for no fields, or a fault.InvalidRequest (422)
// with every field at fault.
func invalidChange(fields []fault.FieldError) error {
	if len(fields) == 0 {
		return nil
	}
	f := fault.Invalid("The change is invalid.", fields...)
	f.Status = http.StatusUnprocessableEntity
	return f
}

// maxReleaseLength bounds a release's name, as a report's is bounded.
const maxReleaseLength = 200

// ignoreFrom is the condition an IgnoreFor asks for, from now.
func ignoreFrom(f *IgnoreFor, now time.Time) *Ignore {
	ig := &Ignore{}
	if f == nil {
		return ig
	}
	if f.Seconds > 0 {
		ig.Until = now.Add(time.Duration(f.Seconds) * time.Second)
	}
	ig.Count = f.Count
	ig.Window = time.Duration(f.WindowSeconds) * time.Second
	return ig
}

// Occurred is what Occur needs to know of a new occurrence of a record.
type Occurred struct {
	At      time.Time
	Release string
	// InWindow counts the record's occurrences in the ignore condition's
	// window up to this one, included: read only when the record is
	// ignored with a Count and a Window.
	InWindow func(window time.Duration) int
}

// Occur returns w after one more occurrence of its record, and the
// service's transition when the status changed: a resolved record
// regresses unless the occurrence is in the release of the fix or an
// earlier one; an ignored record wakes (unresolved) once its condition
// lapses, and otherwise counts the occurrence against it.
func (w Workflow) Occur(o Occurred, releases Releases) (Workflow, *Transition) {
	next := w
	switch w.Status {
	case StatusResolved:
		if w.Resolution != nil && w.Resolution.InRelease != "" && o.Release != "" &&
			(o.Release == w.Resolution.InRelease || !releases.Later(o.Release, w.Resolution.InRelease)) {
			return w, nil
		}
		next.Status, next.Resolution = StatusRegressed, nil
	case StatusIgnored:
		ig := Ignore{}
		if w.Ignore != nil {
			ig = *w.Ignore
		}
		switch {
		case !ig.Until.IsZero() && !o.At.Before(ig.Until):
		case ig.Count > 0 && ig.Window > 0 && o.InWindow != nil && o.InWindow(ig.Window) >= ig.Count:
		case ig.Count > 0 && ig.Window == 0 && ig.Seen+1 >= ig.Count:
		default:
			if ig.Count > 0 && ig.Window == 0 {
				ig.Seen++
				next.Ignore = &ig
				return next, nil // counted, not a transition
			}
			return w, nil
		}
		next.Status, next.Ignore = StatusUnresolved, nil
	default:
		return w, nil
	}
	next.Changed = o.At
	return next, &Transition{At: o.At, By: ByService, From: w, To: next, Release: o.Release}
}

// StatusAt is w's status at now: an ignored record whose time has
// passed reads as unresolved before its next occurrence wakes it.
func (w Workflow) StatusAt(now time.Time) Status {
	if w.Status == StatusIgnored && w.Ignore != nil && !w.Ignore.Until.IsZero() && !now.Before(w.Ignore.Until) {
		return StatusUnresolved
	}
	if w.Status == "" {
		return StatusUnresolved
	}
	return w.Status
}

// sameWorkflow reports whether a and b say the same (Changed aside).
func sameWorkflow(a, b Workflow) bool {
	return a.Status == b.Status && a.Assignee == b.Assignee && sameCondition(a, b)
}

// sameCondition reports whether a and b have the same resolution and
// ignore condition.
func sameCondition(a, b Workflow) bool {
	ra, rb := a.Resolution, b.Resolution
	if (ra == nil) != (rb == nil) || ra != nil && *ra != *rb {
		return false
	}
	ia, ib := a.Ignore, b.Ignore
	return (ia == nil) == (ib == nil) && (ia == nil || ia.Until.Equal(ib.Until) && ia.Count == ib.Count && ia.Window == ib.Window)
}
