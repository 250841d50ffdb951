package wire_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/wire/agui"
	"github.com/triage-go/triage/wire/jsonrpc"
	"github.com/triage-go/triage/wire/present"
	"github.com/triage-go/triage/wire/problem"
	"github.com/triage-go/triage/wire/sse"
)

// The cost of writing one fault in each format, and of reading each back:
// the figures in docs/performance.md.

func rateLimit() *fault.Error {
	return fault.New(fault.RateLimited, "", fault.WithRetryAfter(30*time.Second),
		fault.WithSource("openai"), fault.WithDetail("providerId", "openai"))
}

func BenchmarkEncode(b *testing.B) {
	f := rateLimit()
	req := httptest.NewRequest("POST", "/v1/runs", nil)
	now := func() time.Time { return time.UnixMilli(1768132800000) }
	b.Run("problem.Write", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			problem.Write(httptest.NewRecorder(), req, f, nil)
		}
	})
	b.Run("agui.RunError+SSE", func(b *testing.B) {
		w := agui.NewWriter(sse.NewWriter(io.Discard), &agui.WriterOptions{SkipVerify: true})
		opts := &agui.Options{Now: now}
		b.ReportAllocs()
		for b.Loop() {
			if err := w.WriteEvent(agui.RunErrorFrom(f, opts)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jsonrpc.From", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(jsonrpc.From(f)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("present.UserError", func(b *testing.B) {
		opts := &present.Options{Now: now, NewID: func() string { return "00000000-0000-4000-8000-000000000000" }}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(present.EventFrom(f, opts)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	f := rateLimit()
	rec := httptest.NewRecorder()
	problem.Write(rec, httptest.NewRequest("POST", "/v1/runs", nil), f, nil)
	prob := rec.Body.Bytes()
	run, _ := agui.Marshal(agui.RunErrorFrom(f, nil))
	rpc, _ := json.Marshal(jsonrpc.From(f))
	pkt, _ := json.Marshal(present.ErrorPacket(present.StreamErrorFrom(f)))
	var stream bytes.Buffer
	for range 100 {
		stream.WriteString("event: RUN_ERROR\ndata: ")
		stream.Write(run)
		stream.WriteString("\n\n")
	}

	b.Run("problem.Parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := problem.Parse(prob); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("agui.Parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := agui.Parse(run); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jsonrpc.Parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := jsonrpc.Parse(rpc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("present.ParsePacket", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := present.ParsePacket(pkt); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sse.Reader/100frames", func(b *testing.B) {
		s := stream.String()
		b.SetBytes(int64(len(s)))
		b.ReportAllocs()
		for b.Loop() {
			r := sse.NewReader(strings.NewReader(s))
			for {
				if _, err := r.Next(); err != nil {
					if err != io.EOF {
						b.Fatal(err)
					}
					break
				}
			}
		}
	})
}
