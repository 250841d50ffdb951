package natsingress_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/triage-go/triage/adapter/natsingress"
	"github.com/triage-go/triage/internal/testkit/natstest"
)

// report is db_timeout.json with another query_id: another report.
func report(t *testing.T, queryID string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(golden(t, "db_timeout.json"), &m); err != nil {
		t.Fatal(err)
	}
	m["data"].(map[string]any)["query_id"] = queryID
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRedeliveredOneRecord: a message whose commit outlasts the ack wait
// is delivered again while the first delivery still holds it, and the
// report is one record all the same: when the first delivery's handling
// is cut at the ack wait (its commit fails; a later delivery handles the
// report anew), with a Nats-Msg-Id or without, and when its commit goes
// through late (the delivery in between is handled too: the first to
// commit answers, the other writes nothing).
func TestRedeliveredOneRecord(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, key  string
		commitLate bool
	}{
		{"CommitCut", "", false},
		{"CommitCutWithKey", "redelivered-1", false},
		{"CommitLate", "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			gate := make(chan struct{})
			var saves atomic.Int32
			b := setup(t, options{cfg: natsingress.Config{AckWait: time.Second}, hooks: hooks{
				save: func(context.Context) error {
					if saves.Add(1) == 1 {
						<-gate // the first commit, past the ack wait
					}
					return nil
				},
				commitLate: c.commitLate,
			}})
			onFeedback := b.bus.Listen(t, b.cfg.FeedbackSubject("default"))
			var header []string
			if c.key != "" {
				header = []string{natsingress.HeaderMsgID, c.key}
			}
			ack := b.publish(t, "default", golden(t, "db_timeout.json"), header...)
			natstest.Eventually(t, "a second delivery", func() bool { return b.consumer(t, "default").Delivered.Consumer >= 2 })
			close(gate)

			first := natstest.Receive(t, onFeedback, "feedback")
			wantHeader(t, first.Header, natsingress.HeaderStatus, "201")
			// A report is one write (issue 28): no claim holds the
			// report while it is in hand, so the delivery in between is
			// handled too. A cut commit fails, and a later delivery
			// answers; a late one races the one in between, and the
			// first to commit answers (the other finds the delivery
			// saved and writes nothing). Two writes answered a late
			// commit at delivery 1 always: Start's claim put the one in
			// between off.
			delivered, _ := strconv.Atoi(first.Header.Get(natsingress.HeaderDelivered))
			if !c.commitLate && delivered < 2 {
				t.Errorf("answered at delivery %d, want a later one", delivered)
			}
			id := feedback(t, first).ErrorID
			b.waitAcked(t, ack)
			// A later delivery may have been answered too, from the record.
			for more := true; more; {
				select {
				case m := <-onFeedback:
					if fb := feedback(t, m); fb.ErrorID != id {
						t.Errorf("a redelivery answered %s, want %s", fb.ErrorID, id)
					}
				case <-time.After(300 * time.Millisecond):
					more = false
				}
			}
			recs := b.records(t, "default")
			if len(recs) != 1 || recs[0].ErrorID != id || recs[0].Count != 1 {
				t.Errorf("records %+v, want one of %s with one occurrence", recs, id)
			}
		})
	}
}

// TestStoreFailureNaks: while the store fails (at the report's first
// write, or at its commit), the message is neither acknowledged nor
// dead-lettered but delivered again, later each time; once the store
// recovers, it is handled.
func TestStoreFailureNaks(t *testing.T) {
	t.Parallel()
	for _, at := range []string{"Start", "Commit"} {
		t.Run(at, func(t *testing.T) {
			t.Parallel()
			var failing atomic.Bool
			failing.Store(true)
			var failures atomic.Int32
			fail := func(context.Context) error {
				if failing.Load() {
					failures.Add(1)
					return errors.New("disk I/O error (simulated)")
				}
				return nil
			}
			h := hooks{start: fail}
			if at == "Commit" {
				h = hooks{save: fail}
			}
			b := setup(t, options{hooks: h})
			onFeedback := b.bus.Listen(t, b.cfg.FeedbackSubject("default"))
			dead := b.bus.Listen(t, b.cfg.DeadLetter+".>")
			ack := b.publish(t, "default", golden(t, "db_timeout.json"))

			natstest.Eventually(t, "a delivery after the failure", func() bool { return failures.Load() >= 2 })
			info := b.consumer(t, "default")
			if info.NumAckPending != 1 || info.AckFloor.Stream >= ack.Sequence {
				t.Errorf("while the store fails: %d pending, ack floor %d; want the message unacknowledged", info.NumAckPending, info.AckFloor.Stream)
			}
			none(t, onFeedback, 0, "feedback while the store fails")
			none(t, dead, 0, "dead letter of a store failure")
			if recs := b.records(t, "default"); len(recs) != 0 {
				t.Errorf("records %+v while the store fails", recs)
			}

			failing.Store(false)
			m := natstest.Receive(t, onFeedback, "feedback once the store recovered")
			wantHeader(t, m.Header, natsingress.HeaderStatus, "201")
			if n, _ := strconv.Atoi(m.Header.Get(natsingress.HeaderDelivered)); n < 3 {
				t.Errorf("handled at delivery %d, want after at least 2 refused", n)
			}
			b.waitAcked(t, ack)
			if recs := b.records(t, "default"); len(recs) != 1 || recs[0].Count != 1 {
				t.Errorf("records %+v, want one", recs)
			}
			none(t, dead, 100*time.Millisecond, "dead letter")
		})
	}
}

// TestReadyz: /readyz says when the NATS consumer is down.
func TestReadyz(t *testing.T) {
	t.Parallel()
	b := setup(t, options{})
	b.srv.RegisterReadiness("nats", b.in.Ready)
	hs := httptest.NewServer(b.srv)
	defer hs.Close()
	readyz := func() (int, string) {
		resp, err := http.Get(hs.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var p struct{ Details struct{ Reason string } }
		_ = json.NewDecoder(resp.Body).Decode(&p)
		return resp.StatusCode, p.Details.Reason
	}
	if status, reason := readyz(); status != 200 {
		t.Fatalf("/readyz with the consumer running: %d %s", status, reason)
	}
	if err := b.in.Close(); err != nil {
		t.Fatal(err)
	}
	if status, reason := readyz(); status != 503 || reason != "nats_down" {
		t.Errorf("/readyz with the consumer closed: %d %q, want 503 nats_down", status, reason)
	}
}

// TestConsumerDeletedSetUpAgain: a durable consumer deleted under the
// service is made again, and reports flow again.
func TestConsumerDeletedSetUpAgain(t *testing.T) {
	t.Parallel()
	b := setup(t, options{})
	onFeedback := b.bus.Listen(t, b.cfg.FeedbackSubject("default"))
	if err := b.js.DeleteConsumer(t.Context(), b.cfg.StreamName("default"), natsingress.DefaultDurable); err != nil {
		t.Fatal(err)
	}
	ack := b.publish(t, "default", golden(t, "db_timeout.json"))
	m := natstest.Receive(t, onFeedback, "feedback after the consumer was deleted")
	wantHeader(t, m.Header, natsingress.HeaderStatus, "201")
	b.waitAcked(t, ack)
	natstest.Eventually(t, "ready again", func() bool { return b.in.Ready(t.Context()) == nil })
}

// TestShutdownDrains: Close fetches no more, waits for the message in
// hand, which commits, answers and is acknowledged.
func TestShutdownDrains(t *testing.T) {
	t.Parallel()
	gate, saving := make(chan struct{}), make(chan struct{})
	b := setup(t, options{hooks: hooks{save: func(context.Context) error {
		close(saving)
		<-gate
		return nil
	}}})
	onFeedback := b.bus.Listen(t, b.cfg.FeedbackSubject("default"))
	ack := b.publish(t, "default", golden(t, "db_timeout.json"))
	<-saving
	closed := make(chan error)
	go func() { closed <- b.in.Close() }()
	select {
	case <-closed:
		t.Fatal("Close returned with a message in hand")
	case <-time.After(300 * time.Millisecond):
	}
	close(gate)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	wantHeader(t, natstest.Receive(t, onFeedback, "feedback of the drained message").Header, natsingress.HeaderStatus, "201")
	b.waitAcked(t, ack)
}

// TestBackpressure: no more than Workers reports are in hand at once,
// and no more than MaxAckPending messages delivered unacknowledged.
func TestBackpressure(t *testing.T) {
	t.Parallel()
	const workers, maxAckPending, reports = 2, 3, 8
	gate := make(chan struct{})
	var inHand, most atomic.Int32
	b := setup(t, options{cfg: natsingress.Config{Workers: workers, MaxAckPending: maxAckPending, AckWait: 10 * time.Second},
		hooks: hooks{save: func(context.Context) error {
			n := inHand.Add(1)
			defer inHand.Add(-1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			<-gate
			return nil
		}}})
	onFeedback := b.bus.Listen(t, b.cfg.FeedbackSubject("default"))
	var last *jetstream.PubAck
	for i := range reports {
		last = b.publish(t, "default", report(t, "q_bp_"+strconv.Itoa(i)))
	}
	natstest.Eventually(t, "the workers busy", func() bool { return inHand.Load() == workers })
	// NATS delivers what MaxAckPending lets it: the ingress holds one
	// more message than its workers, which no worker may take.
	natstest.Eventually(t, "the messages delivered", func() bool {
		return b.consumer(t, "default").NumAckPending == maxAckPending
	})
	if info := b.consumer(t, "default"); info.NumAckPending > maxAckPending || most.Load() != workers {
		t.Errorf("%d in hand at most, %d delivered unacknowledged; want %d and at most %d",
			most.Load(), info.NumAckPending, workers, maxAckPending)
	}
	close(gate)
	for range reports {
		wantHeader(t, natstest.Receive(t, onFeedback, "feedback").Header, natsingress.HeaderStatus, "201")
	}
	b.waitAcked(t, last)
	if n := len(b.records(t, "default")); n != reports {
		t.Errorf("%d records, want %d", n, reports)
	}
}

// TestTenantsTakeTurns: a tenant's backlog does not hold another
// tenant's report back: with one worker and ta's 20 slow reports
// published first, tb's is handled within the next few, not after all of
// ta's (each tenant's stream is a lane of its own, and the lanes take the
// free worker in turn).
func TestTenantsTakeTurns(t *testing.T) {
	t.Parallel()
	const backlog = 20
	b := setup(t, options{apiKeys: map[string]string{"ta-key-0123456789abcdef": "ta", "tb-key-0123456789abcdef": "tb"},
		cfg: natsingress.Config{Workers: 1, AckWait: 30 * time.Second},
		hooks: hooks{save: func(context.Context) error {
			time.Sleep(50 * time.Millisecond)
			return nil
		}}})
	onFeedback := b.bus.Listen(t, b.cfg.Feedback+".>")
	for i := range backlog {
		b.publish(t, "ta", report(t, "q_turns_"+strconv.Itoa(i)))
	}
	natstest.Receive(t, onFeedback, "ta's first feedback")
	b.publish(t, "tb", report(t, "q_turns_tb"))
	for i := 1; ; i++ {
		m := natstest.Receive(t, onFeedback, "feedback")
		if m.Subject == b.cfg.FeedbackSubject("tb") {
			t.Logf("tb's report answered %d reports after it was published (ta's backlog: %d)", i, backlog)
			if i > 4 {
				t.Errorf("tb's report answered after %d of ta's backlog, want at most 3", i-1)
			}
			return
		}
		if i > backlog {
			t.Fatal("no feedback for tb")
		}
	}
}
