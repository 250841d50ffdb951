package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

const slowKeyA, slowKeyB = "key-a-0123456789abcdef", "key-b-0123456789abcdef"

// slowPost opens a connection and sends a POST /v1/errors's headers, with
// a Content-Length of length, and the first bytes of its body; then it
// sends nothing more.
func slowPost(t *testing.T, f *fixture, key, first string, length int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(f.http.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_, err = fmt.Fprintf(c, "POST /v1/errors HTTP/1.1\r\nHost: triage\r\nX-API-Key: %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", key, length, first)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// readResponse reads the answer to c's request, waiting at most a minute.
func readResponse(c net.Conn) (response, error) {
	_ = c.SetReadDeadline(time.Now().Add(time.Minute))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	resp.Header.Set("X-Test-Close", strconv.FormatBool(resp.Close)) // net/http takes Connection out
	return response{status: resp.StatusCode, header: resp.Header, body: body}, err
}

// waitFor polls cond until it holds, failing the test after 30 seconds
// (a bound for a loaded machine, never the expected time).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// A tenant sending slow bodies holds its share of the request slots, no
// more: its requests beyond it are answered 429 at once, and another
// tenant is still served (it got 503 while the slow bodies held every
// slot).
func TestSlowBodiesHoldOnlyTheirTenantsShare(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) {
		c.APIKeys = map[string]string{slowKeyA: "acme", slowKeyB: "globex"}
		c.MaxConcurrent, c.TenantConcurrent = 4, 2
		c.BodyTimeout, c.MinBodyRate = ReadTimeout, -1 // the slow bodies hold until the test lets them go
	})
	answers := make(chan response, 4)
	var conns []net.Conn
	for range 4 { // as many as the global bound
		c := slowPost(t, f, slowKeyA, "{", 1000)
		conns = append(conns, c)
		go func() {
			r, err := readResponse(c)
			if err != nil {
				r.status = -1
			}
			answers <- r
		}()
	}
	// Two are answered at once, 429 with Retry-After; two hold a slot.
	for range 2 {
		select {
		case r := <-answers:
			if r.status != 429 || codeOf(t, r) != "RATE_LIMITED" || r.header.Get("Retry-After") == "" {
				t.Errorf("a slow body past the tenant's share: %d %v %s", r.status, r.header, r.body)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("the slow bodies past the tenant's share were not answered; acme holds %d slots", f.srv.inProgress.Held("acme"))
		}
	}
	waitFor(t, "acme's two slow bodies", func() bool { return f.srv.inProgress.Held("acme") == 2 })

	report := readFile(t, goldenDir+"/db_timeout.json")
	if r := f.do("POST", "/v1/errors", report, map[string]string{"X-API-Key": slowKeyB}); r.status != 201 {
		t.Errorf("the other tenant, while acme's slow bodies are in progress: %d %s", r.status, r.body)
	}
	if r := f.do("POST", "/v1/errors", report, map[string]string{"X-API-Key": slowKeyA}); r.status != 429 || codeOf(t, r) != "RATE_LIMITED" {
		t.Errorf("acme, at its share: %d %s", r.status, r.body)
	}
	// The slow clients go away: their slots are free again.
	for _, c := range conns {
		c.Close()
	}
	waitFor(t, "acme's slots", func() bool { return f.srv.inProgress.Held("acme") == 0 && len(f.srv.slots) == 0 })
	if r := f.do("POST", "/v1/errors", report, map[string]string{"X-API-Key": slowKeyA}); r.status != 201 {
		t.Errorf("acme, its slots free: %d %s", r.status, r.body)
	}
}

// A request without a valid key holds no slot: it is refused before its
// body is read.
func TestUnauthenticatedSlowBodyHoldsNoSlot(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) {
		c.APIKeys = map[string]string{slowKeyA: "acme", slowKeyB: "globex"}
		c.MaxConcurrent = 1
		c.BodyTimeout, c.MinBodyRate = ReadTimeout, -1
	})
	c := slowPost(t, f, "wrong-key-0123456789", "{", 1000)
	r, err := readResponse(c)
	if err != nil || r.status != 403 || r.header.Get("X-Test-Close") != "true" {
		t.Fatalf("a wrong key with a slow body: %d %v %v", r.status, r.header, err)
	}
	if r := f.do("GET", "/v1/errors", nil, map[string]string{"X-API-Key": slowKeyA}); r.status != 200 {
		t.Errorf("the only slot: %d %s", r.status, r.body)
	}
}

// A body that does not arrive within the body timeout is answered with a
// problem, 408 TIMEOUT, not a dropped connection.
func TestSlowBodyTimesOut(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) {
		c.APIKeys = map[string]string{slowKeyA: "acme", slowKeyB: "globex"}
		c.BodyTimeout, c.MinBodyRate = 300*time.Millisecond, -1
	})
	c := slowPost(t, f, slowKeyA, `{"agent_id":`, 1000)
	r, err := readResponse(c)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	if r.status != 408 || codeOf(t, r) != "TIMEOUT" {
		t.Fatalf("a body past the timeout: %d %v %s", r.status, r.header, r.body)
	}
	if r.header.Get("X-Test-Close") != "true" {
		t.Error("the connection is not closed after the answer")
	}
	waitFor(t, "the slot", func() bool { return f.srv.inProgress.Held("acme") == 0 })
}

// A body that arrives more slowly than the minimum rate is answered 408
// once the grace has passed, long before the body timeout.
func TestSlowBodyUnderMinimumRate(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) {
		c.BodyTimeout, c.MinBodyRate, c.BodyGrace = ReadTimeout, 100, 200*time.Millisecond
	})
	start := time.Now()
	c := slowPost(t, f, "", `{"agent_id":"a"`, 1000) // 15 bytes: due by 0.2s + 0.15s
	r, err := readResponse(c)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	if r.status != 408 || codeOf(t, r) != "TIMEOUT" {
		t.Fatalf("a body under the minimum rate: %d %s", r.status, r.body)
	}
	if elapsed := time.Since(start); elapsed > ReadTimeout*2/3 {
		t.Errorf("answered after %v: the rate was not checked", elapsed)
	}
}

// A body sent in pieces, within the rate, is read whole; and the body's
// deadline ends with the body: the handling after it may take longer
// (here the store takes a second, past the 200ms body timeout), and the
// request's context is not cancelled by a deadline left on the
// connection.
func TestBodyDeadlineEndsWithTheBody(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) {
		c.BodyTimeout, c.MinBodyRate, c.BodyGrace = 5*time.Second, 100, 3*time.Second
		c.Store = hookStore{Store: c.Store, save: func(ctx context.Context) error {
			select {
			case <-time.After(time.Second):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}}
	})
	report := readFile(t, goldenDir+"/db_timeout.json")
	c := slowPost(t, f, "", "", len(report))
	for i := 0; i < len(report); i += 100 {
		time.Sleep(20 * time.Millisecond)
		if _, err := c.Write(report[i:min(i+100, len(report))]); err != nil {
			t.Fatal(err)
		}
	}
	r, err := readResponse(c)
	if err != nil || r.status != 201 {
		t.Fatalf("a body in pieces: %d %v %s", r.status, err, r.body)
	}

	f = newFixture(t, func(c *Config) {
		c.BodyTimeout = 200 * time.Millisecond
		c.Store = hookStore{Store: c.Store, save: func(ctx context.Context) error {
			select {
			case <-time.After(time.Second):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}}
	})
	if r := f.do("POST", "/v1/errors", report, nil); r.status != 201 {
		t.Errorf("handling longer than the body timeout: %d %s", r.status, r.body)
	}
}
