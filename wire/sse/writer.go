package sse

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Frame is one Server-Sent Event.
type Frame struct {
	// Event is the event type, the "event:" field. Empty means the default
	// type, which EventSource calls "message"; the Writer then writes no
	// event line.
	Event string
	// ID is the "id:" field this frame carries; empty means none. An
	// EventSource remembers the last id it saw across frames and sends it
	// back as Last-Event-ID when it reconnects (see Reader.LastEventID).
	ID string
	// Retry asks the client to wait this long before reconnecting, in whole
	// milliseconds; zero writes no retry field.
	Retry time.Duration
	// Data is the payload. It may hold line breaks (LF, CRLF or CR): each
	// line becomes one data line, and a reader joins them with LF.
	Data string
}

// ErrInvalidFrame is matched by the errors the Writer returns for a frame it
// refuses to write because it could not be read back as given.
var ErrInvalidFrame = errors.New("sse: invalid frame")

func (f Frame) validate() error {
	switch {
	case strings.ContainsAny(f.Event, "\r\n"):
		return fmt.Errorf("%w: event %q contains a line break", ErrInvalidFrame, f.Event)
	case !utf8.ValidString(f.Event):
		return fmt.Errorf("%w: event is not valid UTF-8", ErrInvalidFrame)
	case strings.ContainsAny(f.ID, "\r\n\x00"):
		return fmt.Errorf("%w: id %q contains a line break or NUL", ErrInvalidFrame, f.ID)
	case !utf8.ValidString(f.ID):
		return fmt.Errorf("%w: id is not valid UTF-8", ErrInvalidFrame)
	case !utf8.ValidString(f.Data):
		return fmt.Errorf("%w: data is not valid UTF-8", ErrInvalidFrame)
	case f.Retry < 0:
		return fmt.Errorf("%w: negative retry %v", ErrInvalidFrame, f.Retry)
	}
	return nil
}

// SetHeaders sets the response headers an event stream needs: Content-Type
// text/event-stream, Cache-Control no-cache (no cache or proxy may store or
// replay the stream) and X-Accel-Buffering no (nginx and similar proxies
// pass each frame on at once instead of buffering the response). Call it
// before the first write.
func SetHeaders(h http.Header) {
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
}

// Writer writes frames to an event stream, flushing after each (or, from
// NewBatchWriter, when told to). Its methods are safe for concurrent use:
// a heartbeat goroutine may write comments while another writes events,
// and frames never interleave.
type Writer struct {
	mu    sync.Mutex
	w     io.Writer
	flush func() error
	buf   []byte
	batch bool // frames wait in buf for Flush (NewBatchWriter)
}

// maxBatch is how many bytes of frames a batch Writer holds before it
// writes them (unflushed) to its writer.
const maxBatch = 16 << 10

// NewWriter returns a Writer on w. Each frame is written with a single Write
// call and then flushed:
//
//   - an http.ResponseWriter is flushed through http.ResponseController, which
//     finds a Flusher behind middleware wrappers that implement Unwrap; a
//     response that cannot flush at all (http.ErrNotSupported) is written
//     unflushed, as net/http would write it;
//   - anything with a Flush() error method (a *bufio.Writer) is flushed with
//     it;
//   - any other http.Flusher is flushed with Flush();
//   - any other writer is only written to.
func NewWriter(w io.Writer) *Writer {
	sw := &Writer{w: w, flush: func() error { return nil }}
	sw.setFlush(w)
	return sw
}

// NewBatchWriter returns a Writer on w, flushed as NewWriter's is, that
// holds the frames it is given until Flush: a producer with several events
// ready writes them with one Write and one flush, and calls Flush when it
// has nothing more ready (see graph.WhenIdle), so that an event is never
// held back waiting for the next. Frames beyond 16 KiB are written to w
// (not flushed) as they come. A comment is written and flushed at once,
// with the frames before it: it is a heartbeat.
func NewBatchWriter(w io.Writer) *Writer {
	sw := NewWriter(w)
	sw.batch = true
	return sw
}

func (sw *Writer) setFlush(w io.Writer) {
	switch x := w.(type) {
	case http.ResponseWriter:
		rc := http.NewResponseController(x)
		sw.flush = func() error {
			if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
				return err
			}
			return nil
		}
	case interface{ Flush() error }:
		sw.flush = x.Flush
	case http.Flusher:
		sw.flush = func() error { x.Flush(); return nil }
	}
}

// WriteFrame writes f and flushes it. It returns an error matching
// ErrInvalidFrame, having written nothing, for a frame that would not read
// back as given (see Frame), and the writer's error if writing or flushing
// fails.
func (w *Writer) WriteFrame(f Frame) error {
	if err := f.validate(); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.frame(appendFrame(w.start(), f))
}

// WriteData writes a frame of the given event type (empty: none) whose
// data is data, as WriteFrame(Frame{Event: event, Data: string(data)})
// would, without the copy to a string; the Writer keeps no reference to
// data.
func (w *Writer) WriteData(event string, data []byte) error {
	if err := (Frame{Event: event}).validate(); err != nil {
		return err
	}
	if !utf8.Valid(data) {
		return fmt.Errorf("%w: data is not valid UTF-8", ErrInvalidFrame)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.start()
	if event != "" {
		b = appendField(b, "event", event)
	}
	for line := range lines(data) {
		b = appendField(b, "data", line)
	}
	return w.frame(append(b, '\n'))
}

// Flush writes and flushes the frames a batch Writer holds; for a Writer
// from NewWriter, which holds none, it does nothing.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) == 0 {
		return nil
	}
	return w.emit(true)
}

// start is the buffer a frame is appended to: after the frames a batch
// Writer holds, else empty.
func (w *Writer) start() []byte {
	if w.batch {
		return w.buf
	}
	return w.buf[:0]
}

// frame takes b, the buffer with a frame appended, and writes it: at once
// and flushed, or for a batch Writer once it holds more than maxBatch
// bytes, and unflushed.
func (w *Writer) frame(b []byte) error {
	w.buf = b
	switch {
	case !w.batch:
		return w.emit(true)
	case len(b) >= maxBatch:
		return w.emit(false)
	}
	return nil
}

// WriteComment writes a comment, which readers ignore: a heartbeat that
// keeps proxies and load balancers from closing an idle stream. Each line of
// text becomes one comment line; a blank line follows.
func (w *Writer) WriteComment(text string) error {
	if !utf8.ValidString(text) {
		return fmt.Errorf("%w: comment is not valid UTF-8", ErrInvalidFrame)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.start()
	for line := range lines(text) {
		b = append(b, ':')
		if line != "" {
			b = append(b, ' ')
			b = append(b, line...)
		}
		b = append(b, '\n')
	}
	w.buf = append(b, '\n')
	return w.emit(true)
}

// emit writes the buffer, and flushes when flush says so. The buffer is
// empty afterwards, written or not: a frame is never written twice.
func (w *Writer) emit(flush bool) error {
	_, err := w.w.Write(w.buf)
	w.buf = w.buf[:0]
	if err != nil {
		return fmt.Errorf("sse: write: %w", err)
	}
	if !flush {
		return nil
	}
	if err := w.flush(); err != nil {
		return fmt.Errorf("sse: flush: %w", err)
	}
	return nil
}

// appendFrame appends f's wire form to b. Values are written after a single
// space, which a reader strips, so a value that itself starts with a space
// keeps it.
func appendFrame(b []byte, f Frame) []byte {
	if f.Event != "" {
		b = appendField(b, "event", f.Event)
	}
	if f.ID != "" {
		b = appendField(b, "id", f.ID)
	}
	if f.Retry > 0 {
		ms := (f.Retry + time.Millisecond - 1) / time.Millisecond
		b = append(b, "retry: "...)
		b = strconv.AppendInt(b, int64(ms), 10)
		b = append(b, '\n')
	}
	for line := range lines(f.Data) {
		b = appendField(b, "data", line)
	}
	return append(b, '\n')
}

func appendField[T string | []byte](b []byte, name string, value T) []byte {
	b = append(b, name...)
	b = append(b, ':')
	if len(value) > 0 {
		b = append(b, ' ')
		b = append(b, value...)
	}
	return append(b, '\n')
}

// lines yields the lines of s split at CRLF, LF and CR, as a reader splits
// them. An empty s is one empty line; a trailing line break yields a final
// empty line, so that joining the lines with LF gives s back.
func lines[T string | []byte](s T) iter.Seq[T] {
	return func(yield func(T) bool) {
		for {
			i := lineBreak(s)
			if i < 0 {
				yield(s)
				return
			}
			if !yield(s[:i]) {
				return
			}
			if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			s = s[i+1:]
		}
	}
}

// lineBreak is the index of the first CR or LF in s, or -1.
func lineBreak[T string | []byte](s T) int {
	for i := range len(s) {
		if s[i] == '\r' || s[i] == '\n' {
			return i
		}
	}
	return -1
}
