//go:build unix

package server

import (
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An answer the client does not read is cut once a piece of it has waited
// MCPStallTimeout: it held its encoded copies (about five times its size,
// in the go-sdk's buffers) until the client went away or the 6-minute
// write timeout.
func TestMCPUnreadAnswerIsCut(t *testing.T) {
	t.Parallel()
	f := mcpDoor(t, time.Minute, func(c *Config) { c.MCPStallTimeout = time.Second })
	sid := mcpInit(t, f, "key-a", "2025-06-18")
	host := strings.TrimPrefix(f.http.URL, "http://")
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	c, err := d.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"tasks_delegate","arguments":{"agentId":"echo","prompt":"` + strings.Repeat("x", 4<<20-64) + `"}}}`
	ended := requestsEnded(f, "POST /mcp")
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nX-API-Key: key-a\r\nContent-Type: application/json\r\nAccept: %s\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n%s",
		host, mcpAccept, sid, len(body), body)
	// Once the answer (8 MiB and more) has begun, it waits, unread, until
	// the server has given up on it; then whatever came is read.
	_ = c.SetReadDeadline(time.Now().Add(time.Minute))
	head := make([]byte, 1024)
	n, err := io.ReadAtLeast(c, head, len(head))
	if err != nil {
		t.Fatalf("the answer did not begin: %v", err)
	}
	// The server cuts the stalled answer: its request ends (it is counted
	// when its handler returns).
	waitFor(t, "the stalled answer to be cut", func() bool { return requestsEnded(f, "POST /mcp") > ended })
	rest, err := io.ReadAll(c)
	if err != nil && !strings.Contains(err.Error(), "reset") {
		t.Fatalf("reading: %v (%d bytes)", err, n+len(rest))
	}
	if got := string(head[:n]) + string(rest); strings.HasSuffix(got, "\r\n0\r\n\r\n") {
		t.Fatalf("the unread answer was not cut: %d bytes, whole", len(got))
	}
	// The session serves on.
	if !alive(t, f, "key-a", sid) {
		t.Fatal("the session is gone")
	}
}
