package graph_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/graph"
)

// Doc is the state of the examples' pipelines.
type Doc struct {
	Query   string
	Rows    []string
	Answer  string
	Failure string
}

// Clone copies the rows, so that fan-out branches never share them (Compile
// refuses a fan-out over a state with a slice and no Clone).
func (d Doc) Clone() Doc {
	d.Rows = append([]string(nil), d.Rows...)
	return d
}

func ExampleGraph_linear() {
	g := graph.New[Doc]().
		AddNode("retrieve", func(_ context.Context, d Doc) (Doc, error) {
			d.Rows = []string{"revenue 2025: 12M"}
			return d, nil
		}).
		AddNode("answer", func(_ context.Context, d Doc) (Doc, error) {
			d.Answer = "Per the data: " + d.Rows[0]
			return d, nil
		}).
		AddEdge("retrieve", "answer").
		AddEdge("answer", graph.End).
		SetEntry("retrieve")
	r, err := g.Compile(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := r.Invoke(context.Background(), Doc{Query: "revenue?"})
	fmt.Println(out.Answer, err)
	// Output: Per the data: revenue 2025: 12M <nil>
}

// A fan-out whose branch fails: the error names the branch's node and its
// path, and fault.From classifies its cause.
func ExampleGraph_fanOut() {
	search := func(name string, err error) graph.Node[Doc] {
		return func(_ context.Context, d Doc) (Doc, error) {
			if err != nil {
				return d, err
			}
			d.Rows = append(d.Rows, name)
			return d, nil
		}
	}
	g := graph.New[Doc]().
		AddNode("plan", func(_ context.Context, d Doc) (Doc, error) { return d, nil }).
		AddNode("web", search("web", nil)).
		AddNode("db", search("db", fault.New(fault.Timeout, "DB timeout after 30s."))).
		AddFanIn("merge", func(_ context.Context, d Doc, branches []Doc) (Doc, error) {
			for _, b := range branches {
				d.Rows = append(d.Rows, b.Rows...)
			}
			return d, nil
		}).
		AddFanOut("plan", "merge", "web", "db").
		AddEdge("web", "merge").AddEdge("db", "merge").AddEdge("merge", graph.End).
		SetEntry("plan")
	r, err := g.Compile(&graph.Config[Doc]{WaitForAllBranches: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = r.Invoke(context.Background(), Doc{})

	var ne *graph.NodeError
	errors.As(err, &ne)
	fmt.Println(err)
	fmt.Println(ne.Node, ne.Path, fault.From(err).Code, fault.From(err).Retryable)
	// Output:
	// error in node "db": TIMEOUT: DB timeout after 30s
	// db [plan] TIMEOUT true
}

// A sequential fan-out for two quick branches: each still works on its own
// copy of the state and the fan-in merges them in order, but they run one
// after the other on the caller's goroutine, which costs less than starting
// one for a few microseconds of work.
func ExampleGraph_AddSequentialFanOut() {
	tag := func(name string) graph.Node[Doc] {
		return func(_ context.Context, d Doc) (Doc, error) {
			d.Rows = append(d.Rows, name+" saw "+fmt.Sprint(len(d.Rows))+" rows")
			return d, nil
		}
	}
	g := graph.New[Doc]().
		AddNode("plan", func(_ context.Context, d Doc) (Doc, error) { return d, nil }).
		AddNode("summary", tag("summary")).
		AddNode("chart", tag("chart")).
		AddFanIn("merge", func(_ context.Context, d Doc, branches []Doc) (Doc, error) {
			for _, b := range branches {
				d.Rows = append(d.Rows, b.Rows...)
			}
			return d, nil
		}).
		AddSequentialFanOut("plan", "merge", "summary", "chart").
		AddEdge("summary", "merge").AddEdge("chart", "merge").AddEdge("merge", graph.End).
		SetEntry("plan")
	r, err := g.Compile(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := r.Invoke(context.Background(), Doc{})
	fmt.Println(strings.Join(out.Rows, "; "), err)
	// Output: summary saw 0 rows; chart saw 0 rows <nil>
}

// An error route hands a node's failure to a handler node, which may
// recover: here it answers from a fallback instead.
func ExampleOnError() {
	g := graph.New[Doc]().
		AddNode("query", func(_ context.Context, d Doc) (Doc, error) {
			return d, fault.New(fault.UpstreamError, "The warehouse is down.")
		}, graph.OnError("recover")).
		AddNode("recover", func(_ context.Context, d Doc) (Doc, error) {
			d.Answer = "Served from cache (" + d.Failure + ")"
			return d, nil
		}).
		AddEdge("query", graph.End).AddEdge("recover", graph.End).
		SetEntry("query")
	r, _ := g.Compile(&graph.Config[Doc]{
		ErrorState: func(d Doc, err *graph.NodeError) Doc {
			d.Failure = string(fault.CodeOf(err))
			return d
		},
	})
	out, err := r.Invoke(context.Background(), Doc{})
	fmt.Println(out.Answer, err)
	// Output: Served from cache (UPSTREAM_ERROR) <nil>
}

// A run that fails is resumed from the node that failed, once its cause is
// fixed; the nodes before it do not run again.
func ExampleRunnable_Resume() {
	var calls []string
	warehouseUp := false
	g := graph.New[Doc]().
		AddNode("parse", func(_ context.Context, d Doc) (Doc, error) {
			calls = append(calls, "parse")
			return d, nil
		}).
		AddNode("query", func(_ context.Context, d Doc) (Doc, error) {
			calls = append(calls, "query")
			if !warehouseUp {
				return d, fault.New(fault.ServiceUnavailable, "")
			}
			d.Rows = []string{"42"}
			return d, nil
		}).
		AddEdge("parse", "query").AddEdge("query", graph.End).
		SetEntry("parse")
	r, _ := g.Compile(&graph.Config[Doc]{Checkpointer: &graph.MemoryCheckpointer[Doc]{}})

	_, err := r.Invoke(context.Background(), Doc{}, graph.WithRunID("run-7"))
	var ne *graph.NodeError
	errors.As(err, &ne)
	fmt.Println(ne.Node, ne.RunID)

	warehouseUp = true
	out, err := r.Resume(context.Background(), ne.RunID)
	fmt.Println(out.Rows, err, strings.Join(calls, ","))
	// Output:
	// query run-7
	// [42] <nil> parse,query,query
}

// Streaming with error events: the failure is the last event, in seed
// 003's shape.
func ExampleRunnable_Stream() {
	g := graph.New[Doc]().
		AddNode("retrieve", func(_ context.Context, d Doc) (Doc, error) { return d, nil }).
		AddNode("chart", func(_ context.Context, d Doc) (Doc, error) {
			return d, errors.New("pie chart cannot show a time series")
		}).
		AddEdge("retrieve", "chart").AddEdge("chart", graph.End).
		SetEntry("retrieve")
	r, _ := g.Compile(nil)
	for ev := range r.Stream(context.Background(), Doc{Query: "sales by month"}, graph.ErrorEvents()) {
		fmt.Println(ev.Type, ev.Node)
		if ev.Type == graph.EventError {
			fmt.Println(ev.Err)
		}
	}
	// Output:
	// node_started retrieve
	// node_finished retrieve
	// node_started chart
	// error chart
	// error in node "chart": pie chart cannot show a time series
}

// A node streams its output with Emit: a streamed run yields each piece as
// an output event between the node's node_started and node_finished, in
// the order sent, here as text chunks an LLM would send.
func ExampleEmit() {
	g := graph.New[Doc]().
		AddNode("retrieve", func(_ context.Context, d Doc) (Doc, error) {
			d.Rows = []string{"revenue 2025: 12M"}
			return d, nil
		}).
		AddNode("answer", func(ctx context.Context, d Doc) (Doc, error) {
			for _, chunk := range []string{"Revenue ", "was ", "12M."} {
				graph.Emit(ctx, chunk)
				d.Answer += chunk
			}
			return d, nil
		}).
		AddEdge("retrieve", "answer").AddEdge("answer", graph.End).
		SetEntry("retrieve")
	r, _ := g.Compile(nil)
	for ev, err := range r.Stream(context.Background(), Doc{Query: "revenue?"}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		switch ev.Type {
		case graph.EventOutput:
			b, _ := json.Marshal(ev)
			fmt.Println(string(b))
		case graph.EventEnd:
			fmt.Println(ev.Type, ev.State.Answer)
		default:
			fmt.Println(ev.Type, ev.Node, ev.Step)
		}
	}
	// Output:
	// node_started retrieve 1
	// node_finished retrieve 1
	// node_started answer 2
	// {"type":"output","node":"answer","step":2,"output":"Revenue "}
	// {"type":"output","node":"answer","step":2,"output":"was "}
	// {"type":"output","node":"answer","step":2,"output":"12M."}
	// node_finished answer 2
	// end Revenue was 12M.
}

// Invoke does not stream: Config.OnOutput receives what nodes Emit, with
// the node and its step.
func ExampleConfig_onOutput() {
	g := graph.New[Doc]().
		AddNode("answer", func(ctx context.Context, d Doc) (Doc, error) {
			graph.Emit(ctx, "Hello, ")
			graph.Emit(ctx, "world.")
			return d, nil
		}).
		AddEdge("answer", graph.End).SetEntry("answer")
	r, _ := g.Compile(&graph.Config[Doc]{
		OnOutput: func(_ context.Context, node string, step int, output any) {
			fmt.Printf("%s #%d: %q\n", node, step, output)
		},
	})
	_, err := r.Invoke(context.Background(), Doc{})
	fmt.Println(err)
	// Output:
	// answer #1: "Hello, "
	// answer #1: "world."
	// <nil>
}

// WhenIdle tells a consumer when the run has no event waiting: the time
// to flush what it buffered (aguirun.Run flushes its SSE stream then).
func ExampleWhenIdle() {
	g, err := graph.New[string]().
		AddNode("answer", func(ctx context.Context, s string) (string, error) {
			graph.Emit(ctx, "Hel")
			graph.Emit(ctx, "lo")
			return s, nil
		}).
		AddEdge("answer", graph.End).SetEntry("answer").Compile(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	var buffered []string
	flush := graph.WhenIdle(func() {
		if len(buffered) > 0 {
			buffered = buffered[:0] // written out here, in one write
		}
	})
	var text strings.Builder
	for ev, err := range g.Stream(context.Background(), "", flush) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if ev.Type == graph.EventOutput {
			buffered = append(buffered, ev.Output.(string))
			text.WriteString(ev.Output.(string))
		}
	}
	fmt.Println(text.String())
	// Output:
	// Hello
}
