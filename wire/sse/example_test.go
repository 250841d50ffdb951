package sse_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/triage-go/triage/wire/sse"
)

func ExampleWriter() {
	w := sse.NewWriter(os.Stdout)
	w.WriteFrame(sse.Frame{Event: "RUN_ERROR", Data: `{"type":"RUN_ERROR","message":"Request timed out."}`})
	w.WriteFrame(sse.Frame{ID: "7", Data: "two\nlines"})
	w.WriteComment("keep-alive")
	// Output:
	// event: RUN_ERROR
	// data: {"type":"RUN_ERROR","message":"Request timed out."}
	//
	// id: 7
	// data: two
	// data: lines
	//
	// : keep-alive
}

func ExampleSetHeaders() {
	handler := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		sse.SetHeaders(rw.Header())
		sse.NewWriter(rw).WriteFrame(sse.Frame{Data: "hello"})
	})
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/events", nil))
	fmt.Println(rec.Header().Get("Content-Type"), rec.Header().Get("Cache-Control"), rec.Flushed)
	fmt.Printf("%q\n", rec.Body.String())
	// Output:
	// text/event-stream no-cache true
	// "data: hello\n\n"
}

func ExampleReader() {
	stream := "\uFEFF: a comment\r\n" +
		"event: RUN_STARTED\r\nid: 1\r\ndata: {\"type\":\"RUN_STARTED\"}\r\n\r\n" +
		"data:first line\rdata: second line\r\r" +
		"data: unfinished"
	r := sse.NewReader(strings.NewReader(stream))
	for {
		f, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("event=%q id=%q data=%q\n", f.Event, f.ID, f.Data)
	}
	fmt.Printf("last event id %q\n", r.LastEventID())
	// Output:
	// event="RUN_STARTED" id="1" data="{\"type\":\"RUN_STARTED\"}"
	// event="" id="" data="first line\nsecond line"
	// last event id "1"
}

func ExampleNewReaderSize() {
	r := sse.NewReaderSize(strings.NewReader("data: "+strings.Repeat("x", 100)+"\n\n"), 64)
	_, err := r.Next()
	fmt.Println(errors.Is(err, sse.ErrFrameTooLarge), err)
	// Output:
	// true sse: frame too large: more than 64 bytes
}

func ExampleNewBatchWriter() {
	var out strings.Builder
	w := sse.NewBatchWriter(&out)
	w.WriteData("", []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hel"}`))
	w.WriteData("", []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"lo"}`))
	fmt.Printf("before Flush: %q\n", out.String())
	w.Flush() // the producer has nothing more ready
	fmt.Print(out.String())
	// Output:
	// before Flush: ""
	// data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hel"}
	//
	// data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"lo"}
}
