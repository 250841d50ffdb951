package sqlstore

import (
	"errors"
	"testing"

	"github.com/triage-go/triage/store"
)

// The cursors of the listings come back from clients: any string is a
// position the store made, or store.ErrBadCursor (which the API turns
// into a 400). A position decodes to itself again once encoded, and a
// cursor of one listing is never taken by the other. Seeds:
// testdata/fuzz.

func FuzzDecodeCursor(f *testing.F) {
	f.Fuzz(func(t *testing.T, c string) {
		seq, err := decodeCursor(c)
		if err != nil {
			if !errors.Is(err, store.ErrBadCursor) || seq != 0 {
				t.Fatalf("%q: %d, %v", c, seq, err)
			}
			return
		}
		if seq <= 0 {
			t.Fatalf("%q: sequence %d", c, seq)
		}
		if again, err := decodeCursor(encodeCursor(seq)); err != nil || again != seq {
			t.Fatalf("%q: %d encodes to a cursor of %d, %v", c, seq, again, err)
		}
		if _, err := decodeOccurrenceCursor(c); err == nil {
			t.Fatalf("%q: a records cursor taken for occurrences", c)
		}
	})
}

func FuzzDecodeOccurrenceCursor(f *testing.F) {
	f.Fuzz(func(t *testing.T, c string) {
		k, err := decodeOccurrenceCursor(c)
		if err != nil {
			if !errors.Is(err, store.ErrBadCursor) || k != (occurrenceKey{}) {
				t.Fatalf("%q: %+v, %v", c, k, err)
			}
			return
		}
		if k.id <= 0 {
			t.Fatalf("%q: id %d", c, k.id)
		}
		if again, err := decodeOccurrenceCursor(encodeOccurrenceCursor(k)); err != nil || again != k {
			t.Fatalf("%q: %+v encodes to a cursor of %+v, %v", c, k, again, err)
		}
		if _, err := decodeCursor(c); err == nil {
			t.Fatalf("%q: an occurrences cursor taken for records", c)
		}
	})
}

func FuzzDecodeListCursor(f *testing.F) {
	sorts := []string{store.SortLastSeen, store.SortCount}
	f.Fuzz(func(t *testing.T, c string, sortIndex uint8, windowed bool) {
		sort := sorts[int(sortIndex)%len(sorts)]
		windowed = windowed && sort == store.SortCount
		k, hour, end, err := decodeListCursor(c, sort, windowed)
		if err != nil {
			if !errors.Is(err, store.ErrBadCursor) || k != (listKey{}) || hour != 0 || end != 0 {
				t.Fatalf("%q: %+v %d %d, %v", c, k, hour, end, err)
			}
			return
		}
		if k.seq <= 0 || windowed && end <= hour {
			t.Fatalf("%q: %+v, hours %d to %d", c, k, hour, end)
		}
		k2, hour2, end2, err := decodeListCursor(encodeListCursor(sort, windowed, hour, end, k), sort, windowed)
		if err != nil || k2 != k || hour2 != hour || end2 != end {
			t.Fatalf("%q: %+v %d %d encodes to a cursor of %+v %d %d, %v", c, k, hour, end, k2, hour2, end2, err)
		}
		if _, _, _, err := decodeListCursor(c, sort, !windowed); err == nil && sort == store.SortCount {
			t.Fatalf("%q: a cursor taken with and without a window", c)
		}
		if _, err := decodeCursor(c); err == nil {
			t.Fatalf("%q: a %s cursor taken for first_seen's", c, sort)
		}
	})
}

func FuzzDecodeSessionCursor(f *testing.F) {
	f.Fuzz(func(t *testing.T, c string) {
		opened, id, err := decodeSessionCursor(c)
		if err != nil {
			if !errors.Is(err, store.ErrBadCursor) || opened != 0 || id != "" {
				t.Fatalf("%q: %d %q, %v", c, opened, id, err)
			}
			return
		}
		if opened < 0 || id == "" || !isText(id) {
			t.Fatalf("%q: %d %q", c, opened, id)
		}
		if o, i, err := decodeSessionCursor(encodeSessionCursor(opened, id)); err != nil || o != opened || i != id {
			t.Fatalf("%q: %d %q encodes to a cursor of %d %q, %v", c, opened, id, o, i, err)
		}
		if _, _, err := decodeRunCursor(c); err == nil {
			t.Fatalf("%q: a sessions cursor taken for runs", c)
		}
	})
}
