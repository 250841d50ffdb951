package graph

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// End is the name of the graph's end: an edge to End finishes the run.
const End = "__end__"

// Node is a step of the pipeline: it receives the state and returns the new
// state, or an error.
type Node[S any] func(ctx context.Context, state S) (S, error)

// Router picks the next node after a node, from the state. It may fail; its
// failure follows the same contract as a node's.
type Router[S any] func(ctx context.Context, state S) (string, error)

// FanIn merges the results of a fan-out's branches, given in declaration
// order, into the state that continues after it. state is the state the
// fan-out started from.
type FanIn[S any] func(ctx context.Context, state S, branches []S) (S, error)

// Graph is a StateGraph under construction. Add nodes and edges, then
// Compile it. Mistakes (a duplicate name, an edge to nowhere) are collected
// and reported by Compile, so building never panics.
type Graph[S any] struct {
	nodes map[string]*nodeSpec[S]
	order []string // declaration order, for messages and determinism
	entry string
	errs  []error
}

type nodeSpec[S any] struct {
	name  string
	fn    Node[S]
	fanIn FanIn[S] // set for fan-in nodes instead of fn

	// Exactly one way out: an edge, a router, or a fan-out.
	next       string
	router     Router[S]
	targets    []string // a router's possible targets
	branches   []string // a fan-out's branches
	join       string   // a fan-out's fan-in node
	sequential bool     // a fan-out whose branches run one after another
	outs       int      // how many ways out were declared

	onError string // the node that handles this node's failure
	retry   *retrySpec
}

// New returns an empty graph.
func New[S any]() *Graph[S] {
	return &Graph[S]{nodes: map[string]*nodeSpec[S]{}}
}

func (g *Graph[S]) errorf(format string, args ...any) {
	g.errs = append(g.errs, fmt.Errorf(format, args...))
}

func (g *Graph[S]) add(name string, spec *nodeSpec[S]) *nodeSpec[S] {
	switch {
	case name == "":
		g.errorf("a node has an empty name")
		return spec
	case name == End:
		g.errorf("%q is reserved for the end of the graph", End)
		return spec
	case g.nodes[name] != nil:
		g.errorf("duplicate node %q", name)
		return spec
	}
	spec.name = name
	g.nodes[name] = spec
	g.order = append(g.order, name)
	return spec
}

// AddNode adds a node. Options set its error route and its retries.
func (g *Graph[S]) AddNode(name string, fn Node[S], opts ...NodeOption) *Graph[S] {
	if fn == nil {
		g.errorf("node %q has a nil function", name)
		return g
	}
	spec := g.add(name, &nodeSpec[S]{fn: fn})
	g.apply(spec, opts)
	return g
}

// AddFanIn adds a fan-in node: the node a fan-out's branches converge on.
// It receives the branches' results in declaration order and merges them.
func (g *Graph[S]) AddFanIn(name string, fn FanIn[S], opts ...NodeOption) *Graph[S] {
	if fn == nil {
		g.errorf("fan-in node %q has a nil function", name)
		return g
	}
	spec := g.add(name, &nodeSpec[S]{fanIn: fn})
	g.apply(spec, opts)
	return g
}

func (g *Graph[S]) apply(spec *nodeSpec[S], opts []NodeOption) {
	var o nodeOptions
	for _, opt := range opts {
		opt(&o)
	}
	spec.onError = o.onError
	spec.retry = o.retry
}

func (g *Graph[S]) out(from string) *nodeSpec[S] {
	spec := g.nodes[from]
	if spec == nil {
		g.errorf("edge from unknown node %q", from)
		return nil
	}
	spec.outs++
	if spec.outs > 1 {
		g.errorf("node %q has more than one way out (an edge, conditional edges or a fan-out)", from)
	}
	return spec
}

// AddEdge makes to follow from. to may be End.
func (g *Graph[S]) AddEdge(from, to string) *Graph[S] {
	if spec := g.out(from); spec != nil {
		spec.next = to
	}
	return g
}

// AddConditionalEdges makes router pick the node that follows from, among
// targets (which may include End). Declaring the targets lets Compile check
// them and the graph's reachability; a router that returns any other name
// fails the run with "no valid next node from".
func (g *Graph[S]) AddConditionalEdges(from string, router Router[S], targets ...string) *Graph[S] {
	if router == nil {
		g.errorf("node %q has a nil router", from)
		return g
	}
	if len(targets) == 0 {
		g.errorf("conditional edges from %q declare no targets", from)
	}
	if spec := g.out(from); spec != nil {
		spec.router, spec.targets = router, slices.Clone(targets)
	}
	return g
}

// AddFanOut makes the nodes in branches run in parallel after from, each on
// its own copy of the state (see WithClone), each following its own edges
// until it reaches the fan-in node join, which merges their results in the
// order branches lists them.
func (g *Graph[S]) AddFanOut(from string, join string, branches ...string) *Graph[S] {
	if join == "" {
		g.errorf("fan-out from %q has no fan-in node", from)
	}
	if len(branches) == 0 {
		g.errorf("fan-out from %q has no branches", from)
	}
	if spec := g.out(from); spec != nil {
		spec.branches, spec.join = slices.Clone(branches), join
	}
	return g
}

// AddSequentialFanOut is AddFanOut for branches so quick that starting and
// waking a goroutine would cost more than running them: it runs them one
// after another, in the order branches lists them, on the goroutine that
// reached from. All else is as for AddFanOut: each branch runs on its own
// copy of the state, which no other branch sees; join merges their results
// in order; a failing branch stops the branches not yet started, and the
// fan-out fails with it; checkpoints record each branch as it completes,
// and a resumed run runs only the branches that had not.
//
// Branches of a fan-out are independent by construction, so the order is
// an execution choice, not a dependency: a graph may switch between the
// two declarations without changing what it computes.
func (g *Graph[S]) AddSequentialFanOut(from string, join string, branches ...string) *Graph[S] {
	g.AddFanOut(from, join, branches...)
	if spec := g.nodes[from]; spec != nil && spec.join == join && slices.Equal(spec.branches, branches) {
		spec.sequential = true
	}
	return g
}

// SetEntry names the node the run starts at.
func (g *Graph[S]) SetEntry(name string) *Graph[S] {
	g.entry = name
	return g
}

// validate checks the graph; every problem is reported, joined.
func (g *Graph[S]) validate() error {
	errs := slices.Clone(g.errs)
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	known := func(name string) bool { return name == End || g.nodes[name] != nil }
	if g.entry == "" {
		bad("no entry point: call SetEntry")
	} else if g.nodes[g.entry] == nil {
		bad("entry point %q is not a node", g.entry)
	}
	for _, name := range g.order {
		spec := g.nodes[name]
		switch {
		case spec.outs == 0:
			bad("node %q has no way out: add an edge (to graph.End to finish)", name)
		case spec.router != nil:
			for _, t := range spec.targets {
				if !known(t) {
					bad("conditional edge from %q to unknown node %q", name, t)
				}
			}
		case spec.branches != nil:
			join := g.nodes[spec.join]
			switch {
			case spec.join == "":
			case join == nil:
				bad("fan-out from %q to unknown fan-in node %q", name, spec.join)
			case join.fanIn == nil:
				bad("fan-out from %q converges on %q, which is not a fan-in node (use AddFanIn)", name, spec.join)
			}
			seen := map[string]bool{}
			for _, b := range spec.branches {
				switch {
				case seen[b]:
					bad("fan-out from %q lists branch %q twice", name, b)
				case g.nodes[b] == nil:
					bad("fan-out from %q to unknown node %q", name, b)
				case join != nil && !g.reaches(b, spec.join):
					bad("branch %q of the fan-out from %q never reaches its fan-in node %q", b, name, spec.join)
				}
				seen[b] = true
			}
		default:
			if !known(spec.next) {
				bad("edge from %q to unknown node %q", name, spec.next)
			}
		}
		if spec.onError != "" && g.nodes[spec.onError] == nil {
			bad("node %q routes its errors to unknown node %q", name, spec.onError)
		}
	}
	errs = append(errs, g.validateFanOuts()...)
	if g.nodes[g.entry] != nil {
		reach := g.reachable(g.entry)
		for _, name := range g.order {
			if !reach[name] {
				bad("node %q is unreachable from the entry point %q", name, g.entry)
			}
		}
	}
	return errors.Join(errs...)
}

// validateFanOuts checks that each fan-out's branches form a region of
// their own: they converge on its fan-in node and nowhere else, cannot end
// the run, and no other node reaches that fan-in node; and that each fan-in
// node is the join of exactly one fan-out.
func (g *Graph[S]) validateFanOuts() []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	joins := map[string][]string{} // fan-in node → the fan-outs converging on it
	for _, name := range g.order {
		spec := g.nodes[name]
		if spec.branches == nil || g.nodes[spec.join] == nil || g.nodes[spec.join].fanIn == nil {
			continue
		}
		joins[spec.join] = append(joins[spec.join], name)
		region := g.region(spec.branches, spec.join)
		for _, n := range g.order {
			if !region[n] {
				continue
			}
			inner := g.nodes[n]
			if slices.Contains(g.successors(inner), End) {
				bad("node %q, in a branch of the fan-out from %q, can end the run without its fan-in node %q", n, name, spec.join)
			}
			if inner.branches != nil && inner.join == spec.join {
				bad("the fan-out from %q, inside a branch of the fan-out from %q, converges on the same fan-in node %q", n, name, spec.join)
			}
		}
		for _, n := range g.order {
			if n == name || region[n] {
				continue
			}
			if s := g.nodes[n]; s.join != spec.join && slices.Contains(g.successors(s), spec.join) {
				bad("fan-in node %q is reached from node %q, outside the branches of the fan-out from %q", spec.join, n, name)
			}
		}
	}
	for _, name := range g.order {
		spec := g.nodes[name]
		if spec.fanIn == nil {
			continue
		}
		switch forks := joins[name]; {
		case len(forks) == 0:
			bad("fan-in node %q is not the fan-in node of any fan-out", name)
		case len(forks) > 1:
			bad("fan-in node %q is the fan-in node of several fan-outs (%q)", name, forks)
		}
	}
	return errs
}

// region returns the nodes reachable from starts without passing through
// stop.
func (g *Graph[S]) region(starts []string, stop string) map[string]bool {
	seen := map[string]bool{}
	stack := slices.Clone(starts)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		spec := g.nodes[n]
		if spec == nil || seen[n] || n == stop {
			continue
		}
		seen[n] = true
		stack = append(stack, g.successors(spec)...)
	}
	return seen
}

// successors lists where a node may go next: its edge, its router's
// targets, its branches and fan-in, its error route.
func (g *Graph[S]) successors(spec *nodeSpec[S]) []string {
	var out []string
	if spec.next != "" {
		out = append(out, spec.next)
	}
	out = append(out, spec.targets...)
	out = append(out, spec.branches...)
	if spec.join != "" {
		out = append(out, spec.join)
	}
	if spec.onError != "" {
		out = append(out, spec.onError)
	}
	return out
}

func (g *Graph[S]) reachable(from string) map[string]bool {
	seen := map[string]bool{}
	stack := []string{from}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		spec := g.nodes[n]
		if spec == nil || seen[n] {
			continue
		}
		seen[n] = true
		stack = append(stack, g.successors(spec)...)
	}
	return seen
}

func (g *Graph[S]) reaches(from, to string) bool { return g.reachable(from)[to] }
