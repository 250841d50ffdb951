package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage/internal/testkit/golden"
)

// goldenFrames are the frames of testdata/frames.golden.
var goldenFrames = []Frame{
	{Data: `{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}`},
	{Event: "RUN_ERROR", Data: `{"type":"RUN_ERROR","message":"Too many requests.","code":"RATE_LIMITED"}`},
	{Event: "update", ID: "42", Retry: 3 * time.Second, Data: "line one\nline two\r\nline three\rline four"},
	{Data: ""},
	{Data: " leading space\n\ntrailing line break\n"},
	{Event: "ünïcode", ID: "id with spaces", Data: "€ 😀"},
}

func TestWriterGolden(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for i, f := range goldenFrames {
		if err := w.WriteFrame(f); err != nil {
			t.Fatalf("WriteFrame(%d): %v", i, err)
		}
		if i == 2 {
			if err := w.WriteComment("keep-alive"); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.WriteComment("two\nlines"); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "frames.golden", buf.Bytes())
	if bytes.ContainsRune(buf.Bytes(), '\r') {
		t.Error("output contains CR; frames must use LF only")
	}

	got, err := readAll(NewReader(bytes.NewReader(buf.Bytes())))
	if err != io.EOF {
		t.Fatal(err)
	}
	want := make([]Frame, len(goldenFrames))
	for i, f := range goldenFrames {
		want[i] = normalize(f)
	}
	if !slices.Equal(got, want) {
		t.Errorf("read back\n got %q\nwant %q", got, want)
	}
}

// normalize is what a frame reads back as: line breaks in data become LF
// and retry is whole milliseconds, rounded up.
func normalize(f Frame) Frame {
	f.Data = strings.Join(slices.Collect(lines(f.Data)), "\n")
	f.Retry = (f.Retry + time.Millisecond - 1).Truncate(time.Millisecond)
	return f
}

func TestWriterRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []Frame{
		{Data: "x"},
		{Event: "e", Data: "x"},
		{Event: " spaced", ID: " spaced", Data: "  two spaces"},
		{Event: "e:colon", ID: "id:colon", Data: "a: b"},
		{ID: "1", Data: "\n"},
		{Data: "\r\n\r\n"},
		{Data: "a\rb"},
		{Data: ": not a comment"},
		{Data: "data: nested"},
		{Retry: time.Millisecond, Data: "x"},
		{Retry: 1500 * time.Microsecond, Data: "rounded up to 2ms"},
		{Data: "\uFEFFbom inside data"},
		{Data: strings.Repeat("long ", 10000)},
	}
	for _, f := range tests {
		t.Run(fmt.Sprintf("%.20q", f.Data), func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := NewWriter(&buf).WriteFrame(f); err != nil {
				t.Fatal(err)
			}
			got, err := NewReader(&buf).Next()
			if err != nil {
				t.Fatal(err)
			}
			if want := normalize(f); got != want {
				t.Errorf("read back %q, want %q", got, want)
			}
		})
	}
}

func TestWriterRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		f    Frame
	}{
		{"EventLF", Frame{Event: "a\nb", Data: "x"}},
		{"EventCR", Frame{Event: "a\rb", Data: "x"}},
		{"IDLF", Frame{ID: "1\n", Data: "x"}},
		{"IDNUL", Frame{ID: "1\x002", Data: "x"}},
		{"EventNotUTF8", Frame{Event: "\xff", Data: "x"}},
		{"IDNotUTF8", Frame{ID: "\xff", Data: "x"}},
		{"DataNotUTF8", Frame{Data: "a\xffb"}},
		{"NegativeRetry", Frame{Retry: -time.Second, Data: "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			err := NewWriter(&buf).WriteFrame(tt.f)
			if !errors.Is(err, ErrInvalidFrame) {
				t.Fatalf("error = %v, want ErrInvalidFrame", err)
			}
			if buf.Len() != 0 {
				t.Errorf("wrote %q for a refused frame", buf.String())
			}
		})
	}
	if err := NewWriter(io.Discard).WriteComment("\xff"); !errors.Is(err, ErrInvalidFrame) {
		t.Errorf("WriteComment(invalid UTF-8) = %v, want ErrInvalidFrame", err)
	}
}

func TestSetHeaders(t *testing.T) {
	t.Parallel()
	h := http.Header{}
	SetHeaders(h)
	want := map[string]string{
		"Content-Type":      "text/event-stream",
		"Cache-Control":     "no-cache",
		"X-Accel-Buffering": "no",
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}

// countingFlusher is a ResponseWriter that counts flushes and hides itself
// behind a wrapper, as middleware does.
type countingFlusher struct {
	*httptest.ResponseRecorder
	flushes int
}

func (c *countingFlusher) Flush() { c.flushes++; c.ResponseRecorder.Flush() }

type wrapper struct{ http.ResponseWriter }

func (w wrapper) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// plainResponse cannot flush at all.
type plainResponse struct{ h http.Header }

func (p plainResponse) Header() http.Header         { return p.h }
func (p plainResponse) Write(b []byte) (int, error) { return len(b), nil }
func (p plainResponse) WriteHeader(int)             {}

type flusherOnly struct {
	bytes.Buffer
	flushes int
}

func (f *flusherOnly) Flush() { f.flushes++ }

func TestWriterFlushes(t *testing.T) {
	t.Parallel()
	t.Run("ResponseControllerThroughWrapper", func(t *testing.T) {
		t.Parallel()
		cf := &countingFlusher{ResponseRecorder: httptest.NewRecorder()}
		w := NewWriter(wrapper{cf})
		for i := range 3 {
			if err := w.WriteFrame(Frame{Data: "x"}); err != nil {
				t.Fatal(err)
			}
			if cf.flushes != i+1 {
				t.Fatalf("after %d frames, %d flushes", i+1, cf.flushes)
			}
		}
		if err := w.WriteComment(""); err != nil {
			t.Fatal(err)
		}
		if cf.flushes != 4 {
			t.Errorf("a comment was not flushed: %d flushes", cf.flushes)
		}
		if got := cf.Body.String(); got != "data: x\n\ndata: x\n\ndata: x\n\n:\n\n" {
			t.Errorf("body = %q", got)
		}
	})
	t.Run("NotSupported", func(t *testing.T) {
		t.Parallel()
		if err := NewWriter(plainResponse{http.Header{}}).WriteFrame(Frame{Data: "x"}); err != nil {
			t.Errorf("WriteFrame on a response that cannot flush = %v, want nil", err)
		}
	})
	t.Run("Bufio", func(t *testing.T) {
		t.Parallel()
		var buf bytes.Buffer
		bw := bufio.NewWriterSize(&buf, 4096)
		if err := NewWriter(bw).WriteFrame(Frame{Data: "x"}); err != nil {
			t.Fatal(err)
		}
		if buf.String() != "data: x\n\n" {
			t.Errorf("bufio.Writer not flushed: underlying has %q", buf.String())
		}
	})
	t.Run("Flusher", func(t *testing.T) {
		t.Parallel()
		var f flusherOnly
		if err := NewWriter(&f).WriteFrame(Frame{Data: "x"}); err != nil {
			t.Fatal(err)
		}
		if f.flushes != 1 {
			t.Errorf("flushes = %d, want 1", f.flushes)
		}
	})
}

type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

func TestWriterError(t *testing.T) {
	t.Parallel()
	boom := errors.New("broken pipe")
	err := NewWriter(failingWriter{boom}).WriteFrame(Frame{Data: "x"})
	if !errors.Is(err, boom) {
		t.Fatalf("error = %v, want it to wrap %v", err, boom)
	}
}

// lockedBuffer is a bytes.Buffer safe for concurrent writers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func TestWriterConcurrent(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	w := NewWriter(&out)
	const writers, each = 8, 50
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				data := fmt.Sprintf("writer %d\nframe %d", g, i)
				if err := w.WriteFrame(Frame{Event: "e", Data: data}); err != nil {
					t.Error(err)
				}
				if err := w.WriteComment("ping"); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	frames, err := readAll(NewReader(&out.buf))
	if err != io.EOF {
		t.Fatal(err)
	}
	if len(frames) != writers*each {
		t.Fatalf("read %d frames, want %d", len(frames), writers*each)
	}
	for _, f := range frames {
		var g, i int
		if _, err := fmt.Sscanf(f.Data, "writer %d\nframe %d", &g, &i); err != nil || f.Event != "e" {
			t.Fatalf("interleaved frame %q", f)
		}
	}
}

// TestWriterStreamsOverHTTP proves that frames reach a real client while the
// handler is still running: the handler writes the second frame only after
// the client has read the first.
func TestWriterStreamsOverHTTP(t *testing.T) {
	t.Parallel()
	firstRead := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		SetHeaders(rw.Header())
		w := NewWriter(rw)
		if err := w.WriteFrame(Frame{ID: "1", Data: "first"}); err != nil {
			t.Error(err)
			return
		}
		select {
		case <-firstRead:
		case <-time.After(10 * time.Second):
			t.Error("the client never saw the first frame: it was not flushed")
			return
		}
		if err := w.WriteFrame(Frame{ID: "2", Data: "second"}); err != nil {
			t.Error(err)
		}
	}))
	defer srv.Close()

	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	r := NewReader(resp.Body)
	f, err := r.Next()
	if err != nil || f != (Frame{ID: "1", Data: "first"}) {
		t.Fatalf("first frame = %q, %v", f, err)
	}
	close(firstRead)
	f, err = r.Next()
	if err != nil || f != (Frame{ID: "2", Data: "second"}) {
		t.Fatalf("second frame = %q, %v", f, err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the handler returned: %v, want io.EOF", err)
	}
	if r.LastEventID() != "2" {
		t.Errorf("LastEventID = %q, want 2", r.LastEventID())
	}
}
