package sqlstore

import (
	"errors"
	"math"
	"testing"
	"testing/fstest"
	"time"

	"github.com/triage-go/triage/store"
)

func TestCursorRoundTrip(t *testing.T) {
	for _, seq := range []int64{1, 42, math.MaxInt64} {
		got, err := decodeCursor(encodeCursor(seq))
		if err != nil || got != seq {
			t.Errorf("decodeCursor(encodeCursor(%d)) = %d, %v", seq, got, err)
		}
	}
}

func TestBadCursors(t *testing.T) {
	for _, c := range []string{"x", "!!", "MTIz", encodeCursor(0), encodeCursor(-3), "cmVjOmFiYw"} {
		if _, err := decodeCursor(c); !errors.Is(err, store.ErrBadCursor) {
			t.Errorf("decodeCursor(%q) error = %v, want ErrBadCursor", c, err)
		}
	}
}

func TestPageSize(t *testing.T) {
	for _, c := range []struct{ in, want int }{
		{-1, store.DefaultLimit}, {0, store.DefaultLimit}, {1, 1}, {store.MaxLimit, store.MaxLimit}, {store.MaxLimit + 1, store.MaxLimit},
	} {
		if got := pageSize(c.in); got != c.want {
			t.Errorf("pageSize(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestNanos(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("X", 3600))
	if got := fromNanos(nanos(at)); !got.Equal(at) || got.Location() != time.UTC {
		t.Errorf("fromNanos(nanos(%v)) = %v", at, got)
	}
	if n := nanos(time.Time{}); n != 0 || !fromNanos(n).IsZero() {
		t.Errorf("the zero time is stored as %d, read as %v", n, fromNanos(n))
	}
	if n := nanos(time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)); n != math.MinInt64 {
		t.Errorf("year 1000 is stored as %d, want the least int64", n)
	}
	if n := nanos(time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)); n != math.MaxInt64 {
		t.Errorf("year 3000 is stored as %d, want the greatest int64", n)
	}
}

func TestMigrations(t *testing.T) {
	fsys := fstest.MapFS{
		"m/0002_more.sql":  {Data: []byte("two")},
		"m/0001_init.sql":  {Data: []byte("one")},
		"m/0010_later.sql": {Data: []byte("ten")},
		"m/README.md":      {Data: []byte("not a migration")},
	}
	list, err := migrations(fsys, "m")
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, m := range list {
		got = append(got, m.version)
	}
	if len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 10 || list[2].sql != "ten" {
		t.Errorf("migrations = %+v", list)
	}
	for name, bad := range map[string]fstest.MapFS{
		"unnumbered": {"m/init.sql": {}},
		"duplicate":  {"m/0001_a.sql": {}, "m/1_b.sql": {}},
	} {
		if _, err := migrations(bad, "m"); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
