package client

import (
	"strings"

	"github.com/google/uuid"
)

// maxIdempotencyKey bounds the length of an Idempotency-Key.
const maxIdempotencyKey = 255

// ReportOptions are the knobs of one Report. A nil *ReportOptions is the
// zero ReportOptions: the defaults.
type ReportOptions struct {
	// IdempotencyKey is sent as the Idempotency-Key instead of a new
	// random one. Set it when the caller retries a report itself (after a
	// restart, from a queue): every try with the same key is the same
	// request to the service, recorded once. The key must be 1 to 255
	// printable ASCII characters without spaces, quotes or backslashes;
	// Report fails with INVALID_REQUEST otherwise. NewIdempotencyKey makes
	// a good one. Defaults to a new random key for each Report.
	IdempotencyKey string
}

// NewIdempotencyKey returns a new random key: a version 4 UUID
// ("0b5f8c1e-7a43-4d2b-9f6e-3c1a2b4d5e6f"), 122 random bits from
// crypto/rand.
func NewIdempotencyKey() string { return uuid.NewString() }

// validIdempotencyKey reports whether key can be sent as it is: the service
// reads the header as a structured-field string or a bare token, so quotes
// and backslashes are out.
func validIdempotencyKey(key string) bool {
	return len(key) <= maxIdempotencyKey && validToken(key) && !strings.ContainsAny(key, `"\`)
}
