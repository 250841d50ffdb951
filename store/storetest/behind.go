package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// behindTests hold the reads a store may serve from indexes it writes
// behind its reports (SQLite's search index, issue 28) to the reads
// right after the writes: each read sees every report committed before
// it, in every sort and filter of the listing and in a search.
var behindTests = []test{
	{"ReadsRightAfterWrites", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		saveErrors(t, e, tn, "e0", "e1", "e2")
		var seen []string // every error, the latest first seen first
		for i := range 12 {
			// A new error, then a repeat of the oldest: it is seen last,
			// and counted most.
			id := fmt.Sprintf("new%02d", i)
			o := titled("d-"+id, id, "agent"+id, "CODE", "word"+id+" happened", e.clock.Advance(time.Minute))
			save(t, tn, o)
			seen = append([]string{id}, seen...)
			save(t, tn, newOccurrence(fmt.Sprint("d-again-", i), "e0", e.clock.Advance(time.Minute)))
			for _, c := range []struct {
				f     store.Filter
				first []string // the listing's first records
				total int
			}{
				{store.Filter{}, []string{"e0", id}, 3 + i + 1},
				{store.Filter{Sort: store.SortLastSeen}, []string{"e0", id}, 3 + i + 1},
				{store.Filter{Sort: store.SortFirstSeen}, []string{id}, 3 + i + 1},
				{store.Filter{Sort: store.SortCount}, []string{"e0"}, 3 + i + 1},
				{store.Filter{Sort: store.SortCount, Window: time.Hour}, []string{"e0"}, 3 + i + 1},
				{store.Filter{Since: o.ReceivedAt}, []string{"e0", id}, 2},
				{store.Filter{Search: "word" + id}, []string{id}, 1},
				{store.Filter{Search: "word" + id, Sort: store.SortCount}, []string{id}, 1},
				{store.Filter{AgentID: "agent" + id}, []string{id}, 1},
				{store.Filter{AgentID: "agent" + id, Sort: store.SortCount}, []string{id}, 1},
				{store.Filter{QueryID: "q-" + id}, []string{id}, 1},
				{store.Filter{Status: triage.StatusUnresolved}, []string{"e0", id}, 3 + i + 1},
				{store.Filter{Status: triage.StatusUnresolved, Sort: store.SortCount}, []string{"e0"}, 3 + i + 1},
			} {
				p := list(t, tn, c.f)
				if got := listed(p); len(got) < len(c.first) || !slices.Equal(got[:len(c.first)], c.first) || p.Total != c.total {
					t.Fatalf("report %d: %+v lists %q (total %d), want %q first (total %d)", i, c.f, got, p.Total, c.first, c.total)
				}
			}
			// Every page of the first-seen sort, one record a page.
			want := append(slices.Clone(seen), "e2", "e1", "e0")
			if got, total := pageAll(t, tn, store.Filter{Sort: store.SortFirstSeen, Limit: 5}); !slices.Equal(got, want) || total != len(want) {
				t.Fatalf("report %d: first seen, pages of 5: %q (total %d), want %q", i, got, total, want)
			}
			if r := record(t, tn, "e0"); r.Count != i+2 {
				t.Fatalf("report %d: e0 counts %d, want %d", i, r.Count, i+2)
			}
		}
	}},
}
