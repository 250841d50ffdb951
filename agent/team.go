package agent

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/triage-go/triage/fault"
)

// teamBackend runs a team: each prompt goes to every member at once, each
// in a session of its own opened for the team's owner (so the members'
// capacities and the owner's share of them apply), and the answer is the
// members' answers in the team's order. The first member to fail stops
// the others, and its fault is the team's.
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

// Prompt delegates text to every member in parallel. A member's answer is
// emitted, as one chunk "member: answer", when that member finishes, and
// its notices as they come; the result holds the answers in the team's
// order.
func (b *teamBackend) Prompt(ctx context.Context, _ string, text string, emit func(Chunk)) (Result, error) {
	owner, _ := ctx.Value(ownerKey{}).(string)
	bctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]Result, len(b.members))
	errs := make([]error, len(b.members))
	var (
		wg  sync.WaitGroup
		out sync.Mutex // emit is called by one member at a time
	)
	for i, id := range b.members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, _, err := b.m.Delegate(bctx, owner, id, text, nil, func(c Chunk) {
				if c.Notice != nil { // a member's notice is the team's
					out.Lock()
					emit(Chunk{Notice: c.Notice})
					out.Unlock()
				}
			})
			results[i], errs[i] = res, err
			if err != nil {
				cancel() // the first failure stops the others
				return
			}
			out.Lock()
			emit(Chunk{Text: Section(id, res.Text)})
			out.Unlock()
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Result{}, err // the team's own prompt was cancelled or timed out
	}
	if err := firstFailure(errs); err != nil {
		return Result{}, err
	}
	res := Result{StopReason: "end_turn"}
	parts := make([]string, len(b.members))
	for i, id := range b.members {
		parts[i] = Section(id, results[i].Text)
		if r := results[i].StopReason; r != "end_turn" && res.StopReason == "end_turn" {
			res.StopReason = r
		}
	}
	res.Text = strings.Join(parts, "\n\n")
	return res, nil
}

// Section is one member's answer as a team's answer shows it.
func Section(member, text string) string { return member + ": " + text }

// firstFailure is the team's fault: the first member's failure, in the
// team's order, that was not only the cancellation another member's
// failure caused, with its session validity the code's own (the member's
// session is gone; the team's is not).
func firstFailure(errs []error) error {
	var first error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if first == nil {
			first = err
		}
		if fault.CodeOf(err) != fault.Cancelled {
			first = err
			break
		}
	}
	if first == nil {
		return nil
	}
	var f *fault.Error
	if errors.As(first, &f) {
		f = f.Clone()
		if spec, ok := fault.Lookup(f.Code); ok {
			f.SessionValid = spec.SessionValid
		}
		return f
	}
	return first
}

// Cancel needs nothing: the Manager cancels the prompt's context, which
// cancels the members' prompts.
func (b *teamBackend) Cancel(context.Context, string) error { return nil }

func (b *teamBackend) CloseSession(string) {}

func (b *teamBackend) Close() error { return nil }
