package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// mcpBatchSize is the hostile batch of the issue: 20,000 tools/list in
// one POST of ~1.1 MB, each answered by the ~15 KB tool list.
const mcpBatchSize = 20_000

// mcpBatch: tenant A, on /mcp, sends JSON-RPC batches of 20,000
// tools/list (two POSTs at once, one in each session, again and again),
// in a session
// negotiated at 2025-06-18 without MCP-Protocol-Version (the go-sdk then
// assumes 2025-03-26, which had batches) and in one negotiated at
// 2025-03-26; and hoards sessions: 8 clients open sessions (initialize,
// initialized, never DELETE) as fast as they are answered. Tenant B's 4
// MCP clients call tools/list, each in a session of its own, and open a
// new session every 10 calls. B must be served throughout, never refused
// a session; A must hold no more sessions than its cap and have no batch
// beyond the cap answered. The figures: B's p99, A's counts, the serve
// process's peak RSS and goroutines.
func mcpBatch(ctx context.Context, c config) (r row) {
	p, err := start(ctx, c, filepath.Join(c.dir, "mcpbatch.db"), filepath.Join(c.dir, "mcpbatch.log"))
	if err != nil {
		r.fail("%v", err)
		return r
	}
	defer p.stop()
	rssBefore := p.procStatus("VmRSS:")
	peakReset := p.resetPeak()
	hold := c.dur(20 * time.Second)
	lctx, cancel := context.WithTimeout(ctx, hold)
	defer cancel()

	// B: 4 clients, tools/list in their own session, a new session every
	// 10 calls.
	b := &latencies{}
	var bRefused atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			sid := ""
			for i := 0; lctx.Err() == nil; i++ {
				if i%10 == 0 {
					s, a := mcpSession(context.WithoutCancel(lctx), p.base, keyB, "2025-06-18")
					if s == "" {
						if lctx.Err() == nil {
							bRefused.Add(1)
							b.add(0, false, fmt.Sprintf("session: %d %v %.200s", a.status, a.err, a.body))
						}
						continue
					}
					sid = s
				}
				t0 := time.Now()
				a := mcpPost(context.WithoutCancel(lctx), p.base, keyB, sid, "2025-06-18", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
				ok := a.err == nil && a.status == http.StatusOK && strings.Contains(string(a.body), `"tools":[`)
				b.add(time.Since(t0), ok, fmt.Sprintf("tools/list: %d %v %.200s", a.status, a.err, a.body))
			}
		})
	}

	// A's batches: two at once, in each kind of session.
	batch := mcpBatchBody(mcpBatchSize)
	var batchServed, batchRefused, batchOther atomic.Int64
	var firstOther atomic.Value
	var answerBytes atomic.Int64
	for _, version := range []string{"2025-06-18", "2025-03-26"} {
		wg.Go(func() {
			sid, _ := mcpSession(lctx, p.base, keyA, version)
			for lctx.Err() == nil && sid != "" {
				status, n, err := mcpBatchPost(lctx, p.base, sid, batch)
				switch {
				case status == http.StatusOK: // answered, whether read to its end or not
					batchServed.Add(1)
					answerBytes.Store(max(answerBytes.Load(), n))
				case status == http.StatusBadRequest || status == http.StatusTooManyRequests:
					batchRefused.Add(1)
				case lctx.Err() == nil:
					batchOther.Add(1)
					firstOther.CompareAndSwap(nil, fmt.Sprintf("batch: %d %v", status, err))
				}
			}
		})
	}

	// A's hoarding: 8 clients open sessions and leave them.
	var opened, refused atomic.Int64
	var mu sync.Mutex
	var hoard []string
	for range 8 {
		wg.Go(func() {
			for lctx.Err() == nil {
				sid, a := mcpSession(lctx, p.base, keyA, "2025-06-18")
				switch {
				case sid != "":
					opened.Add(1)
					mu.Lock()
					hoard = append(hoard, sid)
					mu.Unlock()
				case a.status == http.StatusTooManyRequests:
					refused.Add(1)
					select {
					case <-time.After(time.Second):
					case <-lctx.Done():
					}
				case lctx.Err() == nil:
					batchOther.Add(1)
					firstOther.CompareAndSwap(nil, fmt.Sprintf("session: %d %v %.200s", a.status, a.err, a.body))
				}
			}
		})
	}
	time.Sleep(hold / 2)
	gor := goroutines(ctx, p.base)
	wg.Wait()
	held := 0
	for _, sid := range hoard {
		if a := mcpPost(ctx, p.base, keyA, sid, "2025-06-18", `{"jsonrpc":"2.0","id":3,"method":"ping"}`); a.status == http.StatusOK {
			held++
		}
	}
	peak := "unknown"
	if peakReset {
		peak = fmt.Sprintf("%.1f MiB", float64(p.procStatus("VmHWM:"))/(1<<20))
	}
	r.load = b.summary("B") + "; peak RSS " + peak
	r.note("A's batches of %d tools/list: %d answered (largest answer read %.1f MB), %d refused; A opened %d sessions (%d refused 429) and held %d of them at the end; B refused a session %d times; serve's goroutines %d halfway, RSS at rest %.1f MiB",
		mcpBatchSize, batchServed.Load(), float64(answerBytes.Load())/1e6, batchRefused.Load(), opened.Load(), refused.Load(), held, bRefused.Load(), gor, float64(rssBefore)/(1<<20))
	if batchOther.Load() > 0 {
		r.fail("%d of A's requests ended otherwise: %v", batchOther.Load(), firstOther.Load())
	}
	if batchServed.Load() > 0 {
		r.fail("%d batches of %d messages were answered", batchServed.Load(), mcpBatchSize)
	}
	if held > maxMCPSessions {
		r.fail("A held %d MCP sessions, past its cap (%d)", held, maxMCPSessions)
	}
	if b.bad > 0 || b.ok == 0 {
		r.fail("B was not served throughout: %s", b.first)
	}
	return r
}

// mcpBatchBody is a batch of n tools/list requests.
func mcpBatchBody(n int) []byte {
	var sb strings.Builder
	sb.WriteByte('[')
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, 10+i)
	}
	sb.WriteByte(']')
	return []byte(sb.String())
}

// mcpBatchPost posts a batch as tenant A without MCP-Protocol-Version and
// reads its answer (discarding it, until ctx ends or for at most 60 s):
// its status and the bytes read.
func mcpBatchPost(ctx context.Context, base, sid string, batch []byte) (int, int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/mcp", strings.NewReader(string(batch)))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+keyA)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := streamClient.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if ctx.Err() != nil {
		err = nil // the answer was still coming: cut here
	}
	return resp.StatusCode, n, err
}

// mcpSession opens an MCP session at version as the key's tenant
// (initialize, then notifications/initialized): its id, or "" and the
// answer that refused it.
func mcpSession(ctx context.Context, base, key, version string) (string, answer) {
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"campaign","version":"1"}}}`))
	if err != nil {
		return "", answer{err: err}
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return "", answer{err: err}
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		return "", answer{status: resp.StatusCode, ctype: resp.Header.Get("Content-Type"), body: body}
	}
	if a := mcpPost(ctx, base, key, sid, version, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); a.status != http.StatusAccepted {
		return "", a
	}
	return sid, answer{status: resp.StatusCode}
}

// mcpPost posts body in the session as the key's tenant.
func mcpPost(ctx context.Context, base, key, sid, version, body string) answer {
	return do(ctx, "POST", base+"/mcp", key, []byte(body), map[string]string{
		"Accept": "application/json, text/event-stream", "Mcp-Session-Id": sid, "Mcp-Protocol-Version": version,
	})
}
