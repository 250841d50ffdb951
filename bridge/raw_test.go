package bridge_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
)

// rawClient speaks JSON-RPC to a bridge line by line, as a client that is
// not the go-sdk would: the go-sdk's client reads -32004 and -32003 as its
// own connection closing, so seed 002's error mode is checked on the wire.
type rawClient struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Scanner
	next int
}

func newRawClient(t *testing.T, opts bridge.Config) *rawClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	m := agent.NewManager(agent.Default().Build(nil), agent.ManagerConfig{})
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	opts.Manager = m
	b := bridge.New(opts)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = b.Run(ctx, bridge.IOTransport(inR, outW)) // as triage bridge serves
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
		<-done
		_ = m.Shutdown()
	})
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, 1<<20)
	c := &rawClient{t: t, in: inW, out: sc}
	c.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw", "version": "1"}})
	c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return c
}

func (c *rawClient) send(msg any) {
	data, _ := json.Marshal(msg)
	if _, err := fmt.Fprintf(c.in, "%s\n", data); err != nil {
		c.t.Fatal(err)
	}
}

// request sends a request and returns its response.
func (c *rawClient) request(method string, params any) map[string]any {
	c.t.Helper()
	c.next++
	id := c.next
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	for c.out.Scan() {
		var msg map[string]any
		if err := json.Unmarshal(c.out.Bytes(), &msg); err != nil {
			c.t.Fatalf("not JSON: %s", c.out.Bytes())
		}
		if msg["id"] == float64(id) {
			return msg
		}
	}
	c.t.Fatalf("no response to %s: %v", method, c.out.Err())
	return nil
}

// sendLine writes one raw line and returns the next line the bridge writes.
func (c *rawClient) sendLine(line string) map[string]any {
	c.t.Helper()
	if _, err := fmt.Fprintf(c.in, "%s\n", line); err != nil {
		c.t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() {
		if c.out.Scan() {
			got <- slices.Clone(c.out.Bytes())
		}
		close(got)
	}()
	var answer []byte
	select {
	case answer = <-got:
	case <-time.After(5 * time.Second):
		c.t.Fatalf("no answer to %s in 5s", line)
	}
	if answer == nil {
		c.t.Fatalf("no answer to %s", line)
	}
	var msg map[string]any
	if err := json.Unmarshal(answer, &msg); err != nil {
		c.t.Fatalf("not JSON: %s", answer)
	}
	return msg
}

// TestIOTransportRefusesInexactIDs: over stdio, a request whose id the
// go-sdk would answer altered (1.5e300 came back -9223372036854775808) is
// refused with -32600 and a null id; other ids come back as they went.
func TestIOTransportRefusesInexactIDs(t *testing.T) {
	c := newRawClient(t, bridge.Config{})
	for _, id := range []string{"1.5e300", "1.5", "9007199254740993", "-0", "1e3"} {
		msg := c.sendLine(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		e, _ := msg["error"].(map[string]any)
		if msg["id"] != nil || e == nil || e["code"] != -32600.0 {
			t.Errorf("id %s: answered %v", id, msg)
		}
	}
	msg := c.sendLine(`[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","id":2.5,"method":"ping"}]`)
	if e, _ := msg["error"].(map[string]any); msg["id"] != nil || e == nil || e["code"] != -32600.0 {
		t.Errorf("a batch with an inexact id: answered %v", msg)
	}
	for _, id := range []string{"9007199254740991", `"abc"`, "-42"} {
		msg := c.sendLine(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		want := any(nil)
		_ = json.Unmarshal([]byte(id), &want)
		if msg["id"] != want || msg["error"] != nil {
			t.Errorf("id %s: answered %v", id, msg)
		}
	}
}
