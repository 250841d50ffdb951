package server

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/wire/sse"
)

// subscriberBuffer is how many events a subscriber may fall behind before
// its stream is ended (it reconnects; a slow dashboard never slows the
// service).
const subscriberBuffer = 256

// event is a feedback for the streams: id is its occurrence's, which
// orders the tenant's events and makes Last-Event-ID a replay cursor.
type event struct {
	id   int64
	data []byte
}

type subscriber struct {
	tenant string
	ch     chan event
	lagged chan struct{}
	once   sync.Once
}

// broker fans each feedback out to the tenant's event streams.
type broker struct {
	mu   sync.Mutex
	subs map[*subscriber]struct{}
}

func newBroker() *broker { return &broker{subs: map[*subscriber]struct{}{}} }

func (b *broker) subscribe(tenant string) *subscriber {
	sub := &subscriber{tenant: tenant, ch: make(chan event, subscriberBuffer), lagged: make(chan struct{})}
	b.mu.Lock()
	b.subs[sub] = struct{}{}
	b.mu.Unlock()
	return sub
}

func (b *broker) unsubscribe(sub *subscriber) {
	b.mu.Lock()
	delete(b.subs, sub)
	b.mu.Unlock()
}

func (b *broker) publish(tenant string, id int64, data []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ev := event{id: id, data: data}
	for sub := range b.subs {
		if sub.tenant != tenant {
			continue
		}
		select {
		case sub.ch <- ev:
		default:
			sub.once.Do(func() { close(sub.lagged) })
		}
	}
}

// MaxReplay bounds the feedback a reconnecting stream is sent from its
// Last-Event-ID: a client further behind catches up with
// GET /v1/errors?since=….
const MaxReplay = 1000

// replayPage is how many occurrences one read of a replay takes.
const replayPage = 200

// streamEvents is GET /v1/events: Server-Sent Events, one "feedback"
// event per new feedback of the tenant, a keep-alive comment every
// Heartbeat, ended when the client goes, the service shuts down, or the
// client falls too far behind. Each event's ID is its occurrence's: a
// client reconnecting with Last-Event-ID is first sent the feedback saved
// since (up to MaxReplay), by any instance sharing the store.
func (s *Server) streamEvents(w http.ResponseWriter, r *http.Request) error {
	var last int64 = -1 // no replay
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return fault.New(fault.InvalidRequest, "The Last-Event-ID header is invalid.",
				fault.WithFieldErrors(fault.FieldError{Field: "Last-Event-ID", Message: "must be the id of an event this stream sent (a whole number)"}))
		}
		last = n
	}
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream outlives the write timeout
	// Subscribed before the replay reads, so that nothing saved meanwhile
	// is missed: what both bring is sent once.
	sub := s.events.subscribe(tenantOf(r.Context()))
	defer s.events.unsubscribe(sub)

	var replay []store.Occurrence
	if last >= 0 {
		t := s.cfg.Store.Tenant(tenantOf(r.Context()))
		for len(replay) < MaxReplay {
			page, err := t.OccurrencesAfter(r.Context(), last, min(replayPage, MaxReplay-len(replay)))
			if err != nil {
				return storeFailure(err)
			}
			replay = append(replay, page...)
			if len(page) == 0 {
				break
			}
			last = page[len(page)-1].ID
		}
	}

	sse.SetHeaders(w.Header())
	w.WriteHeader(http.StatusOK)
	sw := sse.NewWriter(w)
	if err := sw.WriteComment("triage events"); err != nil {
		return nil
	}
	for _, o := range replay {
		if sw.WriteFrame(sse.Frame{Event: "feedback", ID: strconv.FormatInt(o.ID, 10), Data: string(o.Feedback)}) != nil {
			return nil
		}
	}
	tick := time.NewTicker(s.cfg.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case ev := <-sub.ch:
			if ev.id <= last {
				continue // replayed
			}
			if sw.WriteFrame(sse.Frame{Event: "feedback", ID: strconv.FormatInt(ev.id, 10), Data: string(ev.data)}) != nil {
				return nil
			}
		case <-tick.C:
			if sw.WriteComment("keep-alive") != nil {
				return nil
			}
		case <-sub.lagged:
			_ = sw.WriteFrame(sse.Frame{Event: "lagged", Data: `{"reason":"the stream fell behind; reconnect"}`})
			return nil
		case <-s.stopped:
			_ = sw.WriteFrame(sse.Frame{Event: "shutdown", Data: `{"reason":"the service is shutting down; reconnect"}`})
			return nil
		case <-r.Context().Done():
			return nil
		}
	}
}
