package resilience_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/resilience"
)

func ExampleDo() {
	policy := resilience.New(resilience.Config{BaseDelay: time.Millisecond})

	calls := 0
	answer, err := resilience.Do(context.Background(), policy,
		resilience.Operation{Source: "search-tool", Idempotent: true},
		func(ctx context.Context) (string, error) {
			calls++
			if calls < 3 {
				return "", fault.New(fault.ServiceUnavailable, "", fault.WithRetryAfter(10*time.Millisecond))
			}
			return "42 results", nil
		})
	fmt.Println(answer, err, calls)
	// Output: 42 results <nil> 3
}

// A failure that is not retryable comes back at once, unchanged; when
// retries run out, the last fault comes back with the attempt count.
func ExampleDo_failures() {
	policy := resilience.New(resilience.Config{BaseDelay: time.Millisecond})
	op := resilience.Operation{Source: "upstream", Idempotent: true}

	bad := errors.New("unknown field: colour")
	_, err := resilience.Do(context.Background(), policy, op, func(context.Context) (int, error) { return 0, bad })
	fmt.Println(err == bad)

	_, err = resilience.Do(context.Background(), policy, op, func(context.Context) (int, error) {
		return 0, fault.New(fault.Timeout, "")
	})
	f, _ := fault.As(err)
	fmt.Println(f.Code, f.Details["attempts"])
	// Output:
	// true
	// TIMEOUT 3
}

// A retry whose wait would pass the deadline is not made: the fault comes
// back at once, with the delay the upstream asked for.
func ExampleDo_deadline() {
	policy := resilience.New(resilience.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := resilience.Do(ctx, policy, resilience.Operation{Source: "openai", Idempotent: true},
		func(context.Context) (string, error) {
			return "", fault.New(fault.RateLimited, "", fault.WithRetryAfter(time.Minute))
		})
	f, _ := fault.As(err)
	fmt.Println(f.Code, f.RetryAfter, f.Details["gave_up"])
	// Output: RATE_LIMITED 1m0s deadline
}

func ExampleShouldRetry() {
	for _, f := range []*fault.Error{
		fault.FromStatus(429, nil, time.Now()),
		fault.FromStatus(500, nil, time.Now()),
		fault.New(fault.Timeout, ""),
		fault.New(fault.InvalidRequest, ""),
	} {
		fmt.Printf("%-20s idempotent=%v non-idempotent=%v\n", f.Code,
			resilience.ShouldRetry(f, true), resilience.ShouldRetry(f, false))
	}
	// Output:
	// RATE_LIMITED         idempotent=true non-idempotent=true
	// UPSTREAM_ERROR       idempotent=true non-idempotent=false
	// TIMEOUT              idempotent=true non-idempotent=false
	// INVALID_REQUEST      idempotent=false non-idempotent=false
}

func ExampleTransport() {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == 1 {
			w.Header().Set("Retry-After-Ms", "20")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "hello")
	}))
	defer srv.Close()

	client := &http.Client{Transport: &resilience.Transport{Policy: resilience.New(resilience.Config{})}}
	resp, err := client.Get(srv.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(body), requests.Load())
	// Output: 200 hello 2
}
