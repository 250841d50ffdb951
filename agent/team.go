package agent

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/graph"
)

// teamBackend runs a team: each prompt goes to every member at once, each
// in a session of its own opened for the team's owner (so the members'
// capacities and the owner's share of them apply), and the answer is the
// members' answers in the team's order. The first member to fail stops
// the others, and its fault is the team's. The run is TeamGraph's, the one
// an AG-UI run of the team streams (package aguirun).
type teamBackend struct {
	id      string
	members []string
	m       *Manager

	mu   sync.Mutex
	next int
}

func newTeam(id string, members []string) *teamBackend {
	return &teamBackend{id: id, members: members}
}

func (b *teamBackend) bind(m *Manager) { b.m = m }

// ownerPrompter is a Backend that prompts on behalf of the session's owner:
// a team, whose members' sessions are opened for the team's owner. The
// Manager calls its promptFor, with the owner, instead of Prompt.
type ownerPrompter interface {
	promptFor(ctx context.Context, owner, session, text string, emit func(Chunk)) (Result, error)
}

// Start checks that the members are agents of the manager; they start on
// their own.
func (b *teamBackend) Start(context.Context) error {
	if b.m == nil {
		return fault.New(fault.ConfigError, "Team "+b.id+" is not bound to a manager")
	}
	for _, id := range b.members {
		if _, ok := b.m.agents[id]; !ok {
			return fault.New(fault.ConfigError, "Team "+b.id+" names an unknown member: "+id,
				fault.WithDetail("agentId", b.id), fault.WithDetail("member", id))
		}
	}
	return nil
}

func (b *teamBackend) NewSession(context.Context) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.next++
	return b.id + "-" + strconv.Itoa(b.next), nil
}

// Prompt is promptFor without an owner; the Manager calls promptFor.
func (b *teamBackend) Prompt(ctx context.Context, session, text string, emit func(Chunk)) (Result, error) {
	return b.promptFor(ctx, "", session, text, emit)
}

// promptFor delegates text to every member in parallel (TeamGraph), each in
// a session opened for owner, the team's session's owner. A member's answer
// is emitted, as one chunk "member: answer", when that member finishes, and
// its notices as they come; the result holds the answers in the team's
// order.
func (b *teamBackend) promptFor(ctx context.Context, owner, _ string, text string, emit func(Chunk)) (Result, error) {
	var out sync.Mutex // emit is called by one member at a time
	member := func(id string) graph.Node[Result] {
		return func(ctx context.Context, _ Result) (Result, error) {
			res, _, err := b.m.Delegate(ctx, owner, id, text, nil, func(c Chunk) {
				if c.Notice != nil { // a member's notice is the team's
					out.Lock()
					emit(Chunk{Notice: c.Notice})
					out.Unlock()
				}
			})
			if err != nil {
				return Result{}, err
			}
			out.Lock()
			emit(Chunk{Text: Section(id, res.Text)})
			out.Unlock()
			return res, nil
		}
	}
	g, err := TeamGraph(b.id, b.members, member,
		func(r Result) Result { return r }, func(_ Result, answer Result) Result { return answer })
	if err != nil {
		return Result{}, fault.Wrap(err, fault.InternalError, "Team "+b.id+" cannot run")
	}
	res, err := g.Invoke(ctx, Result{})
	if cerr := ctx.Err(); cerr != nil {
		return Result{}, cerr // the team's own prompt was cancelled or timed out
	}
	if err != nil {
		return Result{}, DelegatedFault(err)
	}
	return res, nil
}

// TeamGraph is a team's run as a graph over a state S: a node named after
// the team, which passes the state on; a fan-out with one branch per
// member, the node member(id) named after the member, run in parallel;
// then the fan-in node "{team}/answer", which sets the state's answer
// (with set) to the members' answers (read with answer) joined by
// JoinAnswers in the team's order. The first member to fail cancels the
// others (graph's fail fast), and the run's failure is the first failure
// in the team's order that was not that cancellation (a *graph.NodeError
// naming the member's node; see DelegatedFault for the team's fault).
//
// A team's agent (kind team) runs on it; so does an AG-UI run of a team
// (package aguirun), which streams each member's answer on its own.
func TeamGraph[S any](team string, members []string, member func(id string) graph.Node[S],
	answer func(S) Result, set func(S, Result) S) (*graph.Runnable[S], error) {
	join := team + "/answer"
	g := graph.New[S]().
		AddNode(team, func(_ context.Context, s S) (S, error) { return s, nil }).
		AddFanOut(team, join, members...).
		AddFanIn(join, func(_ context.Context, s S, branches []S) (S, error) {
			answers := make([]Result, len(branches))
			for i, b := range branches {
				answers[i] = answer(b)
			}
			return set(s, JoinAnswers(members, answers)), nil
		}).
		AddEdge(join, graph.End).
		SetEntry(team)
	for _, id := range members {
		g.AddNode(id, member(id)).AddEdge(id, join)
	}
	return g.Compile(nil)
}

// JoinAnswers is a team's answer: each member's, as Section shows it, in
// the team's order, separated by a blank line; its stop reason is
// "end_turn" unless a member stopped otherwise, then the first such
// member's.
func JoinAnswers(members []string, answers []Result) Result {
	res := Result{StopReason: "end_turn"}
	parts := make([]string, len(answers))
	for i, a := range answers {
		parts[i] = Section(members[i], a.Text)
		if a.StopReason != "end_turn" && res.StopReason == "end_turn" {
			res.StopReason = a.StopReason
		}
	}
	res.Text = strings.Join(parts, "\n\n")
	return res
}

// Section is one member's answer as a team's answer shows it.
func Section(member, text string) string { return member + ": " + text }

// DelegatedFault is the failure of a prompt that ran in a session of its
// own (Delegate, a team's member) as its caller's: the fault in err's
// chain (for a team's graph, the failing member's), copied, with its
// session validity the code's own (fault's table). The session Delegate
// opened is closed, so the Manager marks every failure of it invalid; the
// caller's own session (a team's, an AG-UI thread) is another, which a
// rate limit or a timeout does not end. An err without a fault is
// returned as it is.
func DelegatedFault(err error) error {
	f, ok := fault.As(err)
	if !ok {
		return err
	}
	f = f.Clone()
	if spec, ok := fault.Lookup(f.Code); ok {
		f.SessionValid = spec.SessionValid
	}
	return f
}

// Cancel needs nothing: the Manager cancels the prompt's context, which
// cancels the members' prompts.
func (b *teamBackend) Cancel(context.Context, string) error { return nil }

func (b *teamBackend) CloseSession(string) {}

func (b *teamBackend) Close() error { return nil }
