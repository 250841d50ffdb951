package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/triage-go/triage/internal/testkit/pgtest"
	"github.com/triage-go/triage/wire/sse"
)

// testEventsAnnounced (PostgreSQL only: TestOnPostgres): two instances on
// one database, each its own store, served by Serve. A stream on one sees
// the feedback the other saves at once, though it polls only every
// minute: the other's commit is announced (NOTIFY) and wakes it. Before
// announcements it waited for its next poll.
func testEventsAnnounced(t *testing.T) {
	db := newDatabase(t)
	clk := &clock{now: scenarioNow}
	var bases []string
	for range 2 {
		st := openStore(t, db, clk)
		t.Cleanup(func() { st.Close() })
		srv, err := New(Config{Store: st, Now: clk.Now, RateLimit: -1, JobPoll: -1, EventPoll: time.Minute,
			Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- srv.Serve(ctx, ln) }()
		t.Cleanup(func() { cancel(); <-done })
		bases = append(bases, "http://"+ln.Addr().String())
	}
	resp, err := http.Get(bases[0] + "/v1/events")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /v1/events: %v %v", resp, err)
	}
	defer resp.Body.Close()
	rd := sse.NewReader(resp.Body)
	// The answer's head says the stream has begun (subscribed, its
	// cursor read); then the other instance saves a report.
	time.Sleep(100 * time.Millisecond) // the first instance's listener is up
	post, err := http.Post(bases[1]+"/v1/errors", "application/json", strings.NewReader(string(readFile(t, goldenDir+"/db_timeout.json"))))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(post.Body)
	post.Body.Close()
	var fb struct {
		ErrorID string `json:"error_id"`
	}
	if err := json.Unmarshal(body, &fb); err != nil || post.StatusCode != 201 {
		t.Fatalf("POST on the other instance: %d %s", post.StatusCode, body)
	}
	begun := time.Now()
	for {
		f := nextFrame(t, rd)
		if f.Event == "feedback" && strings.Contains(f.Data, fb.ErrorID) {
			break
		}
	}
	if d := time.Since(begun); d > 5*time.Second {
		t.Errorf("the event came %v after the save, the fallback poll being a minute", d)
	}
}

// testEventsPastOlderTransaction (PostgreSQL only: TestOnPostgres): a
// stream sees a run that ended while an older transaction of the database
// was still open soon after that transaction ends, though it polls only
// every minute. On PostgreSQL an end's position is its transaction's ID,
// readable only once every older transaction has ended: the wake comes too
// early, and the reads that follow it (settleFirst, doubling) find it.
func testEventsPastOlderTransaction(t *testing.T) {
	f := recordsFixture(t, func(c *Config) { c.EventPoll = time.Minute })
	rd, done := f.stream(nil)
	defer done()

	conn, err := pgx.Connect(t.Context(), pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	tx, err := conn.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(t.Context(), "SELECT pg_current_xact_id()"); err != nil { // holds back the snapshots' xmin
		t.Fatal(err)
	}
	runEvents(t, f.do("POST", "/v1/agents/echo/runs", runBody("r-held", "fail with UPSTREAM_ERROR"), nil))
	time.Sleep(300 * time.Millisecond) // the wake and the first reads find nothing
	ended := time.Now()
	if err := tx.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	ev := nextFrame(t, rd)
	if ev.Event != "run" || !strings.Contains(ev.Data, "r-held") {
		t.Fatalf("event %+v", ev)
	}
	if d := time.Since(ended); d > 3*time.Second {
		t.Errorf("the run came %v after the older transaction ended, the fallback poll being a minute", d)
	}
}
