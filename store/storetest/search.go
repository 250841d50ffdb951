package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// titled is an occurrence of errorID by agent with code and title.
func titled(key, errorID, agent, code, title string, at time.Time) store.Occurrence {
	o := newOccurrence(key, errorID, at)
	o.AgentID, o.Code, o.Title = agent, code, title
	return o
}

// pageAll lists every page of f, checking that each page's Total is the
// same and that no record is listed twice, and returns the error ids.
func pageAll(t *testing.T, tn store.Records, f store.Filter) ([]string, int) {
	t.Helper()
	var ids []string
	total := -1
	for pages := 0; ; pages++ {
		p := list(t, tn, f)
		if total >= 0 && p.Total != total {
			t.Fatalf("page %d: total %d, the first page's %d", pages, p.Total, total)
		}
		total = p.Total
		for _, id := range listed(p) {
			if slices.Contains(ids, id) {
				t.Fatalf("%s listed twice (%+v)", id, f)
			}
			ids = append(ids, id)
		}
		if p.Next == "" {
			return ids, total
		}
		if pages > 100 {
			t.Fatal("more than 100 pages")
		}
		f.Cursor = p.Next
	}
}

var searchTests = []test{
	{"Title", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		save(t, tn, titled("d1", "e1", "planner", "DB_TIMEOUT", "DB_TIMEOUT: query timed out", e.clock.Advance(time.Minute)))
		save(t, tn, newOccurrence("d2", "old", e.clock.Advance(time.Minute))) // saved without a title
		// The latest occurrence's title is the record's.
		save(t, tn, titled("d3", "e1", "planner", "DB_TIMEOUT", "DB_TIMEOUT: query timed out after 30s", e.clock.Advance(time.Minute)))
		// An occurrence received before the latest leaves it.
		save(t, tn, titled("d4", "e1", "planner", "DB_TIMEOUT", "DB_TIMEOUT: late", e.clock.Now().Add(-time.Hour)))
		p := list(t, tn, store.Filter{})
		got := map[string]store.RecordSummary{}
		for _, r := range p.Records {
			got[r.ErrorID] = r
		}
		if r := got["e1"]; r.Title != "DB_TIMEOUT: query timed out after 30s" || r.Code != "DB_TIMEOUT" {
			t.Errorf("e1: title %q, code %q; want the latest occurrence's", r.Title, r.Code)
		}
		if r := got["old"]; r.Title != "schema_error" || r.Code != "" {
			t.Errorf("a record without a title: title %q, code %q; want its error type", r.Title, r.Code)
		}
		if r := record(t, tn, "e1"); r.Title != got["e1"].Title {
			t.Errorf("ErrorRecord's title %q, the listing's %q", r.Title, got["e1"].Title)
		}
	}},
	{"Search", func(t *testing.T, e *env) {
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		save(t, a, titled("d1", "e1", "planner-v2", "DB_TIMEOUT", "DB_TIMEOUT: query timed out", e.clock.Advance(time.Minute)))
		save(t, a, titled("d2", "e2", "sql_agent", "SCHEMA_DRIFT", "SCHEMA_DRIFT: column product_id is missing", e.clock.Advance(time.Minute)))
		save(t, a, titled("d3", "e3", "planner-v2", "", "Straße gesperrt: Zeitüberschreitung", e.clock.Advance(time.Minute)))
		save(t, b, titled("d1", "e9", "planner-v2", "DB_TIMEOUT", "DB_TIMEOUT: query timed out", e.clock.Advance(time.Minute)))
		// e2 is reported again with another message: the old words no
		// longer find it.
		save(t, a, titled("d4", "e2", "sql_agent", "SCHEMA_DRIFT", "SCHEMA_DRIFT: column sku is missing", e.clock.Advance(time.Minute)))
		for _, c := range []struct {
			f    store.Filter
			want []string
		}{
			{store.Filter{Search: "timed"}, []string{"e1"}},
			{store.Filter{Search: "TIMED OUT"}, []string{"e1"}},
			{store.Filter{Search: "db_timeout"}, []string{"e1"}},
			{store.Filter{Search: "plan"}, []string{"e3", "e1"}},       // a prefix of the agent
			{store.Filter{Search: "planner-v2"}, []string{"e3", "e1"}}, // its words
			{store.Filter{Search: "q-e2"}, []string{"e2"}},             // the query
			{store.Filter{Search: "missing"}, []string{"e2"}},
			{store.Filter{Search: "product_id"}, nil},
			{store.Filter{Search: "sku"}, []string{"e2"}},
			{store.Filter{Search: "straße zeitüb"}, []string{"e3"}},
			{store.Filter{Search: "timed", AgentID: "sql_agent"}, nil},
			{store.Filter{Search: "plan", Since: e.clock.Now().Add(-3*time.Minute + 1)}, []string{"e3"}},
			{store.Filter{Search: "timed missing"}, nil}, // every term
			{store.Filter{Search: "plan", Sort: store.SortCount}, []string{"e3", "e1"}},
			{store.Filter{Search: "plan sku", Sort: store.SortCount, Window: time.Hour}, nil},
			{store.Filter{Search: "sql", Sort: store.SortCount, Window: time.Hour}, []string{"e2"}},
			{store.Filter{Search: "plan", Sort: store.SortFirstSeen}, []string{"e3", "e1"}},
			// What a full-text syntax would read is text here.
			{store.Filter{Search: `"timed" OR * NEAR(x) -missing ^col:`}, nil},
			{store.Filter{Search: `"timed`}, []string{"e1"}},
			{store.Filter{Search: `timed*`}, []string{"e1"}},
		} {
			p := list(t, a, c.f)
			if got := listed(p); !slices.Equal(got, c.want) || p.Total != len(c.want) {
				t.Errorf("search %+v = %q (total %d), want %q", c.f, got, p.Total, c.want)
			}
		}
		// A search's pages, in each sort.
		for _, sort := range []string{store.SortLastSeen, store.SortFirstSeen, store.SortCount} {
			if got, total := pageAll(t, a, store.Filter{Search: "plan", Sort: sort, Limit: 1}); !slices.Equal(got, []string{"e3", "e1"}) || total != 2 {
				t.Errorf("search plan, sort %s, pages of 1: %q (total %d)", sort, got, total)
			}
		}
		for _, q := range []string{"-", `" * ( ) :`, string(make([]byte, store.MaxSearchBytes+1)), "a b c d e f g h i", "\xff"} {
			_, err := a.ErrorRecords(t.Context(), store.Filter{Search: q})
			if !errors.Is(err, store.ErrBadSearch) {
				t.Errorf("search %q: %v, want ErrBadSearch", q, err)
			}
		}
	}},
	{"Sorts", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		// e1..e5 created a minute apart; e2 seen 4 more times, e4 twice
		// more, e1 once more, last.
		saveErrors(t, e, tn, "e1", "e2", "e3", "e4", "e5")
		for i := range 4 {
			save(t, tn, newOccurrence(fmt.Sprint("d-e2-", i), "e2", e.clock.Advance(time.Minute)))
		}
		for i := range 2 {
			save(t, tn, newOccurrence(fmt.Sprint("d-e4-", i), "e4", e.clock.Advance(time.Minute)))
		}
		save(t, tn, newOccurrence("d-e1-again", "e1", e.clock.Advance(time.Minute)))
		save(t, e.s.Tenant("b"), newOccurrence("d-b", "e2", e.clock.Now())) // another tenant's
		for _, c := range []struct {
			sort string
			want []string
		}{
			{"", []string{"e1", "e4", "e2", "e5", "e3"}},
			{store.SortLastSeen, []string{"e1", "e4", "e2", "e5", "e3"}},
			{store.SortFirstSeen, []string{"e5", "e4", "e3", "e2", "e1"}},
			{store.SortCount, []string{"e2", "e4", "e1", "e5", "e3"}},
		} {
			for _, limit := range []int{0, 1, 2} {
				got, total := pageAll(t, tn, store.Filter{Sort: c.sort, Limit: limit})
				if !slices.Equal(got, c.want) || total != 5 {
					t.Errorf("sort %q, pages of %d: %q (total %d), want %q (5)", c.sort, limit, got, total, c.want)
				}
			}
		}
		// A cursor is its sort's.
		p := list(t, tn, store.Filter{Sort: store.SortCount, Limit: 1})
		for _, sort := range []string{store.SortLastSeen, store.SortFirstSeen} {
			if _, err := tn.ErrorRecords(t.Context(), store.Filter{Sort: sort, Cursor: p.Next}); !errors.Is(err, store.ErrBadCursor) {
				t.Errorf("a count cursor with sort %q: %v, want ErrBadCursor", sort, err)
			}
		}
		if _, err := tn.ErrorRecords(t.Context(), store.Filter{Sort: store.SortCount, Window: time.Hour, Cursor: p.Next}); !errors.Is(err, store.ErrBadCursor) {
			t.Errorf("a count cursor with a window: %v, want ErrBadCursor", err)
		}
	}},
	{"SortByCountInWindow", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		// e1: 5 occurrences two days ago; e2: 3 in the last hour; e3: 1
		// in the last hour and 1 five hours ago; e4 2 two hours ago.
		for i := range 5 {
			save(t, tn, newOccurrence(fmt.Sprint("d-e1-", i), "e1", e.clock.Now().Add(-48*time.Hour)))
		}
		save(t, tn, newOccurrence("d-e3-old", "e3", e.clock.Now().Add(-5*time.Hour)))
		save(t, tn, newOccurrence("d-e4-0", "e4", e.clock.Now().Add(-2*time.Hour)))
		save(t, tn, newOccurrence("d-e4-1", "e4", e.clock.Now().Add(-2*time.Hour)))
		for i := range 3 {
			save(t, tn, newOccurrence(fmt.Sprint("d-e2-", i), "e2", e.clock.Now()))
		}
		save(t, tn, newOccurrence("d-e3", "e3", e.clock.Now()))
		for _, c := range []struct {
			window time.Duration
			want   []string
			counts []int64
		}{
			{time.Hour, []string{"e2", "e3"}, []int64{3, 1}},
			{3 * time.Hour, []string{"e2", "e4", "e3"}, []int64{3, 2, 1}},
			{24 * time.Hour, []string{"e2", "e4", "e3"}, []int64{3, 2, 2}},
			{72 * time.Hour, []string{"e1", "e2", "e4", "e3"}, []int64{5, 3, 2, 2}},
		} {
			for _, limit := range []int{0, 1} {
				f := store.Filter{Sort: store.SortCount, Window: c.window, Limit: limit}
				got, total := pageAll(t, tn, f)
				if !slices.Equal(got, c.want) || total != len(c.want) {
					t.Errorf("count in %v, pages of %d: %q (total %d), want %q", c.window, limit, got, total, c.want)
				}
			}
			var counts []int64
			for _, r := range list(t, tn, store.Filter{Sort: store.SortCount, Window: c.window}).Records {
				counts = append(counts, r.WindowCount)
			}
			if !slices.Equal(counts, c.counts) {
				t.Errorf("counts in %v: %v, want %v", c.window, counts, c.counts)
			}
		}
		// A windowed cursor keeps its window's hours: two hours later, the
		// next page of a listing begun before goes on with them.
		p := list(t, tn, store.Filter{Sort: store.SortCount, Window: time.Hour, Limit: 1})
		e.clock.Advance(2 * time.Hour)
		next := list(t, tn, store.Filter{Sort: store.SortCount, Window: time.Hour, Limit: 1, Cursor: p.Next})
		if got := listed(next); !slices.Equal(got, []string{"e3"}) {
			t.Errorf("the next page, later: %q, want e3", got)
		}
		if got := listed(list(t, tn, store.Filter{Sort: store.SortCount, Window: time.Hour})); len(got) != 0 {
			t.Errorf("two hours later, the last hour had %q, want none", got)
		}
	}},
	{"Totals", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		for i := range 12 {
			o := newOccurrence(fmt.Sprint("d", i), fmt.Sprint("e", i), e.clock.Advance(time.Minute))
			if i%3 == 0 {
				o.AgentID = "planner"
			}
			save(t, tn, o)
		}
		save(t, e.s.Tenant("b"), newOccurrence("d", "e", e.clock.Now()))
		for _, c := range []struct {
			f    store.Filter
			want int
		}{
			{store.Filter{}, 12},
			{store.Filter{Limit: 5}, 12},
			{store.Filter{AgentID: "planner"}, 4},
			{store.Filter{Search: "sql"}, 8},
			{store.Filter{Since: e.clock.Now().Add(-time.Minute)}, 2},
		} {
			p := list(t, tn, c.f)
			if p.Total != c.want || p.TotalCapped {
				t.Errorf("total of %+v: %d (capped %t), want %d", c.f, p.Total, p.TotalCapped, c.want)
			}
			if c.f.Limit == 0 && len(p.Records) != c.want {
				t.Errorf("%+v: %d records listed, total %d", c.f, len(p.Records), p.Total)
			}
		}
	}},
}
