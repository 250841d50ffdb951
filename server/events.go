package server

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/triage-go/triage/wire/sse"
)

// subscriberBuffer is how many events a subscriber may fall behind before
// its stream is ended (it reconnects; a slow dashboard never slows the
// service).
const subscriberBuffer = 256

type event struct {
	id      uint64
	errorID string
	data    []byte
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
	seq  uint64
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

func (b *broker) publish(tenant, errorID string, data []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	ev := event{id: b.seq, errorID: errorID, data: data}
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

// streamEvents is GET /v1/events: Server-Sent Events, one "feedback"
// event per new feedback of the tenant, a keep-alive comment every
// Heartbeat, ended when the client goes, the service shuts down, or the
// client falls too far behind.
func (s *Server) streamEvents(w http.ResponseWriter, r *http.Request) error {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream outlives the write timeout
	sub := s.events.subscribe(tenantOf(r.Context()))
	defer s.events.unsubscribe(sub)

	sse.SetHeaders(w.Header())
	w.WriteHeader(http.StatusOK)
	sw := sse.NewWriter(w)
	if err := sw.WriteComment("triage events"); err != nil {
		return nil
	}
	tick := time.NewTicker(s.cfg.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case ev := <-sub.ch:
			if sw.WriteFrame(sse.Frame{Event: "feedback", ID: strconv.FormatUint(ev.id, 10), Data: string(ev.data)}) != nil {
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
