package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// series is the Counts of c by key.
func series(c store.Counts) map[string][]int64 {
	m := map[string][]int64{}
	for _, s := range c.Series {
		m[s.Key] = s.Counts
	}
	return m
}

func counts(t *testing.T, tn store.Trends, f store.CountFilter) store.Counts {
	t.Helper()
	c, err := tn.Counts(t.Context(), f)
	must(t, err)
	return c
}

var countTests = []test{
	{"ByHour", func(t *testing.T, e *env) {
		a := e.s.Tenant("a")
		hour := Epoch.Truncate(time.Hour) // Epoch is 15:09:26
		at := func(h int, m time.Duration) time.Time { return hour.Add(time.Duration(h)*time.Hour + m) }
		for _, o := range []store.Occurrence{
			titled("d1", "e1", "planner", "TIMEOUT", "", at(-2, 5*time.Minute)),
			titled("d2", "e1", "planner", "TIMEOUT", "", at(-2, 59*time.Minute)),
			titled("d3", "e1", "planner", "TIMEOUT", "", at(0, 0)),
			titled("d4", "e2", "planner", "DRIFT", "", at(0, time.Minute)),
			titled("d5", "e3", "sql_agent", "TIMEOUT", "", at(-1, 30*time.Minute)),
			titled("d6", "e3", "sql_agent", "TIMEOUT", "", at(0, 2*time.Minute)),
			titled("d7", "e3", "sql_agent", "TIMEOUT", "", at(0, 3*time.Minute)),
		} {
			save(t, a, o)
		}
		save(t, e.s.Tenant("b"), titled("d1", "e1", "planner", "TIMEOUT", "", at(0, 0))) // another tenant's
		f := store.CountFilter{Since: at(-2, 0), Until: at(0, 30*time.Minute)}
		c := counts(t, a, f)
		if !c.Since.Equal(at(-2, 0)) || !c.Until.Equal(at(1, 0)) || c.Bucket != "hour" || c.By != store.CountByRecord {
			t.Errorf("range %v to %v by %s, %s; want %v to %v by hour, record", c.Since, c.Until, c.Bucket, c.By, at(-2, 0), at(1, 0))
		}
		want := map[string][]int64{"e1": {2, 0, 1}, "e2": {0, 0, 1}, "e3": {0, 1, 2}}
		if got := series(c); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("by record: %v, want %v", got, want)
		}
		if keys := []string{c.Series[0].Key, c.Series[1].Key, c.Series[2].Key}; !slices.Equal(keys, []string{"e1", "e3", "e2"}) ||
			c.Series[0].Total != 3 {
			t.Errorf("series %v (e1's total %d), want e1, e3, e2, the most first, then by key", keys, c.Series[0].Total)
		}
		f.By = store.CountByAgent
		if got, want := series(counts(t, a, f)), map[string][]int64{"planner": {2, 0, 2}, "sql_agent": {0, 1, 2}}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("by agent: %v, want %v", got, want)
		}
		f.By = store.CountByCode
		if got, want := series(counts(t, a, f)), map[string][]int64{"TIMEOUT": {2, 1, 3}, "DRIFT": {0, 0, 1}}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("by code: %v, want %v", got, want)
		}
		f.By, f.Limit = store.CountByRecord, 1
		if got := series(counts(t, a, f)); len(got) != 1 || got["e1"] == nil {
			t.Errorf("the top series: %v, want e1's", got)
		}
		f.Limit, f.ErrorIDs = 0, []string{"e2", "nope"}
		if got := series(counts(t, a, f)); fmt.Sprint(got) != fmt.Sprint(map[string][]int64{"e2": {0, 0, 1}}) {
			t.Errorf("e2's series: %v", got)
		}
		rc, ok, err := a.RecordCounts(t.Context(), "e3", store.CountFilter{Since: at(-2, 0), Until: at(0, 30*time.Minute)})
		must(t, err)
		if !ok || len(rc.Series) != 1 || !slices.Equal(rc.Series[0].Counts, []int64{0, 1, 2}) || rc.Series[0].Total != 3 {
			t.Errorf("RecordCounts(e3) = %+v, %t", rc, ok)
		}
		// A record without occurrences in the range: zeros.
		rc, ok, err = a.RecordCounts(t.Context(), "e2", store.CountFilter{Since: at(-5, 0), Until: at(-3, 0)})
		must(t, err)
		if !ok || len(rc.Series) != 1 || !slices.Equal(rc.Series[0].Counts, []int64{0, 0}) {
			t.Errorf("RecordCounts(e2) before it was seen = %+v, %t", rc, ok)
		}
		if _, ok, err := e.s.Tenant("b").RecordCounts(t.Context(), "e3", store.CountFilter{}); err != nil || ok {
			t.Errorf("another tenant's record: %t, %v", ok, err)
		}
		// The default range: the day up to now.
		if c := counts(t, a, store.CountFilter{}); len(c.Series) != 3 || len(c.Series[0].Counts) != 25 {
			t.Errorf("the default range: %d series of %d buckets, want 3 of 25", len(c.Series), len(c.Series[0].Counts))
		}
		if c := counts(t, e.s.Tenant("b"), store.CountFilter{By: store.CountByAgent}); len(c.Series) != 1 || c.Series[0].Total != 1 {
			t.Errorf("tenant b: %+v, want its one occurrence", c.Series)
		}
	}},
	{"ByDay", func(t *testing.T, e *env) {
		a := e.s.Tenant("a")
		day := Epoch.Truncate(24 * time.Hour)
		save(t, a, newOccurrence("d1", "e1", day.Add(-47*time.Hour)))
		save(t, a, newOccurrence("d2", "e1", day.Add(-25*time.Hour)))
		save(t, a, newOccurrence("d3", "e1", day.Add(-time.Hour)))
		save(t, a, newOccurrence("d4", "e1", day.Add(time.Hour)))
		c := counts(t, a, store.CountFilter{Bucket: 24 * time.Hour, Since: day.Add(-48 * time.Hour), Until: day.Add(time.Hour)})
		if c.Bucket != "day" || !slices.Equal(c.Series[0].Counts, []int64{2, 1, 1}) || !c.Until.Equal(day.Add(24*time.Hour)) {
			t.Errorf("by day: %s %v to %v", c.Bucket, c.Series[0].Counts, c.Until)
		}
	}},
	{"Ranges", func(t *testing.T, e *env) {
		a := e.s.Tenant("a")
		for _, f := range []store.CountFilter{
			{Since: Epoch, Until: Epoch.Add(-time.Hour)},
			{Since: Epoch.Add(-32 * 24 * time.Hour), Until: Epoch},
			{Bucket: 24 * time.Hour, Since: Epoch.Add(-800 * 24 * time.Hour), Until: Epoch},
		} {
			if _, err := a.Counts(t.Context(), f); !errors.Is(err, store.ErrCountRange) {
				t.Errorf("Counts(%v to %v): %v, want ErrCountRange", f.Since, f.Until, err)
			}
		}
	}},
	{"Retention", func(t *testing.T, e *env) {
		a := e.s.Tenant("a")
		save(t, a, newOccurrence("d1", "e1", e.clock.Now()))
		save(t, a, newOccurrence("d2", "e2", e.clock.Now()))
		e.clock.Advance(2 * time.Hour)
		save(t, a, newOccurrence("d3", "e1", e.clock.Now()))
		f := store.CountFilter{Since: e.clock.Now().Add(-3 * time.Hour)}
		if c := counts(t, a, f); len(c.Series) != 2 || c.Series[0].Total != 2 {
			t.Fatalf("before Expire: %+v", c.Series)
		}
		n, err := e.s.Expire(t.Context(), store.Retention{Counts: time.Hour})
		must(t, err)
		if n != 2 { // the two rows of the first hour (the deliveries are younger than their retention)
			t.Errorf("Expire deleted %d rows, want 2", n)
		}
		c := counts(t, a, f)
		if got := series(c); len(got) != 1 || !slices.Equal(got["e1"], []int64{0, 0, 0, 1}) {
			t.Errorf("after Expire: %v, want e1's latest hour", got)
		}
		// The records keep their counts.
		if r := record(t, a, "e1"); r.Count != 2 {
			t.Errorf("e1's count after Expire: %d, want 2", r.Count)
		}
	}},
}
