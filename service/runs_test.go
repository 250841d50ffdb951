package service

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
)

// A fault too large for the record keeps its code and facets; no record
// holds debug output or the cause's text.
func TestRunFaultBounded(t *testing.T) {
	f := fault.New(fault.UpstreamError, strings.Repeat("m", 3*store.MaxRunFaultBytes), fault.WithRetryAfter(3*time.Second))
	for i := range 40 {
		f.Details = mapWith(f.Details, fmt.Sprint("blob", i), strings.Repeat("d", 1000))
		f.FieldErrors = append(f.FieldErrors, fault.FieldError{Field: fmt.Sprint("f", i), Message: strings.Repeat("e", 500)})
	}
	doc := RunFault(f)
	var p fault.Payload
	if err := json.Unmarshal(doc, &p); err != nil || len(doc) > store.MaxRunFaultBytes {
		t.Fatalf("%d bytes: %v", len(doc), err)
	}
	if p.Code != fault.UpstreamError || p.RetryAfter != 3 || p.Details["blob0"] != nil || p.Details["omitted"] == nil ||
		len(p.Errors) != 0 || !strings.HasPrefix(p.Message, "mmm") {
		t.Errorf("bounded fault %.300s", doc)
	}

	small := fault.Wrap(errors.New("dial tcp 10.0.0.7:5432: secret-cause"), fault.RateLimited, "slow down", fault.WithDetail("node", "echo"))
	small.Debug = fault.Debug{ErrorType: "*net.OpError", Cause: "secret-cause", Extra: map[string]any{"k": "v"}}
	got := RunFault(small)
	want, err := json.Marshal(small)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) || bytes.Contains(got, []byte("secret-cause")) || bytes.Contains(got, []byte("debug")) {
		t.Errorf("a small fault %s, want its JSON without debug output", got)
	}
}

func mapWith(m map[string]any, k string, v any) map[string]any {
	if m == nil {
		m = map[string]any{}
	}
	m[k] = v
	return m
}
