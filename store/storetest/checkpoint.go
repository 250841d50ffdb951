package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage/graph"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/checkpoint"
)

// cpState is the state of the checkpoint tests: strings, numbers, a
// slice, a map, a nested pointer; Bad, when set, is a value JSON cannot
// encode.
type cpState struct {
	Query  string             `json:"query"`
	Rows   []string           `json:"rows,omitempty"`
	Scores map[string]float64 `json:"scores,omitempty"`
	N      int64              `json:"n"`
	At     time.Time          `json:"at"`
	Nested *cpNested          `json:"nested,omitempty"`
	Bad    any                `json:"bad,omitempty"`
}

type cpNested struct {
	OK   bool   `json:"ok"`
	Note string `json:"note"`
}

// panicky is a value whose MarshalJSON panics.
type panicky struct{}

func (panicky) MarshalJSON() ([]byte, error) { panic("panicky: MarshalJSON") }

// checkpointer is tenant's checkpoint.New of cpState.
func checkpointer(e *env, tenant string) graph.Checkpointer[cpState] {
	return checkpoint.New[cpState](e.s.Tenant(tenant))
}

// sampleCheckpoint is a checkpoint of run with every field set.
func sampleCheckpoint(run string) graph.Checkpoint[cpState] {
	return graph.Checkpoint[cpState]{
		RunID:  run,
		Step:   7,
		Node:   "merge",
		AtExit: true,
		State: cpState{Query: `revenue "2025" — ü`, Rows: []string{"a", "b"}, Scores: map[string]float64{"x": 0.875, "y": -1e300},
			N: math.MaxInt64, At: Epoch, Nested: &cpNested{OK: true, Note: "line\nbreak"}},
		Branches: map[string]cpState{
			"web": {Query: "web", Rows: []string{"w1"}, At: Epoch},
			"db":  {Query: "db", N: -3},
		},
		Path: []string{"parse", "plan", "web"},
		Err:  `error in node "db": TIMEOUT: DB timeout after 30s`,
	}
}

// loadCheckpoint loads run and checks it is want.
func loadCheckpoint(t *testing.T, cp graph.Checkpointer[cpState], want graph.Checkpoint[cpState]) {
	t.Helper()
	got, err := cp.Load(t.Context(), want.RunID)
	if err != nil {
		t.Fatalf("Load(%q): %v", want.RunID, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Load(%q) =\n%+v\nwant\n%+v", want.RunID, got, want)
	}
}

// noCheckpoint checks that Load finds no checkpoint of run.
func noCheckpoint(t *testing.T, cp graph.Checkpointer[cpState], run string) {
	t.Helper()
	if got, err := cp.Load(t.Context(), run); !errors.Is(err, graph.ErrNoCheckpoint) {
		t.Errorf("Load(%q) = %+v, %v; want an error wrapping graph.ErrNoCheckpoint", run, got, err)
	}
}

var checkpointTests = []test{
	{"RoundTrip", func(t *testing.T, e *env) {
		cp := checkpointer(e, "a")
		running := sampleCheckpoint("run-1")
		must(t, cp.Save(t.Context(), running))
		loadCheckpoint(t, cp, running)
		// A finished run: no node, no branches; an empty path and no
		// branches stay empty and nil.
		done := graph.Checkpoint[cpState]{RunID: "run-2", Step: 3, State: cpState{Query: "done"}, Path: []string{}, Done: true}
		must(t, cp.Save(t.Context(), done))
		loadCheckpoint(t, cp, done)
		empty := graph.Checkpoint[cpState]{RunID: "run-3", Node: "entry", Branches: map[string]cpState{}}
		must(t, cp.Save(t.Context(), empty))
		loadCheckpoint(t, cp, empty)

		// The tenant's view holds it as JSON, saved now.
		raw, found, err := e.s.Tenant("a").LoadCheckpoint(t.Context(), "run-1")
		must(t, err)
		if !found || !raw.SavedAt.Equal(e.clock.Now()) || !json.Valid(raw.State) || len(raw.Branches) != 2 {
			t.Errorf("LoadCheckpoint = %+v, %v; want the checkpoint as JSON, saved at %v", raw, found, e.clock.Now())
		}
	}},
	{"SaveReplaces", func(t *testing.T, e *env) {
		cp := checkpointer(e, "a")
		first := sampleCheckpoint("run")
		must(t, cp.Save(t.Context(), first))
		// The next step: no branches left, a new state.
		next := graph.Checkpoint[cpState]{RunID: "run", Step: 8, Node: "answer", State: cpState{Query: "merged", Rows: []string{"w1", "d1"}},
			Path: []string{"parse", "plan", "web", "db", "merge"}}
		must(t, cp.Save(t.Context(), next))
		loadCheckpoint(t, cp, next)
		// A run started again under its id starts again from step 0.
		again := graph.Checkpoint[cpState]{RunID: "run", Node: "parse", State: cpState{Query: "again"}}
		must(t, cp.Save(t.Context(), again))
		loadCheckpoint(t, cp, again)
	}},
	{"UnknownRun", func(t *testing.T, e *env) {
		cp := checkpointer(e, "a")
		noCheckpoint(t, cp, "never-saved")
		must(t, cp.Save(t.Context(), sampleCheckpoint("saved")))
		noCheckpoint(t, cp, "never-saved")
		noCheckpoint(t, cp, "")
		if _, found, err := e.s.Tenant("a").LoadCheckpoint(t.Context(), "never-saved"); err != nil || found {
			t.Errorf("LoadCheckpoint of an unknown run: found %v, %v", found, err)
		}
	}},
	{"TenantIsolation", func(t *testing.T, e *env) {
		a, b := checkpointer(e, "a"), checkpointer(e, "b")
		ofA := sampleCheckpoint("run")
		must(t, a.Save(t.Context(), ofA))
		noCheckpoint(t, b, "run")
		ofB := graph.Checkpoint[cpState]{RunID: "run", Step: 1, Node: "other", State: cpState{Query: "b's"}}
		must(t, b.Save(t.Context(), ofB))
		loadCheckpoint(t, a, ofA)
		loadCheckpoint(t, b, ofB)
	}},
	{"ConcurrentSaves", func(t *testing.T, e *env) {
		const runs, steps = 16, 5
		cp := checkpointer(e, "a")
		var wg sync.WaitGroup
		for r := range runs {
			wg.Go(func() {
				for s := range steps {
					c := graph.Checkpoint[cpState]{RunID: fmt.Sprint("run-", r), Step: s, Node: fmt.Sprint("n", s),
						State: cpState{Query: fmt.Sprint(r), N: int64(s)}, Path: []string{fmt.Sprint("n", s-1)}}
					if err := cp.Save(t.Context(), c); err != nil {
						t.Errorf("Save(run-%d, step %d): %v", r, s, err)
						return
					}
				}
			})
		}
		wg.Wait()
		for r := range runs {
			s := steps - 1
			loadCheckpoint(t, cp, graph.Checkpoint[cpState]{RunID: fmt.Sprint("run-", r), Step: s, Node: fmt.Sprint("n", s),
				State: cpState{Query: fmt.Sprint(r), N: int64(s)}, Path: []string{fmt.Sprint("n", s-1)}})
		}
	}},
	{"UnencodableState", func(t *testing.T, e *env) {
		cp := checkpointer(e, "a")
		good := sampleCheckpoint("run")
		must(t, cp.Save(t.Context(), good))
		for name, bad := range map[string]any{"channel": make(chan int), "function": func() {}, "NaN": math.NaN(), "panicking MarshalJSON": panicky{}} {
			c := sampleCheckpoint("run")
			c.Step = 99
			c.State.Bad = bad
			if err := cp.Save(t.Context(), c); err == nil {
				t.Errorf("Save of a state holding a %s succeeded", name)
			}
			c = sampleCheckpoint("run")
			c.Step = 99
			c.Branches["db"] = cpState{Bad: bad}
			if err := cp.Save(t.Context(), c); err == nil || !strings.Contains(err.Error(), `"db"`) {
				t.Errorf("Save of a branch's result holding a %s: %v; want an error naming the branch", name, err)
			}
		}
		loadCheckpoint(t, cp, good) // the previous checkpoint stays

		// Through the tenant's view, a document that is not JSON.
		tn := e.s.Tenant("a")
		for _, c := range []store.Checkpoint{
			{RunID: "raw", State: json.RawMessage(`{"query":`)},
			{RunID: "raw"},
			{RunID: "raw", State: json.RawMessage(`{}`), Branches: map[string]json.RawMessage{"web": json.RawMessage(`nope`)}},
			{State: json.RawMessage(`{}`)}, // no run id
		} {
			if err := tn.SaveCheckpoint(t.Context(), c); err == nil {
				t.Errorf("SaveCheckpoint(%+v) succeeded", c)
			}
		}
		if _, found, err := tn.LoadCheckpoint(t.Context(), "raw"); err != nil || found {
			t.Errorf("a refused checkpoint was saved: found %v, %v", found, err)
		}
	}},
	{"Text", func(t *testing.T, e *env) {
		// What PostgreSQL's TEXT cannot hold: a failure's message is
		// made UTF-8 without NULs, names that are not are refused.
		cp := checkpointer(e, "a")
		c := sampleCheckpoint("run")
		c.Err = "bad byte \xff, NUL \x00, ok ü"
		must(t, cp.Save(t.Context(), c))
		c.Err = "bad byte \uFFFD, NUL \uFFFD, ok ü"
		loadCheckpoint(t, cp, c)
		for what, bad := range map[string]func(*graph.Checkpoint[cpState]){
			"run id":      func(c *graph.Checkpoint[cpState]) { c.RunID = "run\x00" },
			"node":        func(c *graph.Checkpoint[cpState]) { c.Node = "node\xff" },
			"path":        func(c *graph.Checkpoint[cpState]) { c.Path = append(c.Path, "\x00") },
			"branch name": func(c *graph.Checkpoint[cpState]) { c.Branches["\xfe"] = cpState{} },
		} {
			c := sampleCheckpoint("run")
			c.Step = 99
			bad(&c)
			if err := cp.Save(t.Context(), c); err == nil {
				t.Errorf("Save of a checkpoint whose %s is not UTF-8 text without NULs succeeded", what)
			}
		}
		c.Err = "bad byte \uFFFD, NUL \uFFFD, ok ü"
		loadCheckpoint(t, cp, c)
		raw := store.Checkpoint{RunID: "raw", State: json.RawMessage("\"\xff\"")}
		if err := e.s.Tenant("a").SaveCheckpoint(t.Context(), raw); err == nil {
			t.Errorf("SaveCheckpoint of a state that is not UTF-8 succeeded")
		}
	}},
	{"StateTypeChanged", func(t *testing.T, e *env) {
		must(t, checkpointer(e, "a").Save(t.Context(), sampleCheckpoint("run")))
		got, err := checkpoint.New[[]int](e.s.Tenant("a")).Load(t.Context(), "run")
		if err == nil || errors.Is(err, graph.ErrNoCheckpoint) {
			t.Errorf("Load into another state type = %+v, %v; want a decoding error", got, err)
		}
	}},
	{"SizeLimit", func(t *testing.T, e *env) {
		cp := checkpointer(e, "a")
		half := graph.Checkpoint[cpState]{RunID: "run", Node: "n", State: cpState{Query: strings.Repeat("x", store.MaxCheckpointSize/2)}}
		must(t, cp.Save(t.Context(), half))
		loadCheckpoint(t, cp, half)
		tooLarge := map[string]graph.Checkpoint[cpState]{
			"state": {RunID: "run", Node: "n", State: cpState{Query: strings.Repeat("x", store.MaxCheckpointSize)}},
			// Each under the limit, together over it.
			"branches": {RunID: "run", Node: "n", Branches: map[string]cpState{
				"a": half.State, "b": half.State, "c": half.State}},
		}
		for what, c := range tooLarge {
			if err := cp.Save(t.Context(), c); !errors.Is(err, store.ErrCheckpointTooLarge) {
				t.Errorf("Save of a checkpoint whose %s is over MaxCheckpointSize: %v, want ErrCheckpointTooLarge", what, err)
			}
		}
		loadCheckpoint(t, cp, half) // the previous checkpoint stays
		raw := store.Checkpoint{RunID: "raw", State: json.RawMessage(`"` + strings.Repeat("y", store.MaxCheckpointSize) + `"`)}
		if err := e.s.Tenant("a").SaveCheckpoint(t.Context(), raw); !errors.Is(err, store.ErrCheckpointTooLarge) {
			t.Errorf("SaveCheckpoint over MaxCheckpointSize: %v, want ErrCheckpointTooLarge", err)
		}
	}},
	{"Expire", func(t *testing.T, e *env) {
		ctx := t.Context()
		const day = 24 * time.Hour
		a, b := checkpointer(e, "a"), checkpointer(e, "b")
		saveRun := func(cp graph.Checkpointer[cpState], run string, done bool) {
			t.Helper()
			must(t, cp.Save(ctx, graph.Checkpoint[cpState]{RunID: run, Node: "n", Done: done, State: cpState{Query: run}}))
		}
		saveRun(a, "old-running", false)
		saveRun(a, "old-finished", true)
		saveRun(b, "old-finished", true) // another tenant's, as old
		saveRun(a, "touched", false)
		e.clock.Advance(2 * day)
		saveRun(a, "touched", false) // saved again: its age starts again
		saveRun(a, "recent-running", false)
		saveRun(a, "recent-finished", true)

		// Two days: the finished runs' checkpoints saved before yesterday.
		n, err := e.s.Expire(ctx, store.Retention{})
		must(t, err)
		if n != 2 {
			t.Errorf("Expire after two days deleted %d rows, want 2 (the old finished runs)", n)
		}
		noCheckpoint(t, a, "old-finished")
		noCheckpoint(t, b, "old-finished")
		for _, run := range []string{"old-running", "touched", "recent-running", "recent-finished"} {
			if _, err := a.Load(ctx, run); err != nil {
				t.Errorf("%s expired after two days: %v", run, err)
			}
		}

		// Eight days: the run not saved for a week, the other finished
		// one.
		e.clock.Advance(6 * day)
		n, err = e.s.Expire(ctx, store.Retention{})
		must(t, err)
		if n != 2 {
			t.Errorf("Expire after eight days deleted %d rows, want 2", n)
		}
		noCheckpoint(t, a, "old-running")
		noCheckpoint(t, a, "recent-finished")
		for _, run := range []string{"touched", "recent-running"} {
			if _, err := a.Load(ctx, run); err != nil {
				t.Errorf("%s, six days old, expired: %v", run, err)
			}
		}

		// A shorter retention; more of them at once than a store may delete
		// in one write.
		for i := range 250 {
			saveRun(b, fmt.Sprint("many-", i), i%2 == 0)
		}
		e.clock.Advance(2 * time.Hour)
		n, err = e.s.Expire(ctx, store.Retention{Checkpoints: time.Hour, FinishedCheckpoints: time.Hour})
		must(t, err)
		if n != 252 {
			t.Errorf("Expire with an hour's retention deleted %d rows, want 252", n)
		}
		noCheckpoint(t, a, "touched")
		noCheckpoint(t, b, "many-1")
	}},
}
