package sse

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// readAll reads every frame from r until an error; it returns the frames and
// the error (io.EOF at a clean end).
func readAll(r *Reader) ([]Frame, error) {
	var frames []Frame
	for {
		f, err := r.Next()
		if err != nil {
			return frames, err
		}
		frames = append(frames, f)
	}
}

func TestReader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     string
		want   []Frame
		lastID string
		retry  time.Duration
	}{
		{name: "Simple", in: "data: a\n\n", want: []Frame{{Data: "a"}}},
		{name: "NoSpace", in: "data:a\n\n", want: []Frame{{Data: "a"}}},
		{name: "OneSpaceStripped", in: "data:  a\n\n", want: []Frame{{Data: " a"}}},
		{name: "MultipleDataLines", in: "data: a\ndata: b\n\n", want: []Frame{{Data: "a\nb"}}},
		{name: "CRLF", in: "data: a\r\ndata: b\r\n\r\n", want: []Frame{{Data: "a\nb"}}},
		{name: "CR", in: "data: a\rdata: b\r\r", want: []Frame{{Data: "a\nb"}}},
		{name: "MixedLineEnds", in: "data: a\r\ndata: b\rdata: c\n\r\n", want: []Frame{{Data: "a\nb\nc"}}},
		{name: "CommentIgnored", in: ": keep-alive\ndata: x\n\n", want: []Frame{{Data: "x"}}},
		{name: "CommentOnlyBlock", in: ": keep-alive\n\ndata: x\n\n", want: []Frame{{Data: "x"}}},
		{name: "UnknownFieldIgnored", in: "foo: bar\nDATA: no\ndata: x\n\n", want: []Frame{{Data: "x"}}},
		{name: "FieldWithoutColon", in: "data\n\n", want: []Frame{{Data: ""}}},
		{name: "EmptyData", in: "data:\n\n", want: []Frame{{Data: ""}}},
		{name: "ColonInValue", in: "data: a: b\n\n", want: []Frame{{Data: "a: b"}}},
		{name: "Event", in: "event: RUN_ERROR\ndata: {}\n\n", want: []Frame{{Event: "RUN_ERROR", Data: "{}"}}},
		{
			name: "EventResetAfterDispatch",
			in:   "event: e\ndata: 1\n\ndata: 2\n\n",
			want: []Frame{{Event: "e", Data: "1"}, {Data: "2"}},
		},
		{
			name: "BlockWithoutDataDispatchesNothing",
			in:   "event: e\nid: 7\n\ndata: x\n\n",
			want: []Frame{{Data: "x"}}, lastID: "7",
		},
		{
			name: "IDPersists",
			in:   "id: 1\ndata: a\n\ndata: b\n\n",
			want: []Frame{{ID: "1", Data: "a"}, {Data: "b"}}, lastID: "1",
		},
		{
			name: "EmptyIDResets",
			in:   "id: 1\ndata: a\n\nid\ndata: b\n\n",
			want: []Frame{{ID: "1", Data: "a"}, {Data: "b"}}, lastID: "",
		},
		{
			name: "IDWithNULIgnored",
			in:   "id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n",
			want: []Frame{{ID: "1", Data: "a"}, {Data: "b"}}, lastID: "1",
		},
		{name: "Retry", in: "retry: 1500\ndata: x\n\n", want: []Frame{{Retry: 1500 * time.Millisecond, Data: "x"}}, retry: 1500 * time.Millisecond},
		{name: "RetryWithoutData", in: "retry: 10\n\ndata: x\n\n", want: []Frame{{Data: "x"}}, retry: 10 * time.Millisecond},
		{name: "RetryNotDigits", in: "retry: 1.5\nretry: -1\nretry:  1\nretry:\ndata: x\n\n", want: []Frame{{Data: "x"}}},
		{name: "RetryTooLarge", in: "retry: 99999999999999999999\ndata: x\n\n", want: []Frame{{Data: "x"}}},
		{name: "BOM", in: "\xEF\xBB\xBFdata: x\n\n", want: []Frame{{Data: "x"}}},
		{name: "SecondBOMIsText", in: "\xEF\xBB\xBF\xEF\xBB\xBFdata: x\n\ndata: y\n\n", want: []Frame{{Data: "y"}}},
		{name: "BOMOnlyAtStart", in: "data: \xEF\xBB\xBFx\n\n", want: []Frame{{Data: "\uFEFFx"}}},
		{name: "UnfinishedFrameDiscarded", in: "data: x\n\ndata: y\n", want: []Frame{{Data: "x"}}},
		{name: "UnfinishedLineDiscarded", in: "data: x\n\ndata: y", want: []Frame{{Data: "x"}}},
		{name: "ManyBlankLines", in: "\n\n\ndata: a\n\n\n\ndata: b\n\n", want: []Frame{{Data: "a"}, {Data: "b"}}},
		{name: "InvalidUTF8TruncatedSequence", in: "data: \xE2\x82\n\n", want: []Frame{{Data: "\uFFFD"}}},
		{name: "InvalidUTF8Bytes", in: "data: \xFF\xFEx\n\n", want: []Frame{{Data: "\uFFFD\uFFFDx"}}},
		{name: "InvalidUTF8Surrogate", in: "data: \xED\xA0\x80\n\n", want: []Frame{{Data: "\uFFFD\uFFFD\uFFFD"}}},
		{name: "InvalidUTF8InEvent", in: "event: \xC3\ndata: x\n\n", want: []Frame{{Event: "\uFFFD", Data: "x"}}},
		{name: "Empty", in: "", want: nil},
		{
			// The WHATWG standard's own examples.
			name: "SpecExampleIDs",
			in:   "data: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n",
			want: []Frame{{ID: "1", Data: "first event"}, {Data: "second event"}, {Data: " third event"}},
		},
		{
			name: "SpecExampleEmptyData",
			in:   "data\n\ndata\ndata\n\ndata:",
			want: []Frame{{Data: ""}, {Data: "\n"}},
		},
		{name: "SpecExampleSpace", in: "data:test\n\ndata: test\n\n", want: []Frame{{Data: "test"}, {Data: "test"}}},
	}
	readers := []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"Whole", func(r io.Reader) io.Reader { return r }},
		{"OneByte", iotest.OneByteReader},
		{"DataErr", iotest.DataErrReader},
		{"Half", iotest.HalfReader},
	}
	for _, tt := range tests {
		for _, rd := range readers {
			t.Run(tt.name+"/"+rd.name, func(t *testing.T) {
				t.Parallel()
				r := NewReader(rd.wrap(strings.NewReader(tt.in)))
				got, err := readAll(r)
				if err != io.EOF {
					t.Fatalf("error = %v, want io.EOF", err)
				}
				if !slices.Equal(got, tt.want) {
					t.Errorf("frames\n got %q\nwant %q", got, tt.want)
				}
				if r.LastEventID() != tt.lastID {
					t.Errorf("LastEventID = %q, want %q", r.LastEventID(), tt.lastID)
				}
				if r.Retry() != tt.retry {
					t.Errorf("Retry = %v, want %v", r.Retry(), tt.retry)
				}
			})
		}
	}
}

func TestReaderMaxFrameSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		max     int
		in      string
		want    []Frame
		tooBig  bool
		comment string
	}{
		// "data: 0123456789" is 16 bytes, plus one for its line break, plus
		// one for the blank line: 18.
		{name: "Exact", max: 18, in: "data: 0123456789\n\n", want: []Frame{{Data: "0123456789"}}},
		{name: "OneOver", max: 17, in: "data: 0123456789\n\n", tooBig: true},
		{name: "LongLineWithoutBreak", max: 64, in: strings.Repeat("a", 1000), tooBig: true},
		{name: "ManyLinesWithoutBlank", max: 64, in: strings.Repeat("data: a\n", 100), tooBig: true},
		{name: "CommentsCount", max: 64, in: strings.Repeat(": ping\n", 100), tooBig: true},
		{name: "LimitIsPerFrame", max: 18, in: strings.Repeat("data: 0123456789\n\n", 10), want: slices.Repeat([]Frame{{Data: "0123456789"}}, 10)},
		{name: "AfterGoodFrames", max: 18, in: "data: a\n\ndata: 0123456789a\n\n", want: []Frame{{Data: "a"}}, tooBig: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := NewReaderSize(iotest.HalfReader(strings.NewReader(tt.in)), tt.max)
			got, err := readAll(r)
			if tt.tooBig != errors.Is(err, ErrFrameTooLarge) {
				t.Fatalf("error = %v, want ErrFrameTooLarge: %v", err, tt.tooBig)
			}
			if !tt.tooBig && err != io.EOF {
				t.Fatalf("error = %v, want io.EOF", err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("frames = %q, want %q", got, tt.want)
			}
			if _, again := r.Next(); again != err {
				t.Errorf("second Next error = %v, want the same %v", again, err)
			}
		})
	}
}

func TestReaderDefaultSize(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", DefaultMaxFrameSize)
	_, err := NewReader(strings.NewReader("data: " + big + "\n\n")).Next()
	if !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("error = %v, want ErrFrameTooLarge", err)
	}
	if want := "sse: frame too large: more than 1048576 bytes"; err.Error() != want {
		t.Errorf("error text = %q, want %q", err, want)
	}
	fits := strings.Repeat("x", DefaultMaxFrameSize-len("data: \n\n"))
	f, err := NewReaderSize(strings.NewReader("data: "+fits+"\n\n"), 0).Next()
	if err != nil || f.Data != fits {
		t.Fatalf("Next = %d bytes, %v; want the whole frame", len(f.Data), err)
	}
}

func TestReaderSourceError(t *testing.T) {
	t.Parallel()
	boom := errors.New("connection reset")
	r := NewReader(io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom)))
	f, err := r.Next()
	if err != nil || f.Data != "a" {
		t.Fatalf("first Next = %q, %v", f.Data, err)
	}
	_, err = r.Next()
	if !errors.Is(err, boom) {
		t.Fatalf("error = %v, want it to wrap %v", err, boom)
	}
	if want := "sse: read: connection reset"; err.Error() != want {
		t.Errorf("error text = %q, want %q", err, want)
	}
}

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

func TestReaderNoProgress(t *testing.T) {
	t.Parallel()
	_, err := NewReader(zeroReader{}).Next()
	if !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("error = %v, want io.ErrNoProgress", err)
	}
}

func TestDecodeUTF8(t *testing.T) {
	t.Parallel()
	// Expectations follow the WHATWG Encoding Standard: one U+FFFD per
	// maximal invalid subpart.
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"h\u00e9 \u20ac \U0001F600", "h\u00e9 \u20ac \U0001F600"},
		{"\x80", "\uFFFD"},
		{"\xC0\x80", "\uFFFD\uFFFD"},
		{"\xE2\x82", "\uFFFD"},
		{"\xE2\x82A", "\uFFFDA"},
		{"\xF0\x9F\x98", "\uFFFD"},
		{"\xF0\x9F\x98\xF0\x9F\x98\x80", "\uFFFD\U0001F600"},
		{"\xE0\x80\x80", "\uFFFD\uFFFD\uFFFD"},
		{"\xED\xA0\x80", "\uFFFD\uFFFD\uFFFD"},
		{"\xF4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"\xF5", "\uFFFD"},
		{"a\xFFb", "a\uFFFDb"},
	}
	for _, tt := range tests {
		if got := decodeUTF8([]byte(tt.in)); got != tt.want {
			t.Errorf("decodeUTF8(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
