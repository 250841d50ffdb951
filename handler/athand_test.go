package handler

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/triage-go/triage"
)

// lookups is a Cache and Callbacks that notes, of each lookup, whether
// its context carries a deadline: nothing cached, no callback.
type lookups struct {
	mu        sync.Mutex
	deadlines map[string]bool // by lookup: "get", "callback"
}

func (l *lookups) note(ctx context.Context, what string) {
	_, ok := ctx.Deadline()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.deadlines == nil {
		l.deadlines = map[string]bool{}
	}
	l.deadlines[what] = ok
}

func (l *lookups) Get(ctx context.Context, _ string) (triage.CachedResult, bool, error) {
	l.note(ctx, "get")
	return triage.CachedResult{}, false, nil
}

func (l *lookups) HasCallback(ctx context.Context, _ string) (bool, error) {
	l.note(ctx, "callback")
	return false, nil
}

// cacheAtHand and callbacksAtHand say that their answers are at hand.
type cacheAtHand struct{ *lookups }

func (cacheAtHand) GetAtHand(string) bool { return true }

type callbacksAtHand struct{ *lookups }

func (callbacksAtHand) HasCallbackAtHand(string) bool { return true }

// TestLookupsAtHand: use_cache and retry look up the cache and the
// callbacks under the actions' deadline, unless both answers are at hand
// (CacheAtHand, CallbacksAtHand): then no action reads a context that
// needs one, and none is made. The feedback is the same either way.
func TestLookupsAtHand(t *testing.T) {
	h := newHandler(t, Config{})
	r := withContext(report("qe", triage.QueryError, "DB_TIMEOUT", "m"), map[string]any{
		"date_range": map[string]any{"start": "2015-01-01", "end": "2025-08-01"}, "row_count": 48e6})
	var fbs []*triage.Feedback
	for _, tc := range []struct {
		name  string
		cache func(*lookups) triage.Cache
		cbs   func(*lookups) triage.Callbacks
		want  map[string]bool
	}{
		{"neither at hand", func(l *lookups) triage.Cache { return l }, func(l *lookups) triage.Callbacks { return l },
			map[string]bool{"get": true, "callback": true}},
		{"the cache at hand", func(l *lookups) triage.Cache { return cacheAtHand{l} }, func(l *lookups) triage.Callbacks { return l },
			map[string]bool{"get": true, "callback": true}}, // retry, first, made the deadline for both
		{"the callbacks at hand", func(l *lookups) triage.Cache { return l }, func(l *lookups) triage.Callbacks { return callbacksAtHand{l} },
			map[string]bool{"get": true, "callback": false}},
		{"both at hand", func(l *lookups) triage.Cache { return cacheAtHand{l} }, func(l *lookups) triage.Callbacks { return callbacksAtHand{l} },
			map[string]bool{"get": false, "callback": false}},
	} {
		l := &lookups{}
		res, err := h.Decide(context.Background(), Input{Report: r, Started: triage.StartResult{First: true, Attempt: 1, Recent: 1},
			Cache: tc.cache(l), Callbacks: tc.cbs(l)})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(l.deadlines, tc.want) {
			t.Errorf("%s: a deadline on the lookups %v, want %v", tc.name, l.deadlines, tc.want)
		}
		fbs = append(fbs, res.Feedback)
	}
	for i, fb := range fbs[1:] {
		if !reflect.DeepEqual(fb, fbs[0]) {
			t.Errorf("feedback %d: %+v\nwant %+v", i+1, fb, fbs[0])
		}
	}
}
