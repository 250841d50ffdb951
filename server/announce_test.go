package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/triage-go/triage/internal/testkit/pgtest"
	"github.com/triage-go/triage/store"
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
	// The first instance's connections say who they are, so that the
	// test sees its listener up (pg_stat_activity).
	listener := fmt.Sprintf("triage_announced_%d", time.Now().UnixNano())
	var bases []string
	for i := range 2 {
		dsn := db
		if i == 0 {
			dsn = withApplicationName(t, db, listener)
		}
		st := openStore(t, dsn, clk)
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
	// cursor read); once the first instance listens, the other saves a
	// report.
	waitListening(t, listener)
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
// was still open once that transaction ends, though it never polls. On
// PostgreSQL an end's position is its transaction's ID, readable only
// once every older transaction of the cluster has ended: the wake comes
// too early, and the reads that follow it (settleFirst, doubling) find
// it. Any other transaction of the cluster (another test's, another
// process's) holds the position back as long as this one does: the test
// waits for the store to read the run, not for a time, and then the
// stream's next read must send it.
func testEventsPastOlderTransaction(t *testing.T) {
	var reads, found atomic.Int32
	var inner store.Store
	f := recordsFixture(t, func(c *Config) {
		c.EventPoll = time.Hour // never, within the test: only the reads after the wake send the run
		inner = c.Store
		c.Store = runReads{Store: c.Store, Announcer: c.Store.(store.Announcer), n: &reads, found: &found}
	})
	tn := inner.Tenant(DefaultTenant)
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
	from, err := tn.LatestRunEnd(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	runEvents(t, f.do("POST", "/v1/agents/echo/runs", runBody("r-held", "fail with UPSTREAM_ERROR"), nil))
	// The wake and the first reads find nothing: two reads since the run
	// ended are the wake's and the first that follow it.
	since := reads.Load()
	waitFor(t, "the stream's reads after the wake", func() bool { return reads.Load() >= since+2 })
	if n := found.Load(); n != 0 {
		t.Fatalf("read %d found the run while an older transaction was open", n)
	}
	if err := tx.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	for {
		runs, err := tn.RunsEndedAfter(t.Context(), from, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Every read the stream begins from now on finds the run.
	after := reads.Load()
	ev, err := rd.Next()
	if err != nil {
		t.Fatalf("the stream ended: %v", err)
	}
	if ev.Event != "run" || !strings.Contains(ev.Data, "r-held") {
		t.Fatalf("event %+v", ev)
	}
	if n := found.Load(); n > after+1 {
		t.Errorf("the run was sent by the stream's read %d; the store read it before read %d began", n, after+1)
	}
}

// withApplicationName adds application_name to a URL or a keyword/value
// string.
func withApplicationName(t *testing.T, base, name string) string {
	t.Helper()
	if !strings.HasPrefix(base, "postgres://") && !strings.HasPrefix(base, "postgresql://") {
		return base + " application_name=" + name
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// waitListening waits until a connection named name (application_name)
// has run LISTEN and waits for notifications.
func waitListening(t *testing.T, name string) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	waitFor(t, "the listener of "+name, func() bool {
		var n int
		err := conn.QueryRow(t.Context(), `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = $1 AND query LIKE 'LISTEN %' AND state = 'idle'`, name).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n > 0
	})
}

// runReads is a store that counts its reads of ended runs
// (Runs.RunsEndedAfter), an event stream's reads after a wake, in n, and
// keeps in found the number of the first that returned a run. It keeps
// the store's announcements.
type runReads struct {
	store.Store
	store.Announcer
	n, found *atomic.Int32
}

func (s runReads) Tenant(id string) store.Tenant {
	return runReadsTenant{s.Store.Tenant(id), s.n, s.found}
}

type runReadsTenant struct {
	store.Tenant
	n, found *atomic.Int32
}

func (t runReadsTenant) RunsEndedAfter(ctx context.Context, after int64, limit int) ([]store.EndedRun, error) {
	n := t.n.Add(1)
	runs, err := t.Tenant.RunsEndedAfter(ctx, after, limit)
	if len(runs) > 0 {
		t.found.CompareAndSwap(0, n)
	}
	return runs, err
}
