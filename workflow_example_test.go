package triage_test

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

// A record resolved in release 1.4 stays resolved when an older release
// reports it again, and regresses when a later one does.
func ExampleWorkflow_Occur() {
	seen := []string{"1.3", "1.4", "1.5"} // the tenant's releases, first reported first
	releases := triage.Releases{
		Later:  func(a, b string) bool { return slices.Index(seen, a) > slices.Index(seen, b) },
		Latest: "1.5",
	}
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	w := triage.Workflow{Status: triage.StatusUnresolved}
	w, _, err := w.Apply(triage.Change{Status: triage.StatusResolved, Resolution: &triage.Resolution{InRelease: "1.4"}}, "ana", now, releases)
	if err != nil {
		panic(err)
	}
	for _, release := range []string{"1.3", "1.5"} {
		var tr *triage.Transition
		w, tr = w.Occur(triage.Occurred{At: now.Add(time.Hour), Release: release}, releases)
		fmt.Printf("seen in %s: %s", release, w.Status)
		if tr != nil {
			fmt.Printf(" (by %s, from %s)", tr.By, tr.From.Status)
		}
		fmt.Println()
	}
	// Output:
	// seen in 1.3: resolved
	// seen in 1.5: regressed (by triage, from resolved)
}

// A change that is not valid names every member at fault.
func ExampleWorkflow_Apply() {
	w := triage.Workflow{Status: triage.StatusUnresolved}
	_, _, err := w.Apply(triage.Change{Status: triage.StatusIgnored, Ignore: &triage.IgnoreFor{Seconds: 60, Count: 3}}, "ana", time.Now(), triage.Releases{})
	var f *fault.Error
	if errors.As(err, &f) {
		fmt.Println(f.Code, f.Status)
		for _, fe := range f.FieldErrors {
			fmt.Printf("%s: %s\n", fe.Field, fe.Message)
		}
	}
	// Output:
	// INVALID_REQUEST 422
	// ignore: ignore for a time (seconds) or for a number of occurrences (count), not both
}
