package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/wire/sse"
)

// stream opens GET /v1/events with the given headers.
func (f *fixture) stream(header map[string]string) (*sse.Reader, func()) {
	f.t.Helper()
	req, err := http.NewRequest("GET", f.http.URL+"/v1/events", nil)
	if err != nil {
		f.t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := f.http.Client().Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		f.t.Fatalf("GET /v1/events: %d %s", resp.StatusCode, b)
	}
	return sse.NewReader(resp.Body), func() { resp.Body.Close() }
}

// nextEvent reads the stream's next event but comments: its name, its id
// and, for feedback, its error_id.
func nextEvent(t *testing.T, r *sse.Reader) (event, id, errorID string) {
	t.Helper()
	frame, err := r.Next()
	if err != nil {
		t.Fatalf("the stream ended: %v", err)
	}
	if frame.Event == "feedback" {
		var fb map[string]any
		if err := json.Unmarshal([]byte(frame.Data), &fb); err != nil {
			t.Fatalf("event data: %v: %s", err, frame.Data)
		}
		errorID, _ = fb["error_id"].(string)
	}
	return frame.Event, frame.ID, errorID
}

// atOrAfter tells whether the event id is a position at or after pos.
func atOrAfter(id string, pos int64) bool {
	n, err := strconv.ParseInt(id, 10, 64)
	return err == nil && n >= pos
}

// nextFeedback reads the stream's next event, which must be feedback: its
// id and error_id.
func nextFeedback(t *testing.T, r *sse.Reader) (id, errorID string) {
	t.Helper()
	event, id, errorID := nextEvent(t, r)
	if event != "feedback" {
		t.Fatalf("event %q (id %s), want feedback", event, id)
	}
	return id, errorID
}

// TestEventsReplay: a stream gets each feedback once, in order; one that
// reconnects with Last-Event-ID gets what it missed first, up to
// MaxReplay, then a truncated event; only its tenant's; and feedback
// another instance saved on the same store.
func TestEventsReplay(t *testing.T) {
	t.Parallel()
	const keyA, keyB = "key-a-0123456789abcdef", "key-b-0123456789abcdef"
	keys := map[string]string{keyA: "acme", keyB: "globex"}
	f := newFixture(t, func(c *Config) { c.APIKeys, c.MaxReplay, c.EventPoll = keys, 3, 20*time.Millisecond })
	a, b := map[string]string{"X-API-Key": keyA}, map[string]string{"X-API-Key": keyB}
	template := string(readFile(t, goldenDir+"/db_timeout.json"))
	report := func(i int) []byte {
		return []byte(strings.Replace(template, `"q_456"`, fmt.Sprintf(`"q_%d"`, i), 1))
	}
	post := func(i int, header map[string]string) string {
		t.Helper()
		r := f.do("POST", "/v1/errors", report(i), header)
		if r.status != 201 {
			t.Fatalf("report %d: %d %s", i, r.status, r.body)
		}
		return r.json(t)["error_id"].(string)
	}

	old := post(99, a) // before the stream: not sent
	live, closeLive := f.stream(a)
	var ids, errorIDs []string
	for i := range 3 {
		errorIDs = append(errorIDs, post(i, a))
		id, errorID := nextFeedback(t, live)
		if errorID != errorIDs[i] {
			t.Fatalf("event %d: error_id %s, want %s (not the one from before the stream, %s)", i, errorID, errorIDs[i], old)
		}
		ids = append(ids, id)
	}
	closeLive()
	post(100, b) // another tenant's, never in A's stream
	for i := 3; i < 5; i++ {
		errorIDs = append(errorIDs, post(i, a))
	}

	// Reconnect after the second event: the third, fourth and fifth are
	// replayed (MaxReplay, and no more), then a new one comes live.
	again, closeAgain := f.stream(map[string]string{"X-API-Key": keyA, "Last-Event-ID": ids[1]})
	var got []string
	for range 3 {
		id, errorID := nextFeedback(t, again)
		got = append(got, errorID)
		ids = append(ids, id)
	}
	if want := errorIDs[2:5]; !slices.Equal(got, want) {
		t.Errorf("replayed %v, want %v", got, want)
	}
	errorIDs = append(errorIDs, post(5, a))
	id, errorID := nextFeedback(t, again)
	if errorID != errorIDs[5] {
		t.Errorf("after the replay: error_id %s, want %s (each event once)", errorID, errorIDs[5])
	}
	ids = append(ids, id)
	closeAgain()
	// A replayed event has the id it had live, and ids grow.
	if ids[3] != ids[2] {
		t.Errorf("the third event: id %s live, %s replayed", ids[2], ids[3])
	}
	ids = slices.Delete(ids, 3, 4)
	for i := 1; i < len(ids); i++ {
		prev, _ := strconv.ParseInt(ids[i-1], 10, 64)
		cur, err := strconv.ParseInt(ids[i], 10, 64)
		if err != nil || cur <= prev {
			t.Errorf("event ids %v do not grow", ids)
			break
		}
	}

	// Further behind than MaxReplay: three events, then truncated, whose
	// id is the position the stream goes on after (the newest event's on
	// SQLite; on PostgreSQL it may be later, see store.Feed), then the
	// new.
	behind, closeBehind := f.stream(map[string]string{"X-API-Key": keyA, "Last-Event-ID": ids[0]})
	defer closeBehind()
	for i := 1; i <= 3; i++ {
		if _, errorID := nextFeedback(t, behind); errorID != errorIDs[i] {
			t.Errorf("replay %d: %s, want %s", i, errorID, errorIDs[i])
		}
	}
	newest, _ := strconv.ParseInt(ids[len(ids)-1], 10, 64)
	if event, id, _ := nextEvent(t, behind); event != "truncated" || !atOrAfter(id, newest) {
		t.Errorf("after MaxReplay: event %q id %s, want truncated with an id at or after %d", event, id, newest)
	}
	errorIDs = append(errorIDs, post(6, a))
	if _, errorID := nextFeedback(t, behind); errorID != errorIDs[6] {
		t.Errorf("after truncated: %s, want the new %s", errorID, errorIDs[6])
	}

	// Another instance on the same store: its feedback reaches this
	// instance's stream within EventPoll.
	other, err := New(Config{Store: f.store, Now: f.clock.Now, JobPoll: -1, APIKeys: keys, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(other)
	defer hs.Close()
	req, _ := http.NewRequest("POST", hs.URL+"/v1/errors", bytes.NewReader(report(7)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", keyA)
	resp, err := hs.Client().Do(req)
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("POST to the other instance: %v %v", resp, err)
	}
	var fb map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&fb); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, errorID := nextFeedback(t, behind); errorID != fb["error_id"] {
		t.Errorf("the other instance's feedback: %s, want %s", errorID, fb["error_id"])
	}

	// An id from the future (a store reset since) is taken for now.
	future, closeFuture := f.stream(map[string]string{"X-API-Key": keyA, "Last-Event-ID": "999999999"})
	defer closeFuture()
	errorIDs = append(errorIDs, post(8, a))
	if _, errorID := nextFeedback(t, future); errorID != errorIDs[len(errorIDs)-1] {
		t.Errorf("after a future Last-Event-ID: %s, want the new %s", errorID, errorIDs[len(errorIDs)-1])
	}

	// B reconnecting from 0 sees only its own.
	bs, closeB := f.stream(map[string]string{"X-API-Key": keyB, "Last-Event-ID": "0"})
	defer closeB()
	if _, errorID := nextFeedback(t, bs); slices.Contains(errorIDs, errorID) {
		t.Errorf("tenant B was replayed tenant A's %s", errorID)
	}

	for _, bad := range []string{"abc", "-1", "1.5"} {
		r := f.do("GET", "/v1/events", nil, map[string]string{"X-API-Key": keyA, "Last-Event-ID": bad})
		if r.status != 400 || codeOf(t, r) != "INVALID_REQUEST" {
			t.Errorf("Last-Event-ID %q: %d %s", bad, r.status, r.body)
		}
	}
}

// A duplicate whose first delivery's occurrence was never saved (its
// delivery was completed, here directly) saves it, with the delivery's
// feedback rather than the duplicate's answer.
func TestDuplicateSavesFirstFeedback(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	report := readFile(t, goldenDir+"/db_timeout.json")
	rep, err := triage.DecodeReport(report)
	if err != nil {
		t.Fatal(err)
	}
	prior := &triage.Feedback{ErrorID: "err_prior", ErrorType: triage.QueryError, QueryID: "q_456", NextAction: triage.Resume, UserMessage: "before"}
	tn := f.store.Tenant(DefaultTenant)
	if _, _, err := tn.Claim(t.Context(), triage.DeliveryKey(rep)); err != nil {
		t.Fatal(err)
	}
	if err := tn.Complete(t.Context(), triage.DeliveryKey(rep), prior); err != nil {
		t.Fatal(err)
	}
	r := f.do("POST", "/v1/errors", report, nil)
	if r.status != 200 || r.json(t)["duplicate"] != true {
		t.Fatalf("POST: %d %s", r.status, r.body)
	}
	rec := f.record("err_prior")
	if len(rec.Occurrences) != 1 {
		t.Fatalf("occurrences: %+v", rec.Occurrences)
	}
	var stored map[string]any
	if err := json.Unmarshal(rec.Occurrences[0].Feedback, &stored); err != nil {
		t.Fatal(err)
	}
	if _, ok := stored["duplicate"]; ok || stored["user_message"] != "before" {
		t.Errorf("stored feedback %s: want the delivery's, without duplicate", rec.Occurrences[0].Feedback)
	}
}

// A stream whose client stops reading is dropped after a write times out:
// a graceful shutdown does not wait on it for ShutdownTimeout.
func TestStalledStreamDoesNotHoldShutdown(t *testing.T) {
	t.Parallel()
	defer func(d time.Duration) { eventWriteTimeout = d }(eventWriteTimeout)
	eventWriteTimeout = 200 * time.Millisecond
	clk := &clock{now: scenarioNow}
	st := openStore(t, newDatabase(t), clk)
	defer st.Close()
	srv, err := New(Config{Store: st, Now: clk.Now, JobPoll: -1, Logger: slog.New(slog.DiscardHandler), MaxReplay: 1000})
	if err != nil {
		t.Fatal(err)
	}
	// Enough feedback to fill the connection's buffers: 60 reports whose
	// context (kept in the feedback) is 256 KB.
	big := strings.Repeat("x", 256<<10)
	template := string(readFile(t, goldenDir+"/db_timeout.json"))
	for i := range 60 {
		report := strings.Replace(template, `"q_456"`, fmt.Sprintf(`"q_%d"`, i), 1)
		report = strings.Replace(report, `"context": {`, `"context": {"blob": "`+big+`",`, 1)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/errors", strings.NewReader(report)))
		if rec.Code != 201 {
			t.Fatalf("report %d: %d %s", i, rec.Code, rec.Body.String()[:min(200, rec.Body.Len())])
		}
	}
	addr, cancel, done := serve(t, srv)
	// A client that asks for everything and reads nothing.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "GET /v1/events HTTP/1.1\r\nHost: x\r\nLast-Event-ID: 0\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	// The answer's head says the stream has begun: it writes its replay
	// (15 MB) into a connection nobody reads, and blocks.
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the stream's head: %v %v", resp, err)
	}
	start := time.Now()
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Serve still waits on a stream whose client stopped reading")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("shutdown took %v", d)
	}
}

// serve runs srv.Serve on a loopback port: its address, the cancel that
// shuts it down, and Serve's result.
func serve(t *testing.T, srv *Server) (string, context.CancelFunc, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	return ln.Addr().String(), cancel, done
}

// A connection that never sent a request (clients open them ahead of need)
// does not hold a shutdown: http.Server.Shutdown alone would wait 5 s for
// it to begin one; Serve closes it after QuietConnGrace.
func TestQuietConnectionDoesNotHoldShutdown(t *testing.T) {
	t.Parallel()
	st := openStore(t, newDatabase(t), &clock{now: scenarioNow})
	defer st.Close()
	srv, err := New(Config{Store: st, JobPoll: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	addr, cancel, done := serve(t, srv)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The server has accepted it (a request on another connection is
	// answered after this one was accepted).
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(4 * time.Second):
		t.Fatal("Serve still waits on a connection that sent no request")
	}
	_ = conn.SetReadDeadline(time.Now().Add(time.Second))
	if n, err := conn.Read(make([]byte, 1)); err == nil {
		t.Errorf("the quiet connection is still open (read %d bytes)", n)
	}
}
