package jsonmembertest

import (
	"errors"
	"strings"
	"testing"

	"github.com/triage-go/triage/internal/jsonmember"
)

// WantInvalid checks that err is a *jsonmember.ValidationError whose first
// member is field ("" for the document itself, which the error lists as
// "(root)") and whose text contains reason.
func WantInvalid(t testing.TB, err error, field, reason string) {
	t.Helper()
	var ve *jsonmember.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error = %v (%T), want a *ValidationError", err, err)
	}
	if field == "" {
		field = "(root)"
	}
	if len(ve.Fields) == 0 || ve.Fields[0].Field != field {
		t.Errorf("Fields = %q, want %q first (error: %v)", ve.Fields, field, err)
	}
	if !strings.Contains(ve.Error(), reason) {
		t.Errorf("error %q does not say %q", ve.Error(), reason)
	}
}

// NilOrInvalid checks that err is nil or a *jsonmember.ValidationError, the
// only error a decoder may return, and stops the test otherwise.
func NilOrInvalid(t testing.TB, err error) {
	t.Helper()
	var ve *jsonmember.ValidationError
	if err != nil && !errors.As(err, &ve) {
		t.Fatalf("error %v is a %T, not a *ValidationError", err, err)
	}
}
