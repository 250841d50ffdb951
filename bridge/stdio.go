package bridge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/wire/jsonrpc"
)

// IOTransport is the transport `triage bridge` serves on: newline-delimited
// JSON-RPC read from r and written to w, as the go-sdk's mcp.IOTransport,
// but for ids. The go-sdk reads a numeric request id as a float64 and
// answers it as an int64, so 1.5 came back as 1 and 1.5e300 as
// -9223372036854775808: a request whose id would not come back as it was
// sent (jsonrpc.ExactID) is answered here, -32600 Invalid Request with a
// null id, and never reaches the go-sdk; a batch holding one is refused
// whole. /mcp checks the same rule on its POST bodies.
//
// Closing the transport closes neither r nor w: they are the caller's
// (the process's standard input and output).
func IOTransport(r io.Reader, w io.Writer) mcp.Transport {
	out := &lockedWriter{w: w}
	return &mcp.IOTransport{Reader: &idCheck{r: bufio.NewReaderSize(r, 64<<10), w: out}, Writer: out}
}

// lockedWriter serializes the go-sdk's writes and idCheck's answers, so
// that no two lines interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (*lockedWriter) Close() error { return nil }

// idCheck passes the lines it reads on, but for requests whose ids
// jsonrpc.ExactID refuses: those it answers itself.
type idCheck struct {
	r   *bufio.Reader
	w   io.Writer
	buf []byte // what is left of the line being passed on
	err error  // the read error that ends the lines
}

func (*idCheck) Close() error { return nil }

func (c *idCheck) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		var line []byte
		line, c.err = c.line()
		if len(line) == 0 || c.refused(line) {
			continue
		}
		c.buf = line
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}

// line reads the next line, with its newline, up to the go-sdk's own
// bound on a line; a longer one is passed on as it is read (the go-sdk
// refuses it).
func (c *idCheck) line() ([]byte, error) {
	var line []byte
	for {
		chunk, err := c.r.ReadSlice('\n')
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) || len(line) >= mcp.DefaultMaxLineLength {
			if errors.Is(err, bufio.ErrBufferFull) {
				err = nil
			}
			return line, err
		}
	}
}

// refused reports whether line is a request, or a batch, with an id that
// would not come back as it was sent, and answers it when it is. A line
// that is not one JSON-RPC message or batch is the go-sdk's to answer.
func (c *idCheck) refused(line []byte) bool {
	type message struct {
		ID json.RawMessage `json:"id"`
	}
	var msgs []message
	switch t := bytes.TrimSpace(line); {
	case len(t) > 0 && t[0] == '{':
		var m message
		if json.Unmarshal(t, &m) != nil {
			return false
		}
		msgs = []message{m}
	case len(t) > 0 && t[0] == '[':
		if json.Unmarshal(t, &msgs) != nil {
			return false
		}
	}
	for _, m := range msgs {
		if !jsonrpc.ExactID(m.ID) {
			answer, err := json.Marshal(jsonrpc.NewErrorResponse(nil, jsonrpc.NewInvalidRequest(jsonrpc.IDRule)))
			if err == nil {
				_, _ = c.w.Write(append(answer, '\n'))
			}
			return true
		}
	}
	return false
}
