package present

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonmember/jsonmembertest"
	"github.com/triage-go/triage/internal/testkit/golden"
)

const fixedID = "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab"

var fixedTime = time.Date(2025, 5, 20, 10, 0, 0, 0, time.UTC)

// fixed stamps events with a fixed id and time.
var fixed = &Options{
	Now:   func() time.Time { return fixedTime },
	NewID: func() string { return fixedID },
}

func TestUserErrorDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		u    UserError
		want string
	}{
		{"NewUserError", NewUserError("Something failed."), `{"message":"Something failed.","code":null,"domain":"system","retryable":false}`},
		{"ZeroValuesAreDefaults", UserError{Message: "Something failed."}, `{"message":"Something failed.","code":null,"domain":"system","retryable":false}`},
		{"AllSet", UserError{Message: "Tool down.", Code: 503, Domain: fault.DomainTool, Retryable: true}, `{"message":"Tool down.","code":503,"domain":"tool","retryable":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if b := golden.Marshal(t, tt.u); string(b) != tt.want {
				t.Errorf("Marshal = %s, want %s", b, tt.want)
			}
		})
	}
	t.Run("NewUserErrorFields", func(t *testing.T) {
		t.Parallel()
		if u := NewUserError("m"); u != (UserError{Message: "m", Domain: fault.DomainSystem}) {
			t.Errorf("NewUserError = %+v", u)
		}
	})
}

// TestUserErrorValidate checks every rule of seed 001 on data built in Go.
func TestUserErrorValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		u      UserError
		field  string // "" when valid
		reason string
	}{
		{"Valid", UserError{Message: "x"}, "", ""},
		{"EmptyMessage", UserError{}, "data.message", "is required"},
		{"BlankMessage", UserError{Message: " \t\n "}, "data.message", "is required"},
		{"EveryDomain", UserError{Message: "x", Domain: fault.DomainSecurity}, "", ""},
		{"UnknownDomain", UserError{Message: "x", Domain: "network"}, "data.domain", `unknown domain "network"; allowed: client, system, llm, tool, security`},
		{"DomainIsCaseSensitive", UserError{Message: "x", Domain: "SYSTEM"}, "data.domain", "unknown domain"},
		{"CodeLow", UserError{Message: "x", Code: 100}, "", ""},
		{"CodeHigh", UserError{Message: "x", Code: 599}, "", ""},
		{"CodeBelowRange", UserError{Message: "x", Code: 99}, "data.code", "99 is not a status code (100-599)"},
		{"CodeAboveRange", UserError{Message: "x", Code: 600}, "data.code", "600 is not a status code"},
		{"CodeNegative", UserError{Message: "x", Code: -1}, "data.code", "not a status code"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.u.Validate()
			if tt.field == "" && tt.reason == "" {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				return
			}
			jsonmembertest.WantInvalid(t, err, tt.field, tt.reason)
			if _, err := json.Marshal(tt.u); err == nil {
				t.Error("Marshal accepted invalid data")
			}
			if _, err := NewUserErrorEvent(tt.u, fixed); err == nil {
				t.Error("NewUserErrorEvent accepted invalid data")
			}
		})
	}
}

func TestParseUserError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want UserError
	}{
		{"Defaults", `{"message":"x"}`, UserError{Message: "x", Domain: fault.DomainSystem}},
		{"NullsAreDefaults", `{"message":"x","code":null,"domain":null,"retryable":null}`, UserError{Message: "x", Domain: fault.DomainSystem}},
		{"Seed001", `{"message":"The search tool is currently unavailable. Please try again later.","code":503,"domain":"tool","retryable":true}`,
			UserError{Message: "The search tool is currently unavailable. Please try again later.", Code: 503, Domain: fault.DomainTool, Retryable: true}},
		{"IntegralFloatCode", `{"message":"x","code":429.0}`, UserError{Message: "x", Code: 429, Domain: fault.DomainSystem}},
		{"UnknownMembersIgnored", `{"message":"x","icon":"warning"}`, UserError{Message: "x", Domain: fault.DomainSystem}},
		{"MessageKeptAsIs", `{"message":"  padded  "}`, UserError{Message: "  padded  ", Domain: fault.DomainSystem}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseUserError([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if *got != tt.want {
				t.Errorf("ParseUserError = %+v, want %+v", *got, tt.want)
			}
		})
	}
}

func TestParseUserErrorInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     string
		field  string
		reason string
	}{
		{"NotJSON", `{"message":`, "data", "invalid JSON"},
		{"NotObject", `"oops"`, "data", "must be an object, got string"},
		{"Null", `null`, "data", "must be an object, got null"},
		{"MissingMessage", `{"code":400}`, "data.message", "is required"},
		{"EmptyMessage", `{"message":""}`, "data.message", "is required"},
		{"BlankMessage", `{"message":"   "}`, "data.message", "is required"},
		{"MessageNotString", `{"message":42}`, "data.message", "must be a string, got number"},
		{"MessageNull", `{"message":null}`, "data.message", "must be a string, got null"},
		{"CodeString", `{"message":"x","code":"429"}`, "data.code", "must be an integer, got string"},
		{"CodeFraction", `{"message":"x","code":429.5}`, "data.code", "must be an integer"},
		{"CodeZero", `{"message":"x","code":0}`, "data.code", "0 is not a status code (100-599)"},
		{"CodeTooHigh", `{"message":"x","code":600}`, "data.code", "600 is not a status code"},
		{"CodeHuge", `{"message":"x","code":1e20}`, "data.code", "out of range"},
		{"DomainUnknown", `{"message":"x","domain":"network"}`, "data.domain", `unknown domain "network"; allowed: client, system, llm, tool, security`},
		{"DomainEmpty", `{"message":"x","domain":""}`, "data.domain", `unknown domain ""`},
		{"DomainUppercase", `{"message":"x","domain":"LLM"}`, "data.domain", `unknown domain "LLM"`},
		{"DomainNotString", `{"message":"x","domain":1}`, "data.domain", "must be a string, got number"},
		{"RetryableString", `{"message":"x","retryable":"true"}`, "data.retryable", "must be a boolean, got string"},
		{"RetryAfterString", `{"message":"x","retry_after":"30"}`, "data.retry_after", "must be a number, got string"},
		{"RetryAfterNegative", `{"message":"x","retry_after":-1}`, "data.retry_after", "-1 seconds is negative"},
		{"NamesMatchExactly", `{"Message":"x"}`, "data.message", "is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseUserError([]byte(tt.in))
			if got != nil {
				t.Errorf("ParseUserError = %+v, want nil", got)
			}
			jsonmembertest.WantInvalid(t, err, tt.field, tt.reason)
		})
	}
}

func TestNewUserErrorEvent(t *testing.T) {
	t.Parallel()
	ev, err := NewUserErrorEvent(UserError{Message: "The search tool is unavailable.", Domain: fault.DomainTool}, fixed)
	if err != nil {
		t.Fatal(err)
	}
	want := &Event{ID: fixedID, Timestamp: fixedTime, Type: TypeUserError,
		UserError: &UserError{Message: "The search tool is unavailable.", Domain: fault.DomainTool}}
	if !reflect.DeepEqual(ev, want) {
		t.Errorf("event = %+v, want %+v", ev, want)
	}
	wantJSON := `{"id":"6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab","timestamp":"2025-05-20T10:00:00Z","type":"user_error",` +
		`"data":{"message":"The search tool is unavailable.","code":null,"domain":"tool","retryable":false}}`
	if b := golden.Marshal(t, ev); string(b) != wantJSON {
		t.Errorf("Marshal = %s\nwant %s", b, wantJSON)
	}

	t.Run("DefaultDomainStored", func(t *testing.T) {
		t.Parallel()
		ev, err := NewUserErrorEvent(UserError{Message: "x"}, fixed)
		if err != nil || ev.UserError.Domain != fault.DomainSystem {
			t.Errorf("event = %+v, %v", ev, err)
		}
	})
	t.Run("TimestampInUTC", func(t *testing.T) {
		t.Parallel()
		opts := &Options{Now: func() time.Time { return time.Date(2025, 5, 20, 12, 0, 0, 5e6, time.FixedZone("CEST", 2*3600)) }, NewID: fixed.NewID}
		ev, err := NewUserErrorEvent(UserError{Message: "x"}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if b := golden.Marshal(t, ev); !strings.Contains(string(b), `"timestamp":"2025-05-20T10:00:00.005Z"`) {
			t.Errorf("Marshal = %s", b)
		}
	})
	t.Run("IDMustBeUUID", func(t *testing.T) {
		t.Parallel()
		opts := &Options{Now: fixed.Now, NewID: func() string { return "evt-1" }}
		_, err := NewUserErrorEvent(UserError{Message: "x"}, opts)
		jsonmembertest.WantInvalid(t, err, "id", `must be a UUID, got "evt-1"`)
	})
	t.Run("DefaultOptions", func(t *testing.T) {
		t.Parallel()
		before := time.Now().Add(-time.Second)
		ev, err := NewUserErrorEvent(UserError{Message: "x"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !isUUIDv4(ev.ID) {
			t.Errorf("id %q is not a version 4 UUID", ev.ID)
		}
		if ev.Timestamp.Before(before) || ev.Timestamp.After(time.Now()) || ev.Timestamp.Location() != time.UTC ||
			ev.Timestamp.Nanosecond()%int(time.Millisecond) != 0 {
			t.Errorf("timestamp %v is not now, in UTC, in milliseconds", ev.Timestamp)
		}
		if ev2, _ := NewUserErrorEvent(UserError{Message: "x"}, &Options{}); ev2.ID == ev.ID {
			t.Error("two events have the same id")
		}
	})
}

func isUUIDv4(s string) bool {
	return isUUID(s) && s == strings.ToLower(s) && s[14] == '4' && strings.ContainsRune("89ab", rune(s[19]))
}

// TestDefaultID checks the default id source of a nil *Options: random,
// lowercase, version 4 UUIDs.
func TestDefaultID(t *testing.T) {
	t.Parallel()
	var opts *Options
	seen := make(map[string]bool)
	for range 1000 {
		id := opts.newID()
		if !isUUIDv4(id) {
			t.Fatalf("default id %q is not a lowercase version 4 UUID", id)
		}
		if seen[id] {
			t.Fatalf("default id repeated %q", id)
		}
		seen[id] = true
	}
}

func TestIsUUID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{"6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab", true},
		{"6F1C2D3E-4B5A-4C6D-8E7F-0123456789AB", true},
		{"00000000-0000-0000-0000-000000000000", true},
		{"6f1c2d3e4b5a4c6d8e7f0123456789ab", false},
		{"6f1c2d3e-4b5a-4c6d-8e7f-0123456789a", false},
		{"6f1c2d3e-4b5a-4c6d-8e7f-0123456789abc", false},
		{"6f1c2d3e_4b5a-4c6d-8e7f-0123456789ab", false},
		{"6f1c2d3e-4b5a-4c6d-8e7f-0123456789ag", false},
		{"{6f1c2d3e-4b5a-4c6d-8e7f-0123456789a}", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := isUUID(tt.in); got != tt.want {
			t.Errorf("isUUID(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseEvent(t *testing.T) {
	t.Parallel()
	const id = `"id":"6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab"`
	tests := []struct {
		name string
		in   string
		want Event
	}{
		{"UserError", `{` + id + `,"timestamp":"2025-05-20T10:00:00Z","type":"user_error","data":{"message":"x","code":503,"domain":"tool","retryable":true}}`,
			Event{ID: fixedID, Timestamp: fixedTime, Type: TypeUserError, UserError: &UserError{Message: "x", Code: 503, Domain: fault.DomainTool, Retryable: true}}},
		{"OffsetToUTC", `{` + id + `,"timestamp":"2025-05-20T12:00:00+02:00","type":"user_error","data":{"message":"x"}}`,
			Event{ID: fixedID, Timestamp: fixedTime, Type: TypeUserError, UserError: &UserError{Message: "x", Domain: fault.DomainSystem}}},
		{"NaiveIsUTC", `{` + id + `,"timestamp":"2025-05-20T10:00:00.250","type":"user_error","data":{"message":"x"}}`,
			Event{ID: fixedID, Timestamp: fixedTime.Add(250 * time.Millisecond), Type: TypeUserError, UserError: &UserError{Message: "x", Domain: fault.DomainSystem}}},
		{"OtherTypeKeptRaw", `{` + id + `,"timestamp":"2025-05-20T10:00:00Z","type":"markdown_block","data": {"content": "## Analysis"} }`,
			Event{ID: fixedID, Timestamp: fixedTime, Type: "markdown_block", Data: json.RawMessage(`{"content":"## Analysis"}`)}},
		{"OtherTypeAnyData", `{` + id + `,"timestamp":"2025-05-20T10:00:00Z","type":"thought_trace","data":["step 1"]}`,
			Event{ID: fixedID, Timestamp: fixedTime, Type: "thought_trace", Data: json.RawMessage(`["step 1"]`)}},
		{"UnknownType", `{` + id + `,"timestamp":"2025-05-20T10:00:00Z","type":"hologram","data":null}`,
			Event{ID: fixedID, Timestamp: fixedTime, Type: "hologram", Data: json.RawMessage(`null`)}},
		{"UnknownMembersIgnored", `{` + id + `,"timestamp":"2025-05-20T10:00:00Z","type":"user_error","data":{"message":"x"},"run_id":"r1"}`,
			Event{ID: fixedID, Timestamp: fixedTime, Type: TypeUserError, UserError: &UserError{Message: "x", Domain: fault.DomainSystem}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseEvent([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !sameEvent(got, &tt.want) {
				t.Errorf("ParseEvent = %+v, want %+v", got, tt.want)
			}
			// It goes out again as it came, in UTC.
			again, err := ParseEvent(golden.Marshal(t, got))
			if err != nil || !sameEvent(again, got) {
				t.Errorf("round trip = %+v, %v", again, err)
			}
		})
	}
}

func TestParseEventInvalid(t *testing.T) {
	t.Parallel()
	const id = `"id":"6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab"`
	const ts = `"timestamp":"2025-05-20T10:00:00Z"`
	tests := []struct {
		name   string
		in     string
		field  string
		reason string
	}{
		{"NotJSON", `{`, "", "invalid JSON"},
		{"NotObject", `[]`, "", "must be an object, got array"},
		{"MissingID", `{` + ts + `,"type":"user_error","data":{"message":"x"}}`, "id", "is required"},
		{"IDNotString", `{"id":1,` + ts + `,"type":"user_error","data":{"message":"x"}}`, "id", "must be a string, got number"},
		{"IDNotUUID", `{"id":"evt-1",` + ts + `,"type":"user_error","data":{"message":"x"}}`, "id", `must be a UUID, got "evt-1"`},
		{"MissingTimestamp", `{` + id + `,"type":"user_error","data":{"message":"x"}}`, "timestamp", "is required"},
		{"TimestampNumber", `{` + id + `,"timestamp":1716199200000,"type":"user_error","data":{"message":"x"}}`, "timestamp", "must be a string, got number"},
		{"TimestampNotDate", `{` + id + `,"timestamp":"yesterday","type":"user_error","data":{"message":"x"}}`, "timestamp", "must be an RFC 3339 date-time"},
		{"TimestampDateOnly", `{` + id + `,"timestamp":"2025-05-20","type":"user_error","data":{"message":"x"}}`, "timestamp", "must be an RFC 3339 date-time"},
		{"TimestampZero", `{` + id + `,"timestamp":"0001-01-01T00:00:00Z","type":"user_error","data":{"message":"x"}}`, "timestamp", "is required"},
		{"TimestampYearOverflow", `{` + id + `,"timestamp":"9999-12-31T23:30:00-01:00","type":"user_error","data":{"message":"x"}}`, "timestamp", "year 10000 out of range"},
		{"MissingType", `{` + id + `,` + ts + `,"data":{"message":"x"}}`, "type", "is required"},
		{"EmptyType", `{` + id + `,` + ts + `,"type":"","data":{}}`, "type", "is required"},
		{"TypeNotString", `{` + id + `,` + ts + `,"type":["user_error"],"data":{}}`, "type", "must be a string, got array"},
		{"MissingData", `{` + id + `,` + ts + `,"type":"markdown_block"}`, "data", "is required"},
		{"UserErrorDataNotObject", `{` + id + `,` + ts + `,"type":"user_error","data":"boom"}`, "data", "must be an object, got string"},
		{"UserErrorNoMessage", `{` + id + `,` + ts + `,"type":"user_error","data":{}}`, "data.message", "is required"},
		{"UserErrorBadDomain", `{` + id + `,` + ts + `,"type":"user_error","data":{"message":"x","domain":"moon"}}`, "data.domain", "allowed: client, system, llm, tool, security"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseEvent([]byte(tt.in))
			if got != nil {
				t.Errorf("ParseEvent = %+v, want nil", got)
			}
			jsonmembertest.WantInvalid(t, err, tt.field, tt.reason)
		})
	}
}

func TestEventValidate(t *testing.T) {
	t.Parallel()
	ok := UserError{Message: "x"}
	tests := []struct {
		name   string
		ev     Event
		field  string
		reason string
	}{
		{"NoID", Event{Timestamp: fixedTime, Type: TypeUserError, UserError: &ok}, "id", "must be a UUID"},
		{"NoTimestamp", Event{ID: fixedID, Type: TypeUserError, UserError: &ok}, "timestamp", "is required"},
		{"NoType", Event{ID: fixedID, Timestamp: fixedTime, Data: json.RawMessage(`{}`)}, "type", "is required"},
		{"UserErrorWithoutData", Event{ID: fixedID, Timestamp: fixedTime, Type: TypeUserError}, "data", "is required"},
		{"UserErrorWithRawData", Event{ID: fixedID, Timestamp: fixedTime, Type: TypeUserError, UserError: &ok, Data: json.RawMessage(`{}`)}, "data", "not Data"},
		{"UserErrorInvalid", Event{ID: fixedID, Timestamp: fixedTime, Type: TypeUserError, UserError: &UserError{}}, "data.message", "is required"},
		{"OtherTypeWithUserError", Event{ID: fixedID, Timestamp: fixedTime, Type: "markdown_block", UserError: &ok}, "type", "only a user_error event"},
		{"OtherTypeWithoutData", Event{ID: fixedID, Timestamp: fixedTime, Type: "markdown_block"}, "data", "is required"},
		{"OtherTypeInvalidData", Event{ID: fixedID, Timestamp: fixedTime, Type: "markdown_block", Data: json.RawMessage(`{`)}, "data", "invalid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			jsonmembertest.WantInvalid(t, tt.ev.Validate(), tt.field, tt.reason)
			if b, err := json.Marshal(tt.ev); err == nil {
				t.Errorf("Marshal = %s, want an error", b)
			}
		})
	}
}

// TestSeed001Example reads seed 001's example event (with an id and a
// timestamp in place of its "...") and writes it back unchanged.
func TestSeed001Example(t *testing.T) {
	t.Parallel()
	in := `{
  "id": "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab",
  "timestamp": "2025-05-20T10:00:00Z",
  "type": "user_error",
  "data": {
    "message": "The search tool is currently unavailable. Please try again later.",
    "code": 503,
    "domain": "tool",
    "retryable": true
  }
}`
	ev, err := ParseEvent([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if u := ev.UserError; u.Code != 503 || u.Domain != fault.DomainTool || !u.Retryable {
		t.Errorf("data = %+v", u)
	}
	if b := golden.Indent(t, ev); string(b) != in+"\n" {
		t.Errorf("Marshal =\n%s\nwant\n%s", b, in)
	}
}

// sameEvent compares events as values: the same instant, the same data.
func sameEvent(a, b *Event) bool {
	if a.ID != b.ID || !a.Timestamp.Equal(b.Timestamp) || a.Timestamp.Location() != b.Timestamp.Location() || a.Type != b.Type {
		return false
	}
	if (a.UserError == nil) != (b.UserError == nil) || (a.UserError != nil && *a.UserError != *b.UserError) {
		return false
	}
	return golden.SameJSON(a.Data, b.Data)
}
