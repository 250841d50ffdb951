package triage_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

var wfNow = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

// releasesOf orders the releases as listed (the first reported first).
func releasesOf(names ...string) triage.Releases {
	idx := func(s string) int {
		if i := slices.Index(names, s); i >= 0 {
			return i
		}
		return len(names) // never seen: after every other
	}
	o := triage.Releases{Later: func(a, b string) bool { return idx(a) > idx(b) }}
	if len(names) > 0 {
		o.Latest = names[len(names)-1]
	}
	return o
}

func ptr[T any](v T) *T { return &v }

// sameWorkflow reports whether a and b say the same, Changed aside.
func sameWorkflow(a, b triage.Workflow) bool {
	a.Changed, b.Changed = time.Time{}, time.Time{}
	return reflect.DeepEqual(a, b)
}

func TestApplyChange(t *testing.T) {
	t.Parallel()
	unresolved := triage.Workflow{Status: triage.StatusUnresolved}
	for _, tc := range []struct {
		name     string
		from     triage.Workflow
		change   triage.Change
		releases triage.Releases
		want     triage.Workflow
		noTrace  bool
	}{
		{name: "resolve now", from: unresolved, change: triage.Change{Status: triage.StatusResolved},
			want: triage.Workflow{Status: triage.StatusResolved, Resolution: &triage.Resolution{}, Changed: wfNow}},
		{name: "resolve in a release", from: unresolved,
			change: triage.Change{Status: triage.StatusResolved, Resolution: &triage.Resolution{InRelease: "1.4.0"}},
			want:   triage.Workflow{Status: triage.StatusResolved, Resolution: &triage.Resolution{InRelease: "1.4.0"}, Changed: wfNow}},
		{name: "resolve in the next release names the latest", from: unresolved, releases: releasesOf("1.2", "1.3"),
			change: triage.Change{Status: triage.StatusResolved, Resolution: &triage.Resolution{InNextRelease: true}},
			want:   triage.Workflow{Status: triage.StatusResolved, Resolution: &triage.Resolution{InRelease: "1.3", InNextRelease: true}, Changed: wfNow}},
		{name: "ignore forever", from: unresolved, change: triage.Change{Status: triage.StatusIgnored},
			want: triage.Workflow{Status: triage.StatusIgnored, Ignore: &triage.Ignore{}, Changed: wfNow}},
		{name: "ignore for an hour", from: unresolved, change: triage.Change{Status: triage.StatusIgnored, Ignore: &triage.IgnoreFor{Seconds: 3600}},
			want: triage.Workflow{Status: triage.StatusIgnored, Ignore: &triage.Ignore{Until: wfNow.Add(time.Hour)}, Changed: wfNow}},
		{name: "ignore until 10 in a day", from: unresolved,
			change: triage.Change{Status: triage.StatusIgnored, Ignore: &triage.IgnoreFor{Count: 10, WindowSeconds: 86400}},
			want:   triage.Workflow{Status: triage.StatusIgnored, Ignore: &triage.Ignore{Count: 10, Window: 24 * time.Hour}, Changed: wfNow}},
		{name: "a regressed record set back to unresolved", from: triage.Workflow{Status: triage.StatusRegressed, Assignee: "ana"},
			change: triage.Change{Status: triage.StatusUnresolved},
			want:   triage.Workflow{Status: triage.StatusUnresolved, Assignee: "ana", Changed: wfNow}},
		{name: "assign only keeps the status and its time", from: triage.Workflow{Status: triage.StatusIgnored, Ignore: &triage.Ignore{}, Changed: wfNow.Add(-time.Hour)},
			change: triage.Change{Assignee: ptr("platform team")},
			want:   triage.Workflow{Status: triage.StatusIgnored, Ignore: &triage.Ignore{}, Assignee: "platform team", Changed: wfNow.Add(-time.Hour)}},
		{name: "resolving again in another release", from: triage.Workflow{Status: triage.StatusResolved, Resolution: &triage.Resolution{InRelease: "1"}},
			change: triage.Change{Status: triage.StatusResolved, Resolution: &triage.Resolution{InRelease: "2"}},
			want:   triage.Workflow{Status: triage.StatusResolved, Resolution: &triage.Resolution{InRelease: "2"}, Changed: wfNow}},
		{name: "asking for what is leaves no trace", from: triage.Workflow{Status: triage.StatusResolved, Resolution: &triage.Resolution{}, Assignee: "ana"},
			change: triage.Change{Status: triage.StatusResolved, Assignee: ptr("ana"), Note: "again"},
			want:   triage.Workflow{Status: triage.StatusResolved, Resolution: &triage.Resolution{}, Assignee: "ana"}, noTrace: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, tr, err := tc.from.Apply(tc.change, "ci-key", wfNow, tc.releases)
			if err != nil {
				t.Fatal(err)
			}
			if !sameWorkflow(got, tc.want) || !got.Changed.Equal(tc.want.Changed) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
			if tc.noTrace {
				if tr != nil {
					t.Errorf("a transition for no change: %+v", tr)
				}
				return
			}
			if tr == nil {
				t.Fatal("no transition")
			}
			if tr.By != "ci-key" || !tr.At.Equal(wfNow) || tr.Note != tc.change.Note || !sameWorkflow(tr.From, tc.from) || !sameWorkflow(tr.To, got) {
				t.Errorf("transition %+v", tr)
			}
		})
	}
}

// Every member at fault is named at once, with 422; resolving in the
// next release before any release is known conflicts (409).
func TestApplyChangeRefuses(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", triage.MaxNoteLength+1)
	for _, tc := range []struct {
		name   string
		change triage.Change
		status int
		fields []string
	}{
		{"nothing asked", triage.Change{Note: "hi"}, 422, []string{"status"}},
		{"regressed is the service's", triage.Change{Status: triage.StatusRegressed}, 422, []string{"status"}},
		{"an unknown status", triage.Change{Status: "closed"}, 422, []string{"status"}},
		{"a resolution without resolved", triage.Change{Status: triage.StatusIgnored, Resolution: &triage.Resolution{InRelease: "1"}}, 422, []string{"resolution"}},
		{"a release and the next", triage.Change{Status: triage.StatusResolved, Resolution: &triage.Resolution{InRelease: "1", InNextRelease: true}}, 422, []string{"resolution"}},
		{"ignore without ignored", triage.Change{Status: triage.StatusResolved, Ignore: &triage.IgnoreFor{Seconds: 60}}, 422, []string{"ignore"}},
		{"a time and a count", triage.Change{Status: triage.StatusIgnored, Ignore: &triage.IgnoreFor{Seconds: 60, Count: 3}}, 422, []string{"ignore"}},
		{"a window without a count", triage.Change{Status: triage.StatusIgnored, Ignore: &triage.IgnoreFor{WindowSeconds: 600}}, 422, []string{"ignore.window_seconds"}},
		{"a negative time", triage.Change{Status: triage.StatusIgnored, Ignore: &triage.IgnoreFor{Seconds: -1}}, 422, []string{"ignore.seconds"}},
		{"a window too short", triage.Change{Status: triage.StatusIgnored, Ignore: &triage.IgnoreFor{Count: 2, WindowSeconds: 5}}, 422, []string{"ignore.window_seconds"}},
		{"several at once", triage.Change{Status: "closed", Note: long, Assignee: ptr(strings.Repeat("a", 201))}, 422, []string{"status", "assignee", "note"}},
		{"the next release of none", triage.Change{Status: triage.StatusResolved, Resolution: &triage.Resolution{InNextRelease: true}}, 409, []string{"resolution.in_next_release"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from := triage.Workflow{Status: triage.StatusUnresolved}
			got, tr, err := from.Apply(tc.change, "k", wfNow, triage.Releases{})
			var f *fault.Error
			if !errors.As(err, &f) {
				t.Fatalf("err = %v, want a fault", err)
			}
			if f.Code != fault.InvalidRequest || f.Status != tc.status {
				t.Errorf("code %s status %d, want INVALID_REQUEST %d", f.Code, f.Status, tc.status)
			}
			var fields []string
			for _, fe := range f.FieldErrors {
				fields = append(fields, fe.Field)
			}
			if !slices.Equal(fields, tc.fields) {
				t.Errorf("fields %v, want %v (%s)", fields, tc.fields, f.Message)
			}
			if tr != nil || !sameWorkflow(got, from) {
				t.Errorf("a refused change changed the record: %+v %+v", got, tr)
			}
		})
	}
}

func TestOccurRegresses(t *testing.T) {
	t.Parallel()
	releases := releasesOf("1.0", "1.1", "1.2")
	resolved := func(r *triage.Resolution) triage.Workflow {
		return triage.Workflow{Status: triage.StatusResolved, Resolution: r, Assignee: "ana", Changed: wfNow.Add(-time.Hour)}
	}
	for _, tc := range []struct {
		name      string
		from      triage.Workflow
		release   string
		regresses bool
	}{
		{"resolved now, any occurrence", resolved(&triage.Resolution{}), "1.0", true},
		{"resolved now, without a release", resolved(nil), "", true},
		{"in 1.1, seen in 1.1", resolved(&triage.Resolution{InRelease: "1.1"}), "1.1", false},
		{"in 1.1, seen in 1.0", resolved(&triage.Resolution{InRelease: "1.1"}), "1.0", false},
		{"in 1.1, seen in 1.2", resolved(&triage.Resolution{InRelease: "1.1"}), "1.2", true},
		{"in 1.1, seen in a release never seen before", resolved(&triage.Resolution{InRelease: "1.1"}), "2.0", true},
		{"in 1.1, seen in no release", resolved(&triage.Resolution{InRelease: "1.1"}), "", true},
		{"next after 1.2, seen in 1.2", resolved(&triage.Resolution{InRelease: "1.2", InNextRelease: true}), "1.2", false},
		{"next after 1.2, seen in 1.3", resolved(&triage.Resolution{InRelease: "1.2", InNextRelease: true}), "1.3", true},
		{"unresolved stays", triage.Workflow{Status: triage.StatusUnresolved}, "1.2", false},
		{"regressed stays", triage.Workflow{Status: triage.StatusRegressed}, "1.2", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, tr := tc.from.Occur(triage.Occurred{At: wfNow, Release: tc.release}, releases)
			if !tc.regresses {
				if tr != nil || !sameWorkflow(got, tc.from) {
					t.Errorf("changed: %+v %+v", got, tr)
				}
				return
			}
			want := triage.Workflow{Status: triage.StatusRegressed, Assignee: "ana", Changed: wfNow}
			if !sameWorkflow(got, want) || !got.Changed.Equal(wfNow) {
				t.Errorf("got %+v, want %+v", got, want)
			}
			if tr == nil || tr.By != triage.ByService || tr.Release != tc.release || tr.From.Status != triage.StatusResolved || tr.To.Status != triage.StatusRegressed {
				t.Errorf("transition %+v", tr)
			}
		})
	}
}

// An ignored record counts its occurrences and wakes, unresolved, once its
// condition lapses: a time, N more occurrences, or N in a window.
func TestOccurWakesIgnored(t *testing.T) {
	t.Parallel()
	none := triage.Releases{Later: func(a, b string) bool { return false }}
	ignored := func(ig triage.Ignore) triage.Workflow {
		return triage.Workflow{Status: triage.StatusIgnored, Ignore: &ig}
	}

	t.Run("forever", func(t *testing.T) {
		w := ignored(triage.Ignore{})
		for range 1000 {
			var tr *triage.Transition
			if w, tr = w.Occur(triage.Occurred{At: wfNow}, none); tr != nil {
				t.Fatalf("woke: %+v", tr)
			}
		}
	})
	t.Run("for a time", func(t *testing.T) {
		w := ignored(triage.Ignore{Until: wfNow.Add(time.Hour)})
		if _, tr := w.Occur(triage.Occurred{At: wfNow.Add(59 * time.Minute)}, none); tr != nil {
			t.Fatalf("woke early: %+v", tr)
		}
		if got := w.StatusAt(wfNow.Add(time.Hour)); got != triage.StatusUnresolved {
			t.Errorf("an hour later it reads %s, want unresolved", got)
		}
		got, tr := w.Occur(triage.Occurred{At: wfNow.Add(time.Hour)}, none)
		if tr == nil || got.Status != triage.StatusUnresolved || got.Ignore != nil || tr.By != triage.ByService {
			t.Errorf("did not wake: %+v %+v", got, tr)
		}
	})
	t.Run("three more times", func(t *testing.T) {
		w := ignored(triage.Ignore{Count: 3})
		var tr *triage.Transition
		for i := 1; i <= 2; i++ {
			if w, tr = w.Occur(triage.Occurred{At: wfNow}, none); tr != nil || w.Ignore.Seen != i {
				t.Fatalf("occurrence %d: %+v %+v", i, w, tr)
			}
		}
		if w, tr = w.Occur(triage.Occurred{At: wfNow}, none); tr == nil || w.Status != triage.StatusUnresolved {
			t.Errorf("the third did not wake it: %+v", w)
		}
	})
	t.Run("five in an hour", func(t *testing.T) {
		w := ignored(triage.Ignore{Count: 5, Window: time.Hour})
		var asked time.Duration
		n := 0
		count := func(d time.Duration) int { asked = d; return n }
		for n = 1; n < 5; n++ {
			if _, tr := w.Occur(triage.Occurred{At: wfNow, InWindow: count}, none); tr != nil {
				t.Fatalf("woke at %d in the window", n)
			}
		}
		got, tr := w.Occur(triage.Occurred{At: wfNow, InWindow: count}, none)
		if tr == nil || got.Status != triage.StatusUnresolved {
			t.Errorf("5 in the window did not wake it: %+v", got)
		}
		if asked != time.Hour {
			t.Errorf("counted over %v, want the window", asked)
		}
	})
}
