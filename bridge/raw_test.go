package bridge_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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

func newRawClient(t *testing.T, opts bridge.Options) *rawClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	m := agent.NewManager(agent.Default().Build(agent.BuildOptions{}), agent.Options{})
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
		_ = b.Run(ctx, &mcp.IOTransport{Reader: inR, Writer: outW})
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
