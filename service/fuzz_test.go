package service_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/service"
)

// contentTypeSecret is a secret the process knows (fault.RegisterSecret),
// which a 415's details must not repeat.
const contentTypeSecret = "ct-secret-4f1c2a9e7b"

// FuzzContentType: a request's Content-Type is JSON (application/json or
// +json, or none) or a 415 INVALID_REQUEST whose details hold the type
// redacted, never the secret.
func FuzzContentType(f *testing.F) {
	fault.RegisterSecret(contentTypeSecret)
	f.Fuzz(func(t *testing.T, ct string) {
		err := service.CheckContentType(ct)
		if err == nil {
			return
		}
		fe, ok := fault.As(err)
		if !ok || fe.Code != fault.InvalidRequest || fe.HTTPStatus() != http.StatusUnsupportedMediaType {
			t.Fatalf("%q: %v", ct, err)
		}
		doc, jerr := json.Marshal(fe.Payload(true))
		if jerr != nil || strings.Contains(string(doc), contentTypeSecret) || strings.Contains(fe.Error(), contentTypeSecret) {
			t.Fatalf("%q: %s (%v)", ct, doc, jerr)
		}
	})
}
