package agui

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/triage-go/triage/fault"
)

// FuzzParse checks that Parse never panics, that it fails only with its
// documented errors, and that a decoded event is valid for Marshal and
// re-encodes to JSON that decodes to an equal event, byte for byte stable;
// and that a RUN_ERROR's fault follows the rules of (*RunError).Fault.
// Seeds are in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := Parse(data)
		if err != nil {
			if e != nil {
				t.Fatalf("Parse returned %#v with error %v", e, err)
			}
			if !errors.Is(err, ErrInvalidEvent) && !errors.Is(err, ErrUnknownType) && !errors.Is(err, ErrUnsupportedType) {
				t.Fatalf("undocumented error %v", err)
			}
			return
		}
		b1, err := Marshal(e)
		if err != nil {
			t.Fatalf("Marshal(Parse(%q)) = %v", data, err)
		}
		e2, err := Parse(b1)
		if err != nil {
			t.Fatalf("re-decode of %s: %v", b1, err)
		}
		if !reflect.DeepEqual(e, e2) {
			t.Fatalf("re-decoded event differs\nfirst  %#v\nsecond %#v", e, e2)
		}
		b2, err := Marshal(e2)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b1, b2) {
			t.Fatalf("encoding is not stable:\n%s\n%s", b1, b2)
		}
		if re, ok := e.(*RunError); ok {
			checkRunErrorFault(t, re)
		}
	})
}

// checkRunErrorFault checks the fault a decoded RUN_ERROR stands for: it
// exists, its delay is capped, it takes the event's message only under a
// code the table knows, and relaying it writes a valid RUN_ERROR without
// debug output.
func checkRunErrorFault(t *testing.T, re *RunError) {
	t.Helper()
	f := re.Fault()
	if f == nil || f.Code == "" {
		t.Fatalf("Fault() = %+v", f)
	}
	if f.RetryAfter < 0 || f.RetryAfter > fault.MaxRetryAfter {
		t.Fatalf("Fault() retry after %v out of range", f.RetryAfter)
	}
	if !fault.Code(re.Code).Known() && f.Message != fault.New(f.Code, "").Message {
		t.Fatalf("Fault() took the message %q from a RUN_ERROR with code %q", f.Message, re.Code)
	}
	relay := RunErrorFrom(f, nil)
	if _, err := Marshal(relay); err != nil {
		t.Fatalf("relayed RUN_ERROR: %v", err)
	}
	if _, ok := relay.Metadata["debug"]; ok {
		t.Fatal("relayed RUN_ERROR carries debug output")
	}
}
