package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The caps streamHog holds A to: serve's defaults.
const (
	maxStreams     = 32 // --max-streams-tenant
	maxMCPSessions = 64 // --max-mcp-sessions-tenant
)

// streamHog: tenant B fills the store with reports; then tenant A, with
// none of its own, opens as many event streams as it can, each resuming
// from the first event (Last-Event-ID: 0), and as many MCP sessions,
// while B goes on posting. A must hold no more streams and sessions than
// its caps (more streams are answered 429 problems; a session opened past
// the cap closes A's least recently used idle one), and B must be served
// throughout; the serve process's goroutines are read from /metrics.
func streamHog(ctx context.Context, c config) (r row) {
	p, err := start(ctx, c, filepath.Join(c.dir, "streamhog.db"), filepath.Join(c.dir, "streamhog.log"))
	if err != nil {
		r.fail("%v", err)
		return r
	}
	defer p.stop()
	fctx, cancel := context.WithTimeout(ctx, c.dur(10*time.Second))
	fill := tenantLoad(fctx, p.base, 8, "fill")
	fill.wait()
	cancel()
	goroutinesBefore := goroutines(ctx, p.base)

	hold := c.dur(20 * time.Second)
	lctx, cancel := context.WithTimeout(ctx, hold)
	defer cancel()
	attempts := c.n(200, 48)
	var streamsOpen, streamsPeak, streamsRefused, mcpOpen, mcpRefused, other atomic.Int64
	var firstOther atomic.Value
	otherwise := func(what string, a answer) {
		other.Add(1)
		firstOther.CompareAndSwap(nil, fmt.Sprintf("%s: %d %q %v %.200s", what, a.status, a.ctype, a.err, a.body))
	}
	var hoardMu sync.Mutex
	var hoard []string
	var wg sync.WaitGroup
	for range attempts {
		wg.Go(func() {
			for lctx.Err() == nil {
				a, opened := openStream(lctx, p.base)
				switch {
				case opened:
					n := streamsOpen.Add(1)
					for peak := streamsPeak.Load(); n > peak && !streamsPeak.CompareAndSwap(peak, n); peak = streamsPeak.Load() {
					}
					<-lctx.Done() // held open, read by openStream's goroutine
					streamsOpen.Add(-1)
				case a.status == http.StatusTooManyRequests && a.ctype == "application/problem+json":
					streamsRefused.Add(1)
					select { // its Retry-After
					case <-time.After(5 * time.Second):
					case <-lctx.Done():
					}
				case lctx.Err() == nil:
					otherwise("stream", a)
				}
			}
		})
		wg.Go(func() {
			sid, a := mcpSession(lctx, p.base, keyA, "2025-06-18")
			switch {
			case sid != "":
				mcpOpen.Add(1) // left open: it lasts until it expires, or makes room for another
				hoardMu.Lock()
				hoard = append(hoard, sid)
				hoardMu.Unlock()
			case a.status == http.StatusTooManyRequests && a.ctype == "application/problem+json":
				mcpRefused.Add(1)
			case lctx.Err() == nil:
				otherwise("MCP session", a)
			}
		})
	}
	time.Sleep(time.Second)
	b := tenantLoad(lctx, p.base, 8, "hog")
	time.Sleep(hold / 2)
	goroutinesDuring := goroutines(lctx, p.base)
	b.wait()
	wg.Wait()
	// A session opened past the cap closed A's least recently used idle
	// one: count those still open.
	held := 0
	for _, sid := range hoard {
		if a := mcpPost(ctx, p.base, keyA, sid, "2025-06-18", `{"jsonrpc":"2.0","id":3,"method":"ping"}`); a.status == http.StatusOK {
			held++
		}
	}
	r.load = b.summary("B")
	r.note("A tried %d streams from Last-Event-ID 0 and %d MCP sessions over B's %d reports: at most %d streams open at once (%d refused 429), %d sessions opened (%d refused 429), %d of them open at the end; serve's goroutines %d before, %d with A's streams and sessions",
		attempts, attempts, fill.ok, streamsPeak.Load(), streamsRefused.Load(), mcpOpen.Load(), mcpRefused.Load(), held, goroutinesBefore, goroutinesDuring)
	if other.Load() > 0 {
		r.fail("%d of A's requests ended otherwise: %v", other.Load(), firstOther.Load())
	}
	if streamsPeak.Load() > maxStreams || held > maxMCPSessions {
		r.fail("A held %d streams and %d MCP sessions, past its caps (%d, %d)", streamsPeak.Load(), held, maxStreams, maxMCPSessions)
	}
	if attempts > maxStreams && streamsRefused.Load() == 0 {
		r.fail("none of A's %d streams was refused", attempts)
	}
	if b.bad > 0 || b.ok == 0 {
		r.fail("B was not served throughout: %s", b.first)
	}
	return r
}

// openStream opens GET /v1/events as tenant A from the first event, and
// reads it (discarding) until ctx ends; opened says it was a stream.
func openStream(ctx context.Context, base string) (answer, bool) {
	req, err := http.NewRequestWithContext(ctx, "GET", base+"/v1/events", nil)
	if err != nil {
		return answer{err: err}, false
	}
	req.Header.Set("Authorization", "Bearer "+keyA)
	req.Header.Set("Last-Event-ID", "0")
	resp, err := streamClient.Do(req)
	if err != nil {
		return answer{err: err}, false
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		var sb strings.Builder
		_, _ = bufio.NewReader(resp.Body).WriteTo(&sb)
		return answer{status: resp.StatusCode, ctype: resp.Header.Get("Content-Type"), body: []byte(sb.String())}, false
	}
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
		}
	}()
	return answer{status: resp.StatusCode}, true
}

// streamClient holds many streams to one host at once.
var streamClient = &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: 256}}

// goroutines is go_goroutines of the service's /metrics (-1 unknown).
func goroutines(ctx context.Context, base string) int {
	a := do(ctx, "GET", base+"/metrics", "", nil, nil)
	if a.err != nil {
		return -1
	}
	for line := range strings.Lines(string(a.body)) {
		if rest, ok := strings.CutPrefix(line, "go_goroutines "); ok {
			n, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err == nil {
				return int(n)
			}
		}
	}
	return -1
}
