package fault_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"

	"github.com/triage-go/triage/fault"
)

// The errors From meets most: the figures for these go in docs/performance.md.
func BenchmarkFrom(b *testing.B) {
	var syntaxErr error
	{
		var v any
		syntaxErr = json.Unmarshal([]byte(`{"a":`), &v)
	}
	refused := &url.Error{Op: "Post", URL: "http://127.0.0.1:5432/v1", Err: &net.OpError{Op: "dial", Net: "tcp",
		Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	cases := []struct {
		name string
		err  error
	}{
		{"Fault", fmt.Errorf("call: %w", fault.New(fault.RateLimited, ""))},
		{"Canceled", context.Canceled},
		{"DeadlineExceeded", fmt.Errorf("agent: %w", context.DeadlineExceeded)},
		{"OSDeadline", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}},
		{"ConnRefused", refused},
		{"DNS", &net.DNSError{Err: "no such host", Name: "api.example.com", IsNotFound: true}},
		{"JSONSyntax", syntaxErr},
		{"Unknown", errors.New("boom")},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if fault.From(c.err) == nil {
					b.Fatal("nil")
				}
			}
		})
	}
}

func BenchmarkClassifyText(b *testing.B) {
	for _, text := range []string{
		"dial tcp 127.0.0.1:5432: connect: connection refused",
		"Error code: 429 - rate_limit_exceeded. Please try again in 6s.",
		"the widget frobnicated",
	} {
		b.Run(text[:12], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				fault.ClassifyText(text)
			}
		})
	}
}

func BenchmarkMarshal(b *testing.B) {
	f := fault.New(fault.RateLimited, "", fault.WithDetail("providerId", "openai"))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(f); err != nil {
			b.Fatal(err)
		}
	}
}
