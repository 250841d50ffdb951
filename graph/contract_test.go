package graph_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/graph"
)

// state is the tests' pipeline state: a log of the nodes that ran, and a
// map that branches write to (so copies matter).
type state struct {
	Log  []string          `json:"log"`
	Tags map[string]string `json:"tags,omitempty"`
	N    int               `json:"n"`
	Err  string            `json:"err,omitempty"`
}

func (s state) Clone() state {
	c := s
	c.Log = append([]string(nil), s.Log...)
	if s.Tags != nil {
		c.Tags = make(map[string]string, len(s.Tags))
		for k, v := range s.Tags {
			c.Tags[k] = v
		}
	}
	return c
}

// step returns a node that appends its name to the log.
func step(name string) graph.Node[state] {
	return func(_ context.Context, s state) (state, error) {
		s.Log = append(s.Log, name)
		s.N++
		return s, nil
	}
}

func fail(err error) graph.Node[state] {
	return func(context.Context, state) (state, error) { return state{}, err }
}

func merge(_ context.Context, s state, branches []state) (state, error) {
	base := len(s.Log)
	for _, b := range branches {
		s.Log = append(s.Log, strings.Join(b.Log[base:], "+"))
	}
	s.Log = append(s.Log, "join")
	return s, nil
}

func compile(t *testing.T, g *graph.Graph[state], cfg *graph.Config[state]) *graph.Runnable[state] {
	t.Helper()
	r, err := g.Compile(cfg)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return r
}

var errBoom = errors.New("boom")

// want is what every mode must report for a failing run.
type want struct {
	node  string
	path  []string
	cause error  // errors.Is must find it (nil: skip)
	text  string // the cause's message contains it
	code  fault.Code
	state state // the state the failing node received
}

// checkContract runs r in all three ways the seed has (Invoke; Stream
// raising; Stream with error events) and checks each reports the failure
// in the one shape: a *NodeError with node, path, state and cause, after
// which nothing else happens; Invoke returns the state the NodeError
// carries.
func checkContract(t *testing.T, newCtx func() context.Context, r *graph.Runnable[state], in state, w want) {
	t.Helper()
	check := func(mode string, err error) *graph.NodeError {
		t.Helper()
		var ne *graph.NodeError
		if !errors.As(err, &ne) {
			t.Fatalf("%s: got %v (%T), want a *NodeError", mode, err, err)
		}
		if ne.Node != w.node {
			t.Errorf("%s: node %q, want %q", mode, ne.Node, w.node)
		}
		if fmt.Sprint(ne.Path) != fmt.Sprint(w.path) {
			t.Errorf("%s: path %v, want %v", mode, ne.Path, w.path)
		}
		if w.cause != nil && !errors.Is(err, w.cause) {
			t.Errorf("%s: errors.Is does not find %v in %v", mode, w.cause, err)
		}
		if !strings.Contains(ne.Err.Error(), w.text) {
			t.Errorf("%s: cause %q does not say %q", mode, ne.Err, w.text)
		}
		if !strings.HasPrefix(err.Error(), fmt.Sprintf("error in node %q: ", w.node)) {
			t.Errorf("%s: message %q", mode, err.Error())
		}
		if w.code != "" && fault.From(err).Code != w.code {
			t.Errorf("%s: fault.From says %s, want %s", mode, fault.From(err).Code, w.code)
		}
		if st, ok := ne.State.(state); !ok || fmt.Sprint(st.Log) != fmt.Sprint(w.state.Log) {
			t.Errorf("%s: state %+v, want the log %v", mode, ne.State, w.state.Log)
		}
		return ne
	}

	out, err := r.Invoke(newCtx(), in.Clone())
	check("Invoke", err)
	if fmt.Sprint(out.Log) != fmt.Sprint(w.state.Log) {
		t.Errorf("Invoke: returned the log %v, want the failing node's %v", out.Log, w.state.Log)
	}

	// Raised: the iterator yields the error as its second value, last.
	var events []graph.Event[state]
	var streamErr error
	after := 0
	for ev, err := range r.Stream(newCtx(), in.Clone()) {
		if streamErr != nil {
			after++
		}
		if err != nil {
			streamErr = err
			continue
		}
		events = append(events, ev)
	}
	if after != 0 {
		t.Errorf("Stream: %d values after the error", after)
	}
	check("Stream", streamErr)
	for _, ev := range events {
		if ev.Type == graph.EventEnd || ev.Type == graph.EventError {
			t.Errorf("Stream: raised mode yielded a %s event", ev.Type)
		}
	}

	// Error events: the last event is the error event, and it is seed
	// 003's dict exactly.
	events = events[:0]
	for ev, err := range r.Stream(newCtx(), in.Clone(), graph.ErrorEvents()) {
		if err != nil {
			t.Fatalf("ErrorEvents: the iterator raised %v", err)
		}
		events = append(events, ev)
	}
	if len(events) == 0 {
		t.Fatal("ErrorEvents: no events")
	}
	last := events[len(events)-1]
	if last.Type != graph.EventError {
		t.Fatalf("ErrorEvents: last event %s, want error", last.Type)
	}
	check("ErrorEvents", last.Err)
	data, err := json.Marshal(last)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	json.Unmarshal(data, &doc)
	msg, _ := doc["error"].(string)
	if _, hasState := doc["state"].(map[string]any); len(doc) != 4 || doc["type"] != "error" || doc["node"] != w.node ||
		!strings.Contains(msg, w.text) || !hasState {
		t.Errorf("ErrorEvents: error event JSON %s", data)
	}
	for _, ev := range events[:len(events)-1] {
		if ev.Type == graph.EventError || ev.Type == graph.EventEnd {
			t.Errorf("ErrorEvents: a %s event before the last", ev.Type)
		}
	}
}

func TestErrorInRegularNode(t *testing.T) {
	t.Parallel()
	var ranAfter atomic.Bool
	g := graph.New[state]().
		AddNode("a", step("a")).AddNode("b", fail(fault.New(fault.UpstreamError, "tool down"))).
		AddNode("c", func(_ context.Context, s state) (state, error) { ranAfter.Store(true); return s, nil }).
		AddEdge("a", "b").AddEdge("b", "c").AddEdge("c", graph.End).SetEntry("a")
	checkContract(t, context.Background, compile(t, g, nil), state{}, want{
		node: "b", path: []string{"a"}, text: "tool down", code: fault.UpstreamError, state: state{Log: []string{"a"}},
	})
	if ranAfter.Load() {
		t.Error("execution went on after the error")
	}
}

func TestRouterFails(t *testing.T) {
	t.Parallel()
	g := graph.New[state]().
		AddNode("a", step("a")).AddNode("b", step("b")).
		AddConditionalEdges("a", func(context.Context, state) (string, error) { return "", errBoom }, "b").
		AddEdge("b", graph.End).SetEntry("a")
	checkContract(t, context.Background, compile(t, g, nil), state{}, want{
		node: "a", path: []string{"a"}, cause: errBoom, text: "router: boom", state: state{Log: []string{"a"}},
	})
}

func TestRouterNamesUnknownNode(t *testing.T) {
	t.Parallel()
	g := graph.New[state]().
		AddNode("a", step("a")).AddNode("b", step("b")).
		AddConditionalEdges("a", func(context.Context, state) (string, error) { return "nowhere", nil }, "b", graph.End).
		AddEdge("b", graph.End).SetEntry("a")
	checkContract(t, context.Background, compile(t, g, nil), state{}, want{
		node: "a", path: []string{"a"}, cause: graph.ErrNoRoute, text: `no valid next node from "a"`, state: state{Log: []string{"a"}},
	})
}

// fanOut is a → {x, y, z} → join → End, with the given branch nodes.
func fanOut(x, y, z graph.Node[state], join graph.FanIn[state]) *graph.Graph[state] {
	return buildFanOut((*graph.Graph[state]).AddFanOut, x, y, z, join)
}

// sequentialFanOut is fanOut with its branches run in order.
func sequentialFanOut(x, y, z graph.Node[state], join graph.FanIn[state]) *graph.Graph[state] {
	return buildFanOut((*graph.Graph[state]).AddSequentialFanOut, x, y, z, join)
}

// buildFanOut is a → {x, y, z} → join, the fan-out declared by add.
func buildFanOut(add func(g *graph.Graph[state], from, join string, branches ...string) *graph.Graph[state],
	x, y, z graph.Node[state], join graph.FanIn[state]) *graph.Graph[state] {
	g := graph.New[state]().
		AddNode("a", step("a")).AddNode("x", x).AddNode("y", y).AddNode("z", z).AddFanIn("join", join)
	return add(g, "a", "join", "x", "y", "z").
		AddEdge("x", "join").AddEdge("y", "join").AddEdge("z", "join").AddEdge("join", graph.End).SetEntry("a")
}

func TestErrorInParallelBranch(t *testing.T) {
	t.Parallel()
	g := fanOut(step("x"), fail(errBoom), step("z"), merge)
	checkContract(t, context.Background, compile(t, g, &graph.Config[state]{WaitForAllBranches: true}), state{}, want{
		node: "y", path: []string{"a"}, cause: errBoom, text: "boom", state: state{Log: []string{"a"}},
	})
}

func TestErrorInFanInNode(t *testing.T) {
	t.Parallel()
	g := fanOut(step("x"), step("y"), step("z"), func(context.Context, state, []state) (state, error) {
		return state{}, fault.New(fault.ProtocolError, "branches disagree")
	})
	checkContract(t, context.Background, compile(t, g, nil), state{}, want{
		node: "join", path: []string{"a"}, text: "branches disagree", code: fault.ProtocolError, state: state{Log: []string{"a"}},
	})
}

func TestPanicInNode(t *testing.T) {
	t.Parallel()
	g := graph.New[state]().
		AddNode("a", step("a")).
		AddNode("b", func(context.Context, state) (state, error) { panic("nil map write") }).
		AddEdge("a", "b").AddEdge("b", graph.End).SetEntry("a")
	r := compile(t, g, nil)
	checkContract(t, context.Background, r, state{}, want{
		node: "b", path: []string{"a"}, text: "panic: nil map write", code: fault.AgentExecutionError, state: state{Log: []string{"a"}},
	})
	// The stack only in debug.
	_, err := r.Invoke(context.Background(), state{})
	var pe *graph.PanicError
	if !errors.As(err, &pe) || pe.Stack != nil {
		t.Errorf("stack without debug: %v", err)
	}
	_, err = compile(t, g, &graph.Config[state]{Debug: true}).Invoke(context.Background(), state{})
	if !errors.As(err, &pe) || !strings.Contains(string(pe.Stack), "goroutine") {
		t.Errorf("no stack in debug: %v", err)
	}
}

func TestPanicInRouter(t *testing.T) {
	t.Parallel()
	g := graph.New[state]().
		AddNode("a", step("a")).AddNode("b", step("b")).
		AddConditionalEdges("a", func(context.Context, state) (string, error) { panic(errBoom) }, "b").
		AddEdge("b", graph.End).SetEntry("a")
	checkContract(t, context.Background, compile(t, g, nil), state{}, want{
		node: "a", path: []string{"a"}, cause: errBoom, text: "panic: boom", state: state{Log: []string{"a"}},
	})
}

func TestCancellation(t *testing.T) {
	t.Parallel()
	cancelled := func() context.Context {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx
	}
	g := graph.New[state]().AddNode("a", step("a")).AddEdge("a", graph.End).SetEntry("a")
	checkContract(t, cancelled, compile(t, g, nil), state{}, want{
		node: "a", cause: context.Canceled, text: "context canceled", code: fault.Cancelled,
	})
}

func TestDeadline(t *testing.T) {
	t.Parallel()
	g := graph.New[state]().
		AddNode("a", step("a")).
		AddNode("slow", func(ctx context.Context, s state) (state, error) {
			<-ctx.Done()
			return s, ctx.Err()
		}).
		AddEdge("a", "slow").AddEdge("slow", graph.End).SetEntry("a")
	withDeadline := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		t.Cleanup(cancel)
		return ctx
	}
	checkContract(t, withDeadline, compile(t, g, nil), state{}, want{
		node: "slow", path: []string{"a"}, cause: context.DeadlineExceeded, code: fault.Timeout, state: state{Log: []string{"a"}},
	})
}

func TestStepLimit(t *testing.T) {
	t.Parallel()
	g := graph.New[state]().
		AddNode("a", step("a")).AddNode("b", step("b")).
		AddEdge("a", "b").
		AddConditionalEdges("b", func(context.Context, state) (string, error) { return "a", nil }, "a", graph.End).
		SetEntry("a")
	r := compile(t, g, &graph.Config[state]{MaxSteps: 5})
	checkContract(t, context.Background, r, state{}, want{
		node: "b", path: []string{"a", "b", "a", "b", "a"}, cause: graph.ErrStepLimit, text: "step limit reached: 5 steps",
		state: state{Log: []string{"a", "b", "a", "b", "a"}},
	})
}

// The default limit is documented as DefaultMaxSteps.
func TestDefaultStepLimit(t *testing.T) {
	t.Parallel()
	g := graph.New[state]().AddNode("loop", step("loop")).
		AddConditionalEdges("loop", func(context.Context, state) (string, error) { return "loop", nil }, "loop").SetEntry("loop")
	_, err := compile(t, g, nil).Invoke(context.Background(), state{})
	var ne *graph.NodeError
	if !errors.As(err, &ne) || !errors.Is(err, graph.ErrStepLimit) || len(ne.Path) != graph.DefaultMaxSteps+1 {
		t.Fatalf("got %v", err)
	}
}
