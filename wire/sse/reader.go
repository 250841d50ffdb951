package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
)

// DefaultMaxFrameSize is the largest frame a Reader from NewReader accepts:
// 1 MiB, counting every line of the frame (comments and fields it ignores
// included) plus one byte per line break. AG-UI events are far smaller;
// a stream that carries large state snapshots should use NewReaderSize.
const DefaultMaxFrameSize = 1 << 20

// ErrFrameTooLarge is matched by the error a Reader returns when a frame
// exceeds its maximum size. The Reader stops there: what follows is the
// rest of a frame it cannot hold.
var ErrFrameTooLarge = errors.New("sse: frame too large")

// maxRetryMillis bounds the retry field so that it fits a time.Duration.
const maxRetryMillis = math.MaxInt64 / int64(time.Millisecond)

const readBufSize = 4096

// Reader reads frames from an event stream following the WHATWG
// EventSource parsing rules (see the package documentation). It is not safe
// for concurrent use.
type Reader struct {
	src   io.Reader
	max   int
	buf   []byte
	r, w  int
	rerr  error // the source's error, reported once buffered bytes are used
	empty int   // consecutive reads that returned nothing

	started bool // the byte order mark check is done
	skipLF  bool // the last line ended in CR: a following LF ends nothing
	fail    error

	line      []byte // the line being read
	frameSize int    // bytes of the current frame so far

	// The frame being parsed.
	data     []byte
	event    []byte
	id       []byte
	hasID    bool
	retry    time.Duration
	hasRetry bool

	lastID    string
	lastRetry time.Duration
}

// NewReader returns a Reader on r that accepts frames up to
// DefaultMaxFrameSize.
func NewReader(r io.Reader) *Reader { return NewReaderSize(r, DefaultMaxFrameSize) }

// NewReaderSize returns a Reader on r that accepts frames up to maxFrameSize
// bytes (counting every line of a frame plus one byte per line break). A
// size below 1 means DefaultMaxFrameSize.
func NewReaderSize(r io.Reader, maxFrameSize int) *Reader {
	if maxFrameSize < 1 {
		maxFrameSize = DefaultMaxFrameSize
	}
	return &Reader{src: r, max: maxFrameSize, buf: make([]byte, readBufSize)}
}

// LastEventID is the stream's last event ID as EventSource keeps it: the
// value of the most recent id field read so far, in any frame, dispatched or
// not. It is what a client sends as Last-Event-ID when it reconnects.
func (r *Reader) LastEventID() string { return r.lastID }

// Retry is the reconnection time the stream asked for last, zero if it never
// did.
func (r *Reader) Retry() time.Duration { return r.lastRetry }

// Next returns the next frame. A frame is dispatched by a blank line and only
// when it has at least one data line; blocks without data (comments, a lone
// id or retry) update LastEventID and Retry and are skipped.
//
// At the end of the stream Next returns io.EOF; an unfinished frame there is
// discarded, as EventSource discards it. A frame larger than the Reader's
// maximum stops it with an error matching ErrFrameTooLarge; the source's
// other errors are returned wrapped. Once Next has returned an error it
// returns the same error on every later call.
func (r *Reader) Next() (Frame, error) {
	if r.fail != nil {
		return Frame{}, r.fail
	}
	if !r.started {
		r.started = true
		r.skipBOM()
	}
	for {
		line, err := r.readLine()
		if err != nil {
			if !errors.Is(err, ErrFrameTooLarge) && err != io.EOF {
				err = fmt.Errorf("sse: read: %w", err)
			}
			r.fail = err
			return Frame{}, err
		}
		if len(line) == 0 {
			r.frameSize = 0
			if f, ok := r.dispatch(); ok {
				return f, nil
			}
			continue
		}
		r.field(line)
	}
}

// field processes one non-empty line.
func (r *Reader) field(line []byte) {
	if line[0] == ':' {
		return // a comment
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "event":
		r.event = append(r.event[:0], value...)
	case "data":
		r.data = append(r.data, value...)
		r.data = append(r.data, '\n')
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			r.id = append(r.id[:0], value...)
			r.hasID = true
			r.lastID = decodeUTF8(value)
		}
	case "retry":
		if ms, ok := parseRetry(value); ok {
			r.retry = time.Duration(ms) * time.Millisecond
			r.hasRetry = true
			r.lastRetry = r.retry
		}
	}
}

// parseRetry accepts ASCII digits only, as the standard says; a value too
// large for a time.Duration is ignored like any other invalid one.
func parseRetry(v []byte) (int64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	ms, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil || ms > maxRetryMillis {
		return 0, false
	}
	return ms, true
}

// dispatch ends the current frame at a blank line. It reports false for a
// frame without data, which the standard does not dispatch.
func (r *Reader) dispatch() (Frame, bool) {
	var f Frame
	ok := len(r.data) > 0
	if ok {
		f.Data = decodeUTF8(r.data[:len(r.data)-1])
		f.Event = decodeUTF8(r.event)
		if r.hasID {
			f.ID = decodeUTF8(r.id)
		}
		if r.hasRetry {
			f.Retry = r.retry
		}
	}
	r.data, r.event, r.id = r.data[:0], r.event[:0], r.id[:0]
	r.hasID, r.hasRetry, r.retry = false, false, 0
	return f, ok
}

// skipBOM drops one UTF-8 byte order mark at the start of the stream.
func (r *Reader) skipBOM() {
	for r.w-r.r < 3 && r.rerr == nil {
		r.fill()
	}
	if bytes.HasPrefix(r.buf[r.r:r.w], []byte("\xEF\xBB\xBF")) {
		r.r += 3
	}
}

// readLine returns the next line without its terminator. The slice is valid
// until the next call. A line cut off by the end of the stream is not
// returned: the stream's error is.
func (r *Reader) readLine() ([]byte, error) {
	r.line = r.line[:0]
	for {
		if r.r == r.w {
			if r.rerr != nil {
				return nil, r.rerr
			}
			r.fill()
			continue
		}
		chunk := r.buf[r.r:r.w]
		if r.skipLF {
			r.skipLF = false
			if chunk[0] == '\n' {
				r.r++
				continue
			}
		}
		i := indexLineBreak(chunk)
		n := i
		if i < 0 {
			n = len(chunk)
		}
		if r.frameSize+len(r.line)+n+1 > r.max {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrFrameTooLarge, r.max)
		}
		r.line = append(r.line, chunk[:n]...)
		if i < 0 {
			r.r = r.w
			continue
		}
		r.skipLF = chunk[i] == '\r'
		r.r += i + 1
		r.frameSize += len(r.line) + 1
		return r.line, nil
	}
}

func indexLineBreak(b []byte) int {
	for i, c := range b {
		if c == '\n' || c == '\r' {
			return i
		}
	}
	return -1
}

// fill reads more of the source into the buffer, after the unread bytes.
func (r *Reader) fill() {
	if r.r > 0 {
		r.w = copy(r.buf, r.buf[r.r:r.w])
		r.r = 0
	}
	n, err := r.src.Read(r.buf[r.w:])
	if n < 0 || n > len(r.buf)-r.w {
		r.rerr = errors.New("invalid count from Read")
		return
	}
	r.w += n
	switch {
	case err != nil:
		r.rerr = err
	case n == 0:
		if r.empty++; r.empty >= 100 {
			r.rerr = io.ErrNoProgress
		}
	default:
		r.empty = 0
	}
}
