package store

import (
	"context"
	"errors"
	"time"

	"github.com/triage-go/triage/fault"
)

// Unavailable is the fault of a store's failure as a client is told it:
// the storage is unavailable, SERVICE_UNAVAILABLE, worth a retry in a
// second (nothing was committed, so a retry is handled anew). A cancelled
// or expired context, or a fault the store gave itself, stays what it is;
// nil stays nil.
func Unavailable(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := fault.As(err); ok || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fault.Wrap(err, fault.ServiceUnavailable, "Storage is unavailable; please retry shortly.",
		fault.WithRetryAfter(time.Second))
}
