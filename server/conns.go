package server

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// quietConns keeps the connections that have sent no request yet
// (http.StateNew), so that a shutdown can close them. http.Server.Shutdown
// counts such a connection as busy for its first 5 seconds (a request may
// be on its way), and clients open them ahead of need: the MCP TypeScript
// client's fetch leaves one behind, which held every `triage serve`
// shutdown for up to 5 s and, on a loaded machine, past a supervisor's
// patience. A connection still quiet QuietConnGrace after the shutdown
// began is closed: a request that had not begun by then is refused as any
// request after the shutdown is, by a closed connection.
type quietConns struct {
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// QuietConnGrace is how long a shutdown lets a connection that has sent
// no request begin one before it closes the connection.
const QuietConnGrace = 250 * time.Millisecond

// track is the http.Server's ConnState hook.
func (q *quietConns) track(c net.Conn, st http.ConnState) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if st == http.StateNew {
		if q.conns == nil {
			q.conns = map[net.Conn]struct{}{}
		}
		q.conns[c] = struct{}{}
		return
	}
	delete(q.conns, c)
}

// closeAfter closes, once grace has passed, the connections still quiet
// then, unless done is closed first (the shutdown is over).
func (q *quietConns) closeAfter(grace time.Duration, done <-chan struct{}) {
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
		return
	case <-t.C:
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for c := range q.conns {
		_ = c.Close()
		delete(q.conns, c)
	}
}
