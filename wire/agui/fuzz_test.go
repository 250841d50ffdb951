package agui

import (
	"bytes"
	"encoding/json"
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

// FuzzParseRunAgentInput checks that ParseRunAgentInput never panics, that
// it fails only with a *ValidationError naming at least one member, and
// that an input it reads encodes to JSON that reads back as an equal
// input, byte for byte stable. Seeds are in
// testdata/fuzz/FuzzParseRunAgentInput.
func FuzzParseRunAgentInput(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := ParseRunAgentInput(data)
		if err != nil {
			var ve *ValidationError
			if in != nil || !errors.As(err, &ve) || !errors.Is(err, ErrInvalidInput) || len(ve.Fields) == 0 {
				t.Fatalf("ParseRunAgentInput = %#v, %v", in, err)
			}
			for _, fe := range ve.Fields {
				if fe.Field == "" || fe.Message == "" {
					t.Fatalf("field error %+v", fe)
				}
			}
			return
		}
		_ = in.LastUserText()
		b1, err := json.Marshal(in)
		if err != nil {
			t.Fatalf("json.Marshal(ParseRunAgentInput(%q)) = %v", data, err)
		}
		in2, err := ParseRunAgentInput(b1)
		if err != nil {
			t.Fatalf("re-read of %s: %v", b1, err)
		}
		if !reflect.DeepEqual(in, in2) {
			t.Fatalf("re-read input differs\nfirst  %#v\nsecond %#v", in, in2)
		}
		b2, err := json.Marshal(in2)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b1, b2) {
			t.Fatalf("encoding is not stable:\n%s\n%s", b1, b2)
		}
		// An input RUN_STARTED echoes is valid for it.
		if _, err := Marshal(&RunStarted{ThreadID: in.ThreadID, RunID: in.RunID, Input: in}); err != nil {
			t.Fatalf("RUN_STARTED echoing the input: %v", err)
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
