package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// slowBody: tenant A keeps many POSTs open whose body comes at 1 byte/s
// (each opened again once answered) while tenant B posts reports; B must
// be served throughout, and A's slow bodies end in 408 problems (or 429
// problems past A's share of the request slots), never a dropped
// connection.
func slowBody(ctx context.Context, c config) (r row) {
	p, err := start(ctx, c, filepath.Join(c.dir, "slowbody.db"), filepath.Join(c.dir, "slowbody.log"))
	if err != nil {
		r.fail("%v", err)
		return r
	}
	defer p.stop()
	slow := c.n(256, 32)
	hold := c.dur(20 * time.Second)
	lctx, cancel := context.WithTimeout(ctx, hold)
	defer cancel()

	var timeout, limited, other atomic.Int64
	var firstOther atomic.Value
	var wg sync.WaitGroup
	for range slow {
		wg.Go(func() {
			for lctx.Err() == nil {
				status, ctype, err := slowPost(p.base, 200)
				switch {
				case err == nil && status == http.StatusRequestTimeout && ctype == "application/problem+json":
					timeout.Add(1)
				case err == nil && status == http.StatusTooManyRequests && ctype == "application/problem+json":
					limited.Add(1)
					time.Sleep(time.Second) // its Retry-After
				default:
					other.Add(1)
					firstOther.CompareAndSwap(nil, fmt.Sprintf("%d %q %v", status, ctype, err))
				}
			}
		})
	}
	time.Sleep(time.Second) // let A's bodies take their slots
	b := tenantLoad(lctx, p.base, 8, "slow")
	b.wait()
	wg.Wait()
	r.load = b.summary("B")
	r.faults = int(timeout.Load())
	r.note("A: %d slow POSTs at once; %d ended 408 TIMEOUT, %d 429 (A's share), %d otherwise", slow, timeout.Load(), limited.Load(), other.Load())
	if other.Load() > 0 {
		r.fail("a slow body ended otherwise: %v", firstOther.Load())
	}
	if timeout.Load() == 0 {
		r.fail("no slow body was answered 408")
	}
	if b.bad > 0 || b.ok == 0 {
		r.fail("B was not served throughout: %s", b.first)
	}
	return r
}

// slowPost opens a POST of a body of n bytes as tenant A and sends it a
// byte a second until the answer comes (at most 40 s); it returns the
// answer's status and content type.
func slowPost(base string, n int) (int, string, error) {
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		return 0, "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(40 * time.Second))
	head := fmt.Sprintf("POST /v1/errors HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		strings.TrimPrefix(base, "http://"), keyA, n)
	if _, err := conn.Write([]byte(head)); err != nil {
		return 0, "", err
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		body := report("q_slow", "")
		for i := 0; i < n; i++ {
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
			}
			if _, err := conn.Write(body[i%len(body) : i%len(body)+1]); err != nil {
				return
			}
		}
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, "", err
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Content-Type"), nil
}
