package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzMax is the frame size limit while fuzzing: small, so that the limit
// itself is exercised.
const fuzzMax = 512

// FuzzReader feeds arbitrary bytes to the Reader and checks that it never
// panics, that every frame it returns could have come from a conforming
// stream, and that the write→read round trip holds: frames written by the
// Writer read back identically, both for the frames the Reader found and for
// the input taken as a payload.
func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"data: a\n\n",
		"event: RUN_ERROR\nid: 1\nretry: 1000\ndata: {\"type\":\"RUN_ERROR\"}\n\n",
		"\xEF\xBB\xBFdata: bom\r\n\r\n",
		"data: a\rdata: b\r\r: comment\r\n",
		"id: 1\x002\ndata\n\ndata:\n\n",
		"data: \xE2\x82\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewReaderSize(bytes.NewReader(in), fuzzMax)
		var frames []Frame
		var err error
		for {
			var fr Frame
			if fr, err = r.Next(); err != nil {
				break
			}
			checkFrame(t, fr)
			frames = append(frames, fr)
		}
		if err != io.EOF && !errors.Is(err, ErrFrameTooLarge) {
			t.Fatalf("unexpected error %v", err)
		}
		if strings.ContainsRune(r.LastEventID(), 0) {
			t.Errorf("LastEventID %q holds NUL", r.LastEventID())
		}

		// Frames the Reader produced are valid for the Writer and survive a
		// round trip unchanged.
		var buf bytes.Buffer
		w := NewWriter(&buf)
		for _, fr := range frames {
			if err := w.WriteFrame(fr); err != nil {
				t.Fatalf("Writer refused frame %q read from the stream: %v", fr, err)
			}
		}
		// The Writer puts a space after each colon, so the limit grows.
		again, err := readAll(NewReaderSize(&buf, 4*fuzzMax))
		if err != io.EOF {
			t.Fatalf("re-read: %v", err)
		}
		if len(again) != len(frames) {
			t.Fatalf("re-read %d frames, want %d", len(again), len(frames))
		}
		for i := range frames {
			if again[i] != frames[i] {
				t.Fatalf("frame %d re-read as %q, want %q", i, again[i], frames[i])
			}
		}

		// The input as a payload: the Writer refuses invalid UTF-8 and
		// otherwise round-trips it.
		in2 := Frame{Event: "fuzz", ID: "1", Data: string(in)}
		buf.Reset()
		if err := NewWriter(&buf).WriteFrame(in2); err != nil {
			if utf8.Valid(in) {
				t.Fatalf("Writer refused valid data: %v", err)
			}
			return
		}
		got, err := NewReaderSize(&buf, 1<<20).Next()
		if err != nil {
			t.Fatal(err)
		}
		if want := normalize(in2); got != want {
			t.Fatalf("payload round trip: got %q, want %q", got, want)
		}
	})
}

func checkFrame(t *testing.T, f Frame) {
	t.Helper()
	switch {
	case !utf8.ValidString(f.Data), !utf8.ValidString(f.Event), !utf8.ValidString(f.ID):
		t.Errorf("frame %q is not valid UTF-8", f)
	case strings.ContainsRune(f.Data, '\r'):
		t.Errorf("data %q holds CR", f.Data)
	case strings.ContainsAny(f.Event, "\r\n"), strings.ContainsAny(f.ID, "\r\n\x00"):
		t.Errorf("event or id of %q holds a line break or NUL", f)
	case len(f.Data) > 3*fuzzMax:
		// Each invalid byte may become a three-byte U+FFFD.
		t.Errorf("data of %d bytes exceeds the frame limit", len(f.Data))
	case f.Retry < 0:
		t.Errorf("negative retry %v", f.Retry)
	}
}
