package agent_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/fault"
)

// team is a registry with two teams over three script agents: "panel"
// answers, "strained" fails in its second member while the first is
// still streaming.
const team = `agents:
  - {id: fast, kind: script, script: {reply: "quick {{prompt}}"}}
  - {id: slow, kind: script, maxSessions: 2, script: {chunks: ["one ", "two ", "three ", "four"], delay: 30ms}}
  - id: limited
    kind: script
    script: {chunks: ["a ", "b"], delay: 10ms, fail: {code: RATE_LIMITED, after: 1, retryAfter: 3s}}
  - {id: panel, kind: team, members: [slow, fast], maxSessions: 1}
  - {id: slower, kind: script, maxSessions: 2, script: {delay: 2s}}
  - {id: strained, kind: team, members: [slower, limited]}
`

func TestTeamAnswers(t *testing.T) {
	m := manager(t, team, agent.ManagerConfig{})
	var mu sync.Mutex
	var chunks []string
	res, s, err := m.Delegate(t.Context(), "acme", "panel", "hi", nil, func(c agent.Chunk) {
		mu.Lock()
		chunks = append(chunks, c.Text)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "slow: one two three four\n\nfast: quick hi"
	if res.Text != want || res.StopReason != "end_turn" {
		t.Errorf("result %+v, want text %q", res, want)
	}
	// Each member's answer is one chunk, as it finishes: fast first.
	if strings.Join(chunks, "|") != "fast: quick hi|slow: one two three four" {
		t.Errorf("chunks %q", chunks)
	}
	if s.AgentID != "panel" || s.State != agent.StateClosed {
		t.Errorf("session %+v", s)
	}
	var info agent.Info
	for _, a := range m.Agents() {
		if a.ID == "panel" {
			info = a
		}
	}
	if info.Kind != agent.KindTeam || strings.Join(info.Members, ",") != "slow,fast" {
		t.Errorf("discovery shows %+v", info)
	}
}

func TestTeamFailsWithItsFirstFailingMember(t *testing.T) {
	m := manager(t, team, agent.ManagerConfig{})
	start := time.Now()
	_, s, err := m.Delegate(t.Context(), "acme", "strained", "hi", nil, nil)
	f, ok := fault.As(err)
	if !ok {
		t.Fatalf("err = %v, want a fault", err)
	}
	// The member's fault, not the cancellation it caused in "slower",
	// though "slower" comes first in the team.
	if f.Code != fault.RateLimited || f.RetryAfter != 3*time.Second || f.Details["agentId"] != "limited" {
		t.Errorf("fault %+v", f)
	}
	if f.Details["sessionId"] != s.ID {
		t.Errorf("sessionId %v, want the team's session %s", f.Details["sessionId"], s.ID)
	}
	// "slower" (2 s before its first word) was stopped, not waited for.
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("the team took %v: the other member was not cancelled", d)
	}
	// Every member's session is closed and its slot free: slower holds 2.
	for range 2 {
		if _, err := m.Create(t.Context(), "acme", "slower", nil); err != nil {
			t.Fatalf("slower's capacity was not given back: %v", err)
		}
	}
}

func TestTeamPromptSessionSurvivesAMemberFailure(t *testing.T) {
	m := manager(t, team, agent.ManagerConfig{})
	s, err := m.Create(t.Context(), "acme", "strained", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Prompt(t.Context(), "acme", s.ID, "hi", nil)
	if fault.CodeOf(err) != fault.RateLimited {
		t.Fatalf("err = %v", err)
	}
	if f, _ := fault.As(err); !f.SessionValid {
		t.Error("a member's rate limit invalidated the team's session")
	}
	if got, _ := m.Status("acme", s.ID); got.State != agent.StateIdle {
		t.Errorf("state %s, want idle", got.State)
	}
}

func TestTeamCancel(t *testing.T) {
	m := manager(t, "agents:\n  - {id: a, kind: script}\n  - {id: b, kind: script}\n  - {id: t, kind: team, members: [a, b]}\n", agent.ManagerConfig{})
	s, err := m.Create(t.Context(), "acme", "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := m.Prompt(context.Background(), "acme", s.ID, "hang", nil)
		done <- err
	}()
	waitFor(t, func() bool { got, _ := m.Status("acme", s.ID); return got.State == agent.StateRunning })
	time.Sleep(20 * time.Millisecond) // the members' prompts are running
	if _, running, err := m.Cancel(t.Context(), "acme", s.ID); err != nil || !running {
		t.Fatalf("cancel: %v %v", running, err)
	}
	select {
	case err := <-done:
		if fault.CodeOf(err) != fault.Cancelled {
			t.Errorf("err = %v, want CANCELLED", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the team's prompt did not stop")
	}
	// The members' sessions are closed: their capacity is free again.
	for _, id := range []string{"a", "b"} {
		waitFor(t, func() bool {
			for _, h := range m.Health().Agents {
				if h.ID == id {
					return h.Sessions == 0
				}
			}
			return false
		})
	}
}

func TestReserveHoldsCapacity(t *testing.T) {
	m := manager(t, team, agent.ManagerConfig{})
	release, err := m.Reserve("acme", "panel")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Reserve("acme", "panel"); fault.CodeOf(err) != fault.ServiceUnavailable {
		t.Errorf("a second reservation of a team of one session: %v", err)
	}
	if _, err := m.Create(t.Context(), "acme", "panel", nil); fault.CodeOf(err) != fault.ServiceUnavailable {
		t.Errorf("a session beside the reservation: %v", err)
	}
	release()
	release() // a second release gives nothing back twice
	r2, err := m.Reserve("acme", "panel")
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	r2()
	if _, err := m.Reserve("acme", "nobody"); fault.CodeOf(err) != fault.CapabilityNotFound {
		t.Errorf("unknown agent: %v", err)
	}
	var f *fault.Error
	if _, err := m.Reserve("acme", "nobody"); !errors.As(err, &f) || f.Details["agentId"] != "nobody" {
		t.Errorf("unknown agent: %v", err)
	}
}

// JoinAnswers is the one merge of a team's answers, the team agent's and
// an AG-UI run's (package aguirun): "end_turn" unless a member stopped
// otherwise, then the first such member's reason, in the team's order.
func TestJoinAnswers(t *testing.T) {
	for _, c := range []struct {
		reasons []string
		want    string
	}{
		{nil, "end_turn"},
		{[]string{"end_turn", "end_turn"}, "end_turn"},
		{[]string{"end_turn", agent.StopToolCall}, agent.StopToolCall},
		{[]string{"max_tokens", agent.StopToolCall}, "max_tokens"},
		{[]string{"end_turn", "refusal", "max_tokens"}, "refusal"},
		{[]string{"", "end_turn"}, ""}, // a member that said no reason is not a complete answer
	} {
		members := make([]string, len(c.reasons))
		answers := make([]agent.Result, len(c.reasons))
		for i, r := range c.reasons {
			members[i] = string(rune('a' + i))
			answers[i] = agent.Result{Text: "t" + members[i], StopReason: r}
		}
		got := agent.JoinAnswers(members, answers)
		if got.StopReason != c.want {
			t.Errorf("%q: stop reason %q, want %q", c.reasons, got.StopReason, c.want)
		}
		var parts []string
		for _, m := range members {
			parts = append(parts, m+": t"+m)
		}
		if want := strings.Join(parts, "\n\n"); got.Text != want {
			t.Errorf("%q: text %q, want %q", c.reasons, got.Text, want)
		}
	}
}

// A team's failure is its member's fault with the code's own session
// validity; an error that is not a fault is returned as it is.
func TestDelegatedFault(t *testing.T) {
	f := fault.New(fault.RateLimited, "slow down")
	f.SessionValid = false // as Delegate leaves it: the member's session is closed
	got, ok := fault.As(agent.DelegatedFault(f))
	if !ok || got == f || !got.SessionValid || got.Code != fault.RateLimited {
		t.Errorf("got %+v", got)
	}
	if f.SessionValid {
		t.Error("DelegatedFault changed the fault it was given")
	}
	plain := errors.New("plain")
	if agent.DelegatedFault(plain) != plain {
		t.Error("a plain error was changed")
	}
}

// A team's members run for the team's session's owner: their sessions
// count against that owner's share of each member, not another's.
func TestTeamMembersRunForItsOwner(t *testing.T) {
	m := manager(t, "agents:\n  - {id: a, kind: script, maxSessions: 2}\n  - {id: b, kind: script}\n  - {id: t, kind: team, members: [a, b]}\n",
		agent.ManagerConfig{OwnerShare: 2}) // one session of a per owner
	ctx := t.Context()
	if _, err := m.Create(ctx, "acme", "a", nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.Delegate(ctx, "acme", "t", "hi", nil, func(agent.Chunk) {}); fault.CodeOf(err) != fault.ServiceUnavailable {
		t.Errorf("acme's team prompt with acme's share of a taken: %v, want a's capacity reached", err)
	}
	if _, _, err := m.Delegate(ctx, "globex", "t", "hi", nil, func(agent.Chunk) {}); err != nil {
		t.Errorf("globex's team prompt: %v", err)
	}
}
