package sse

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// flushLog records what its Writer was given, and what it held when it was
// flushed.
type flushLog struct {
	buf     bytes.Buffer
	writes  int
	flushed []string
	err     error // returned by Flush
}

func (l *flushLog) Write(p []byte) (int, error) { l.writes++; return l.buf.Write(p) }
func (l *flushLog) Flush() error {
	l.flushed = append(l.flushed, l.buf.String())
	return l.err
}

// TestBatchWriter: frames wait for Flush and then go out with one write and
// one flush, as NewWriter's would have written them; a comment takes the
// frames before it out with it, at once; Flush with nothing held does
// nothing.
func TestBatchWriter(t *testing.T) {
	var want bytes.Buffer
	plain := NewWriter(&want)
	var l flushLog
	w := NewBatchWriter(&l)
	for _, f := range goldenFrames[:3] {
		if err := w.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
		_ = plain.WriteFrame(f)
	}
	if l.writes != 0 || len(l.flushed) != 0 {
		t.Fatalf("frames written (%d) or flushed (%d) before Flush", l.writes, len(l.flushed))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if l.writes != 1 || len(l.flushed) != 1 || l.flushed[0] != want.String() {
		t.Fatalf("after Flush: %d writes, flushed %q; want one write of %q", l.writes, l.flushed, want.String())
	}
	if err := w.Flush(); err != nil || l.writes != 1 || len(l.flushed) != 1 {
		t.Fatalf("an empty Flush wrote (%d writes, %d flushes, %v)", l.writes, len(l.flushed), err)
	}

	_ = w.WriteData("", []byte(goldenFrames[3].Data))
	_ = w.WriteComment("keep-alive")
	_ = plain.WriteFrame(goldenFrames[3])
	_ = plain.WriteComment("keep-alive")
	if len(l.flushed) != 2 || l.flushed[1] != want.String() {
		t.Fatalf("a comment did not go out with the frame before it: flushed %q", l.flushed)
	}
}

// TestBatchWriterLimit: a batch Writer holding more than 16 KiB writes it
// out, unflushed, and a Flush's failure is returned.
func TestBatchWriterLimit(t *testing.T) {
	l := flushLog{err: errors.New("gone")}
	w := NewBatchWriter(&l)
	data := []byte(strings.Repeat("x", 1000))
	for range 17 {
		if err := w.WriteData("", data); err != nil {
			t.Fatal(err)
		}
	}
	if l.writes != 1 || len(l.flushed) != 0 || l.buf.Len() < maxBatch {
		t.Fatalf("%d writes of %d bytes, %d flushes; want one write past %d bytes, unflushed", l.writes, l.buf.Len(), len(l.flushed), maxBatch)
	}
	if err := w.WriteData("", data); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("Flush: %v, want the writer's failure", err)
	}
	if l.writes != 2 {
		t.Fatalf("%d writes, want 2", l.writes)
	}
}

// TestWriteDataAsWriteFrame: WriteData writes what WriteFrame writes for
// the same frame, and refuses what it refuses.
func TestWriteDataAsWriteFrame(t *testing.T) {
	for _, f := range goldenFrames {
		if f.ID != "" || f.Retry != 0 {
			continue
		}
		var a, b bytes.Buffer
		if err := NewWriter(&a).WriteFrame(f); err != nil {
			t.Fatal(err)
		}
		if err := NewWriter(&b).WriteData(f.Event, []byte(f.Data)); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Errorf("WriteData wrote %q, WriteFrame %q", b.String(), a.String())
		}
	}
	w := NewWriter(&bytes.Buffer{})
	for _, c := range []struct {
		event string
		data  []byte
	}{{"a\nb", []byte("x")}, {"", []byte("\xff")}} {
		if err := w.WriteData(c.event, c.data); !errors.Is(err, ErrInvalidFrame) {
			t.Errorf("WriteData(%q, %q): %v, want ErrInvalidFrame", c.event, c.data, err)
		}
	}
}
