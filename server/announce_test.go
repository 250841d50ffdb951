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
