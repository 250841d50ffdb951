package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/wire/sse"
)

// eventPage is how many feedback events one read of a stream takes.
const eventPage = 100

// eventWriteTimeout bounds each write of a stream: a client that stops
// reading is dropped rather than holding the stream, and a shutdown,
// open.
var eventWriteTimeout = 10 * time.Second

// sendRuns sends a "run" event for each of the tenant's runs ended after
// cursor (by any instance on the store), page by page, and returns the new
// cursor. ok is false when the stream ended.
func (s *Server) sendRuns(ctx context.Context, t store.Runs, sw *sse.Writer, cursor int64) (int64, bool) {
	for {
		ended, err := t.RunsEndedAfter(ctx, cursor, eventPage)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Error("event stream: reading runs failed", "error", fault.From(err))
			}
			return cursor, false
		}
		for _, e := range ended {
			data, err := json.Marshal(e.Run)
			if err != nil {
				s.log.Error("event stream: encoding a run failed", "error", fault.From(err))
				return cursor, false
			}
			if sw.WriteFrame(sse.Frame{Event: "run", Data: string(data)}) != nil {
				return cursor, false
			}
			cursor = e.Pos
		}
		if len(ended) < eventPage {
			return cursor, true
		}
	}
}

// streamEvents is GET /v1/events: Server-Sent Events, one "feedback"
// event per feedback the tenant's reports get (by any instance on the
// store), in the order it was committed, with its stream position as the
// event's id; a keep-alive comment every Heartbeat; ended when the client
// goes or the service shuts down. A client that reconnects with
// Last-Event-ID is first sent the feedback saved after that event, up to
// MaxReplay events; past that, a "truncated" event, and the stream goes on
// from the newest. Besides, a "run" event (without an id, never replayed)
// for each AG-UI run of the tenant that ends once the stream began, on any
// instance, and again when a failed run is linked to its record
// (store.Runs.RunsEndedAfter, LinkRun).
func (s *Server) streamEvents(w http.ResponseWriter, r *http.Request, tenant string) error {
	ctx := r.Context()
	if !s.streams.Acquire(tenant) {
		return fault.New(fault.RateLimited, "This tenant has as many event streams open as it may. Close one, then retry.",
			fault.WithRetryAfter(5*time.Second), fault.WithDetail("max_streams", s.cfg.TenantStreams))
	}
	defer s.streams.Release(tenant)
	t := s.cfg.Store.Tenant(tenant)
	cursor, replay, err := lastEventID(r.Header)
	if err != nil {
		return err
	}
	// Subscribed before the first read, so that nothing saved meanwhile
	// goes unnoticed.
	sub := s.svc.Events().Subscribe(tenant)
	defer s.svc.Events().Unsubscribe(sub)
	latest, err := t.LatestOccurrence(ctx)
	if err != nil {
		return store.Unavailable(err)
	}
	// Runs are live only: the stream sends those that end from now on.
	runCursor, err := t.LatestRunEnd(ctx)
	if err != nil {
		return store.Unavailable(err)
	}
	// Positions of feedback saved before the stream began, which it
	// would read after its start (see store.Feed.StreamStart): skipped.
	var before map[int64]bool
	if !replay || cursor > latest {
		// From now on; an id from the future (a store reset since) is
		// now too, or the stream would wait for IDs to catch up.
		var saved []int64
		if cursor, saved, err = t.StreamStart(ctx, s.cfg.MaxReplay); err != nil {
			return store.Unavailable(err)
		}
		replay = false
		if len(saved) > 0 {
			before = make(map[int64]bool, len(saved))
			for _, pos := range saved {
				before[pos] = true
			}
		}
	}

	rc := http.NewResponseController(w)
	// A stream outlives the server's write timeout; each write has its
	// own deadline instead.
	sw := sse.NewWriter(deadlineWriter{w: w, rc: rc, timeout: eventWriteTimeout})
	sse.SetHeaders(w.Header())
	_ = rc.SetWriteDeadline(time.Now().Add(eventWriteTimeout))
	w.WriteHeader(http.StatusOK)
	if err := sw.WriteComment("triage events"); err != nil {
		return nil
	}
	if replay {
		var ok bool
		if cursor, ok = s.replay(ctx, t, sw, cursor); !ok {
			return nil
		}
	}
	heartbeat := time.NewTicker(s.cfg.Heartbeat)
	defer heartbeat.Stop()
	poll := time.NewTicker(s.cfg.EventPoll)
	defer poll.Stop()
	// After a wake, on a store that announces (PostgreSQL), the stream
	// reads again after 100 ms, 200 ms, … up to EventPoll: what was
	// committed is visible to a stream only once every older transaction
	// of the database has ended (its positions are transaction IDs), and a
	// long one elsewhere would otherwise hold the change back until the
	// next poll.
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()
	var settleDelay time.Duration
	for {
		select {
		case <-sub.Woken():
			if s.svc.Announces() {
				settleDelay = settleFirst
				settle.Reset(settleDelay)
			}
		case <-settle.C:
			if settleDelay *= 2; settleDelay < s.cfg.EventPoll {
				settle.Reset(settleDelay)
			}
		case <-poll.C:
		case <-heartbeat.C:
			if sw.WriteComment("keep-alive") != nil {
				return nil
			}
			continue
		case <-s.stopped:
			_ = sw.WriteFrame(sse.Frame{Event: "shutdown", Data: `{"reason":"the service is shutting down; reconnect"}`})
			return nil
		case <-ctx.Done():
			return nil
		}
		var ok bool
		if cursor, _, ok = s.sendAfter(ctx, t, sw, cursor, -1, before); !ok {
			return nil
		}
		if runCursor, ok = s.sendRuns(ctx, t, sw, runCursor); !ok {
			return nil
		}
	}
}

// settleFirst is the first of the reads that follow a wake on a store
// that announces (see streamEvents).
const settleFirst = 100 * time.Millisecond

// replay sends the feedback saved after cursor, up to MaxReplay events,
// then, when there was more, a "truncated" event, and returns the cursor
// to go on from. ok is false when the stream ended.
func (s *Server) replay(ctx context.Context, t store.Feed, sw *sse.Writer, cursor int64) (int64, bool) {
	// What was missed is what was saved before the client came back: a
	// report saved while the replay is being sent is sent live after it,
	// and never makes the replay look truncated.
	missed, err := t.LatestOccurrence(ctx)
	if err != nil {
		s.log.Error("event stream: reading feedback failed", "error", fault.From(err))
		return cursor, false
	}
	cursor, sent, ok := s.sendAfter(ctx, t, sw, cursor, s.cfg.MaxReplay, nil)
	if !ok || sent < s.cfg.MaxReplay {
		return cursor, ok
	}
	more, err := t.FeedbackAfter(ctx, cursor, 1)
	if err != nil {
		s.log.Error("event stream: reading feedback failed", "error", fault.From(err))
		return cursor, false
	}
	if len(more) == 0 || more[0].ID > missed {
		return cursor, true
	}
	latest, err := t.LatestOccurrence(ctx)
	if err != nil {
		s.log.Error("event stream: reading feedback failed", "error", fault.From(err))
		return cursor, false
	}
	data := `{"reason":"more than ` + strconv.Itoa(s.cfg.MaxReplay) +
		` events were missed; the stream goes on from the newest: catch up with GET /v1/errors?since=…","resumes_after":` +
		strconv.FormatInt(latest, 10) + `}`
	if sw.WriteFrame(sse.Frame{Event: "truncated", ID: strconv.FormatInt(latest, 10), Data: data}) != nil {
		return cursor, false
	}
	return latest, true
}

// sendAfter sends the feedback saved after cursor, page by page, at most
// limit events (no bound when limit < 0), and returns the new cursor and
// how many it sent. It passes over the positions in skip (and forgets
// them). ok is false when the stream ended (the client went, or the store
// failed: the client reconnects with its Last-Event-ID).
func (s *Server) sendAfter(ctx context.Context, t store.Feed, sw *sse.Writer, cursor int64, limit int, skip map[int64]bool) (int64, int, bool) {
	// Everything up to latest is saved: once the tenant's is sent, the
	// cursor moves past the others', which the next reads then skip.
	latest, err := t.LatestOccurrence(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("event stream: reading feedback failed", "error", fault.From(err))
		}
		return cursor, 0, false
	}
	sent := 0
	for limit < 0 || sent < limit {
		n := eventPage
		if limit >= 0 {
			n = min(n, limit-sent)
		}
		page, err := t.FeedbackAfter(ctx, cursor, n)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Error("event stream: reading feedback failed", "error", fault.From(err))
			}
			return cursor, sent, false
		}
		for _, f := range page {
			if skip[f.ID] {
				delete(skip, f.ID)
				cursor = f.ID
				continue
			}
			if sw.WriteFrame(sse.Frame{Event: "feedback", ID: strconv.FormatInt(f.ID, 10), Data: string(f.Feedback)}) != nil {
				return cursor, sent, false
			}
			cursor = f.ID
			sent++
		}
		if len(page) < n {
			cursor = max(cursor, latest) // the tenant's are all sent
			break
		}
		select {
		case <-s.stopped: // the next wake-up sends the shutdown event
			return cursor, sent, true
		default:
		}
	}
	return cursor, sent, true
}

// deadlineWriter sets the connection's write deadline before each write
// of a stream.
type deadlineWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (d deadlineWriter) Write(p []byte) (int, error) {
	_ = d.rc.SetWriteDeadline(time.Now().Add(d.timeout))
	return d.w.Write(p)
}

// Flush flushes the response, as sse.Writer does after each frame.
func (d deadlineWriter) Flush() error {
	if err := d.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// lastEventID reads the Last-Event-ID a reconnecting client sends: the id
// of the last event it got, a stream position. replay is false when there
// is none; an id that is not a whole number is INVALID_REQUEST.
func lastEventID(h http.Header) (cursor int64, replay bool, err error) {
	v := h.Get("Last-Event-ID")
	if v == "" {
		return 0, false, nil
	}
	n, perr := strconv.ParseInt(v, 10, 64)
	if perr != nil || n < 0 {
		return 0, false, fault.New(fault.InvalidRequest, "The Last-Event-ID header is invalid.",
			fault.WithFieldErrors(fault.FieldError{Field: "Last-Event-ID", Message: "must be the id of an event this stream sent (a whole number)"}))
	}
	return n, true, nil
}
