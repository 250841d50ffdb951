package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// occurrenceIDs returns the IDs of occurrences.
func occurrenceIDs(list []store.Occurrence) []int64 {
	var ids []int64
	for _, o := range list {
		ids = append(ids, o.ID)
	}
	return ids
}

// occurrences returns a page of an error's occurrences, failing the test
// when the error is not found.
func occurrences(t *testing.T, tn store.Records, errorID string, f store.OccurrenceFilter) store.OccurrencePage {
	t.Helper()
	p, ok, err := tn.Occurrences(t.Context(), errorID, f)
	must(t, err)
	if !ok {
		t.Fatalf("Occurrences(%q): not found", errorID)
	}
	return p
}

// pageThrough reads every page of an error's occurrences from f on,
// checking each page against f's bounds, and returns the occurrences and
// the number of pages.
func pageThrough(t *testing.T, tn store.Records, errorID string, f store.OccurrenceFilter) ([]store.Occurrence, int) {
	t.Helper()
	var all []store.Occurrence
	for pages := 1; ; pages++ {
		p := occurrences(t, tn, errorID, f)
		if len(p.Occurrences) == 0 {
			t.Fatalf("page %d (cursor %q) is empty", pages, f.Cursor)
		}
		if f.Limit > 0 && len(p.Occurrences) > f.Limit {
			t.Fatalf("page %d: %d occurrences over the limit %d", pages, len(p.Occurrences), f.Limit)
		}
		var size int64
		for _, o := range p.Occurrences {
			size += int64(len(o.Report) + len(o.Feedback) + len(o.Actions))
		}
		if f.MaxBytes > 0 && len(p.Occurrences) > 1 && size > f.MaxBytes {
			t.Fatalf("page %d: %d bytes of documents over MaxBytes %d", pages, size, f.MaxBytes)
		}
		all = append(all, p.Occurrences...)
		if p.Next == "" {
			return all, pages
		}
		if pages > 1000 {
			t.Fatal("more than 1,000 pages")
		}
		f.Cursor = p.Next
	}
}

// bigOccurrence is an occurrence whose report holds size bytes of text.
func bigOccurrence(key, errorID string, at time.Time, size int) store.Occurrence {
	o := newOccurrence(key, errorID, at)
	o.Report = json.RawMessage(fmt.Sprintf(`{"agent_id": "sql_agent", "data": {"message": %q}}`, strings.Repeat("x", size)))
	return o
}

var pageTests = []test{
	{"OccurrencesByPage", func(t *testing.T, e *env) {
		a := e.s.Tenant("a")
		var want []int64 // the latest first
		for i := range 45 {
			at := e.clock.Now()
			if i <= 10 || i > 15 { // 10 to 15 are received at one instant
				at = e.clock.Advance(time.Second)
			}
			want = append(want, save(t, a, newOccurrence(fmt.Sprint("d", i), "e1", at)))
			if i%10 == 0 {
				save(t, a, newOccurrence(fmt.Sprint("other", i), "e2", at))
				save(t, e.s.Tenant("b"), newOccurrence(fmt.Sprint("d", i), "e1", at))
			}
		}
		// The latest received first; among those received at one instant,
		// the latest saved first.
		all, _ := pageThrough(t, a, "e1", store.OccurrenceFilter{Limit: 100})
		if got := occurrenceIDs(all); len(got) != 45 {
			t.Fatalf("%d occurrences, want 45", len(got))
		}
		for i := 1; i < len(all); i++ {
			p, o := all[i-1], all[i]
			if o.ReceivedAt.After(p.ReceivedAt) || (o.ReceivedAt.Equal(p.ReceivedAt) && o.ID > p.ID) {
				t.Fatalf("occurrence %d (%d at %v) after %d at %v", i, o.ID, o.ReceivedAt, p.ID, p.ReceivedAt)
			}
		}
		order := occurrenceIDs(all)
		if !slices.Equal(slices.Sorted(slices.Values(order)), slices.Sorted(slices.Values(want))) {
			t.Fatalf("occurrences %v, want those saved, %v", order, want)
		}
		for _, size := range []int{1, 2, 7, 20, 44, 45} {
			got, pages := pageThrough(t, a, "e1", store.OccurrenceFilter{Limit: size})
			if !slices.Equal(occurrenceIDs(got), order) || pages != (45+size-1)/size {
				t.Errorf("limit %d: %d pages of %v, want %d of %v", size, pages, occurrenceIDs(got), (45+size-1)/size, order)
			}
		}
		for _, c := range []struct{ limit, want int }{
			{0, store.DefaultOccurrenceLimit}, {-1, store.DefaultOccurrenceLimit}, {1000, 45},
		} {
			if p := occurrences(t, a, "e1", store.OccurrenceFilter{Limit: c.limit}); len(p.Occurrences) != c.want {
				t.Errorf("limit %d: %d occurrences, want %d", c.limit, len(p.Occurrences), c.want)
			}
		}
		// The record has the first page, and the cursor of the next.
		r := record(t, a, "e1")
		if got := occurrenceIDs(r.Occurrences); !slices.Equal(got, order[:store.DefaultOccurrenceLimit]) || r.OccurrencesNext == "" {
			t.Fatalf("the record's occurrences %v, next %q; want %v and a cursor", got, r.OccurrencesNext, order[:store.DefaultOccurrenceLimit])
		}
		rest, _ := pageThrough(t, a, "e1", store.OccurrenceFilter{Cursor: r.OccurrencesNext})
		if got := occurrenceIDs(rest); !slices.Equal(got, order[store.DefaultOccurrenceLimit:]) {
			t.Errorf("after the record's page: %v, want %v", got, order[store.DefaultOccurrenceLimit:])
		}
		checkOccurrence(t, r.Occurrences[0], newOccurrence("d44", "e1", r.Occurrences[0].ReceivedAt))
		// A record of few occurrences has them all, and no cursor.
		if r := record(t, a, "e2"); len(r.Occurrences) != 5 || r.OccurrencesNext != "" {
			t.Errorf("record e2: %d occurrences, next %q; want 5 and none", len(r.Occurrences), r.OccurrencesNext)
		}
	}},
	{"OccurrencesWithinBytes", func(t *testing.T, e *env) {
		a := e.s.Tenant("a")
		const size = 100 << 10
		for i := range 10 {
			save(t, a, bigOccurrence(fmt.Sprint("d", i), "e1", e.clock.Advance(time.Second), size))
		}
		all, pages := pageThrough(t, a, "e1", store.OccurrenceFilter{MaxBytes: 3*size + 3000})
		if len(all) != 10 || pages != 4 {
			t.Errorf("%d occurrences in %d pages, want 10 in 4 (3 of ~100 KiB in 300 KiB)", len(all), pages)
		}
		// A page always has one occurrence, whatever its size.
		all, pages = pageThrough(t, a, "e1", store.OccurrenceFilter{MaxBytes: 1})
		if len(all) != 10 || pages != 10 {
			t.Errorf("MaxBytes 1: %d occurrences in %d pages, want 10 in 10", len(all), pages)
		}
	}},
	{"RecordWithinBytes", func(t *testing.T, e *env) {
		a := e.s.Tenant("a")
		const size = 1 << 20
		for i := range 6 {
			save(t, a, bigOccurrence(fmt.Sprint("d", i), "e1", e.clock.Advance(time.Second), size))
		}
		r := record(t, a, "e1")
		total := int64(len(r.Report) + len(r.Feedback))
		for _, o := range r.Occurrences {
			total += int64(len(o.Report) + len(o.Feedback) + len(o.Actions))
		}
		// The record's own report and feedback count: 1 MiB of it, then
		// 2 of its occurrences fit in 4 MiB, not 3.
		if len(r.Occurrences) != 2 || r.OccurrencesNext == "" || total > store.PageBytes {
			t.Errorf("record of 6 occurrences of 1 MiB: %d occurrences, %d bytes of documents, next %q; want 2, at most %d, a cursor",
				len(r.Occurrences), total, r.OccurrencesNext, store.PageBytes)
		}
		rest, _ := pageThrough(t, a, "e1", store.OccurrenceFilter{Cursor: r.OccurrencesNext, MaxBytes: store.PageBytes})
		if len(rest) != 4 {
			t.Errorf("after the record's page: %d occurrences, want 4", len(rest))
		}
	}},
	{"OccurrencesNotFound", func(t *testing.T, e *env) {
		a := e.s.Tenant("a")
		saveErrors(t, e, a, "e1", "e2")
		for _, c := range []struct{ tenant, errorID string }{{"a", "nope"}, {"b", "e1"}} {
			if p, ok, err := e.s.Tenant(c.tenant).Occurrences(t.Context(), c.errorID, store.OccurrenceFilter{}); err != nil || ok {
				t.Errorf("tenant %s: Occurrences(%s) = %+v, %v, %v; want not found", c.tenant, c.errorID, p, ok, err)
			}
		}
		listCursor := list(t, a, store.Filter{Limit: 1}).Next
		for _, c := range []string{"garbage!", "%%%", "b2NjOnRlbg" /* "occ:ten" */, listCursor} {
			if _, _, err := a.Occurrences(t.Context(), "e1", store.OccurrenceFilter{Cursor: c}); !errors.Is(err, store.ErrBadCursor) {
				t.Errorf("Occurrences(cursor %q) error = %v, want ErrBadCursor", c, err)
			}
		}
		if r := record(t, a, "e1"); r.OccurrencesNext != "" {
			t.Error("a record of one occurrence has a next page")
		}
		save(t, a, newOccurrence("d-e1-again", "e1", e.clock.Advance(time.Minute)))
		cursor := occurrences(t, a, "e1", store.OccurrenceFilter{Limit: 1}).Next
		if _, err := a.ErrorRecords(t.Context(), store.Filter{Cursor: cursor}); !errors.Is(err, store.ErrBadCursor) {
			t.Errorf("ErrorRecords(an occurrences' cursor %q) error = %v, want ErrBadCursor", cursor, err)
		}
	}},
	{"RecordHasItsLatestJobs", func(t *testing.T, e *env) {
		a := e.s.Tenant("a")
		save(t, a, newOccurrence("d1", "e1", Epoch))
		save(t, a, newOccurrence("d2", "e2", Epoch))
		var ids []int64
		for i := range store.RecordJobs + 5 {
			ids = append(ids, enqueue(t, a, store.NewJob{Kind: store.JobRetry, ErrorID: "e1", Payload: json.RawMessage(fmt.Sprintf(`{"n": %d}`, i))}))
		}
		e2 := enqueue(t, a, store.NewJob{Kind: store.JobRetry, ErrorID: "e2"})
		// Every job fails once, to be retried in an hour: each listed
		// job has its attempt.
		stop := work(t, e.s, failing(errors.New("boom")), store.WorkOptions{BackoffBase: time.Hour})
		for _, id := range ids[5:] {
			waitState(t, a, "e1", id, store.JobRetryable)
		}
		waitState(t, a, "e2", e2, store.JobRetryable)
		stop()
		r := record(t, a, "e1")
		var got []int64
		for _, j := range r.Jobs {
			got = append(got, j.ID)
			if len(j.Attempts) != 1 || j.Attempts[0].Error != "boom" {
				t.Errorf("job %d: attempts %+v, want its one", j.ID, j.Attempts)
			}
		}
		if want := ids[5:]; !slices.Equal(got, want) || !r.MoreJobs {
			t.Errorf("jobs %v, more %v; want the latest %d, %v, and more", got, r.MoreJobs, store.RecordJobs, want)
		}
		if r := record(t, a, "e2"); r.MoreJobs || r.JobsNext != "" {
			t.Error("a record of no job: more jobs")
		}
		// Its JobsNext continues with the older jobs, the latest first,
		// to the first; then no cursor.
		if r.JobsNext == "" {
			t.Fatal("a record with more jobs has no JobsNext")
		}
		var older []int64
		cursor := r.JobsNext
		for pages := 0; cursor != ""; pages++ {
			if pages > 3 {
				t.Fatalf("more pages than 5 jobs in 2 a page make: %v", older)
			}
			p, ok, err := a.ErrorJobs(t.Context(), "e1", store.JobFilter{Limit: 2, Cursor: cursor})
			must(t, err)
			if !ok || len(p.Jobs) == 0 || len(p.Jobs) > 2 {
				t.Fatalf("ErrorJobs(%q) = %+v, %v; want a page of 1 or 2", cursor, p, ok)
			}
			for _, j := range p.Jobs {
				older = append(older, j.ID)
				if j.ErrorID != "e1" || j.Tenant != "a" {
					t.Errorf("job %+v: not e1's", j)
				}
			}
			cursor = p.Next
		}
		want := slices.Clone(ids[:5])
		slices.Reverse(want)
		if !slices.Equal(older, want) {
			t.Errorf("older jobs %v; want %v, the latest first", older, want)
		}
		// Without a cursor: the latest first, as many as asked; the
		// first page is the record's, in the other order.
		p, ok, err := a.ErrorJobs(t.Context(), "e1", store.JobFilter{})
		must(t, err)
		latest := slices.Clone(ids[5:])
		slices.Reverse(latest)
		var first []int64
		for _, j := range p.Jobs {
			first = append(first, j.ID)
		}
		if !ok || !slices.Equal(first, latest) || p.Next != r.JobsNext {
			t.Errorf("ErrorJobs(first page) = %v, next %q; want %v, next %q", first, p.Next, latest, r.JobsNext)
		}
		// Another tenant, an unknown error, a cursor of another kind.
		if _, ok, err := e.s.Tenant("b").ErrorJobs(t.Context(), "e1", store.JobFilter{}); ok || err != nil {
			t.Errorf("another tenant's ErrorJobs(e1) = %v, %v; want not found", ok, err)
		}
		if p, ok, err := a.ErrorJobs(t.Context(), "e2", store.JobFilter{}); !ok || err != nil || len(p.Jobs) != 1 || p.Next != "" {
			t.Errorf("ErrorJobs(e2) = %+v, %v, %v; want its one job", p, ok, err)
		}
		if _, ok, _ := a.ErrorJobs(t.Context(), "nope", store.JobFilter{}); ok {
			t.Error("ErrorJobs of an unknown error: found")
		}
		listCursor := list(t, a, store.Filter{Limit: 1}).Next
		for _, c := range []string{"garbage!", listCursor, occurrences(t, a, "e1", store.OccurrenceFilter{}).Next + "x"} {
			if _, _, err := a.ErrorJobs(t.Context(), "e1", store.JobFilter{Cursor: c}); !errors.Is(err, store.ErrBadCursor) {
				t.Errorf("ErrorJobs(cursor %q) error = %v, want ErrBadCursor", c, err)
			}
		}
	}},
}
