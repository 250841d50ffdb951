package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/client"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/resilience"
)

// fuzzKey is the client's API key in FuzzResponse: shorter than the 8
// bytes fault.Redact knows secrets from, so only the client's own scrub
// keeps it out of its errors.
const fuzzKey = "Zq7#kX"

// FuzzResponse answers Report and Get with any status, Content-Type,
// Retry-After and body, as a service, a proxy or anything between may.
// The client returns feedback with an error_id (Report) or a JSON object
// (Get) for a success status, and otherwise a *fault.Error that does not
// hold the API key anywhere: its message, JSON with debug output, or log
// value. Seeds: testdata/fuzz/FuzzResponse.
func FuzzResponse(f *testing.F) {
	var resp struct {
		status            int
		contentType, wait string
		body              []byte
	}
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		h := http.Header{}
		if resp.contentType != "" {
			h.Set("Content-Type", resp.contentType)
		}
		if resp.wait != "" {
			h.Set("Retry-After", resp.wait)
		}
		return &http.Response{StatusCode: resp.status, Header: h, Body: io.NopCloser(bytes.NewReader(resp.body)), Request: r}, nil
	})}
	c, err := client.New("https://triage.example", client.Config{APIKey: fuzzKey, HTTPClient: hc,
		Resilience: resilience.Config{MaxAttempts: 1, DisableBreaker: true}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, get bool, status int, contentType, wait string, body []byte) {
		resp.status, resp.contentType, resp.wait, resp.body = 100+(status%500+500)%500, contentType, wait, body
		var err error
		if get {
			var rec *triage.Record
			rec, err = c.Get(context.Background(), "err_1")
			if err == nil && (resp.status != http.StatusOK || rec == nil || !json.Valid(body) || bytes.TrimSpace(body)[0] != '{') {
				t.Fatalf("status %d: Get returned %+v for %q", resp.status, rec, body)
			}
		} else {
			fb, rerr := c.Report(context.Background(), testReport(), nil)
			err = rerr
			if err == nil && ((resp.status != http.StatusCreated && resp.status != http.StatusOK) || fb.ErrorID == "") {
				t.Fatalf("status %d: Report returned %+v", resp.status, fb)
			}
		}
		if err == nil {
			return
		}
		var fe *fault.Error
		if !errors.As(err, &fe) {
			t.Fatalf("not a *fault.Error: %T %v", err, err)
		}
		doc, jerr := json.Marshal(fe.Payload(true))
		if jerr != nil {
			t.Fatalf("the fault does not encode: %v", jerr)
		}
		var logs strings.Builder
		slog.New(slog.NewJSONHandler(&logs, nil)).Error("x", "fault", fe)
		for what, text := range map[string]string{"Error": fe.Error(), "payload": string(doc), "log": logs.String()} {
			if strings.Contains(text, fuzzKey) {
				t.Fatalf("the API key is in the fault's %s: %s", what, text)
			}
		}
	})
}
