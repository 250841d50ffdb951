package triage

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
)

func TestNormalizeMessage(t *testing.T) {
	cases := map[string]string{
		"":                                      "",
		"no digits at all":                      "no digits at all",
		"5mb and 0xC0FFEE":                      "<num>mb and <hex>",
		"12ab and 123xyz and v2 and q_456":      "<hex> and <num>xyz and v2 and q_456",
		"at 2025-08-08T12:20:05Zabc":            "at <num>-<num>-<num>:<num>:<num>Zabc",
		"at 2025-08-08T12:20:05+0200, then":     "at <timestamp>, then",
		"10.0.0.1:5432x":                        "<ip>:<num>x",
		"1.2.3 ratio":                           "<num> ratio",
		"3f2b8c1e-9a4d-4f6e-8b2a-1c3d5e7f9a0bq": "<hex>-<hex>-<hex>-<hex>-<num>",
		"Query timed out after 30s":             "Query timed out after <num>s",
		"scanned 2.5GB in 1500ms":               "scanned <num>GB in <num>ms",
		"Query timed out after 30 seconds":      "Query timed out after <num> seconds",
		"row 1,234,567 of 48000000":             "row <num> of <num>",
		"request 3f2b8c1e-9a4d-4f6e-8b2a-1c3d5e7f9a0b failed":   "request <uuid> failed",
		"at 2025-08-08T12:20:05Z the job failed":                "at <timestamp> the job failed",
		"on 2025-08-08 12:20:05.123+02:00":                      "on <timestamp>",
		"since 2025-08-08":                                      "since <timestamp>",
		"at 12:20:05 today":                                     "at <time> today",
		"dial tcp 10.0.3.7:5432: connect: connection refused":   "dial tcp <ip>: connect: connection refused",
		"object 0xc000123abc and digest 9f86d081884c7d65 moved": "object <hex> and digest <hex> moved",
		"  spaced \t\n  out  ":                                  "spaced out",
		"field product_id not found":                            "field product_id not found",
	}
	for in, want := range cases {
		if got := NormalizeMessage(in); got != want {
			t.Errorf("NormalizeMessage(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFingerprint(t *testing.T) {
	base := func() *Report {
		return &Report{AgentID: "query_engine", Timestamp: time.Date(2025, 8, 8, 12, 20, 5, 0, time.UTC), Status: "error",
			Data: Data{ErrorType: QueryError, ErrorCode: "DB_TIMEOUT", Message: "Query 17 timed out after 30000 ms", QueryID: "q_456"}}
	}
	fp := Fingerprint(base())
	if !strings.HasPrefix(fp, FingerprintVersion+":") || len(fp) != len(FingerprintVersion)+1+64 {
		t.Fatalf("fingerprint %q", fp)
	}
	if id := ErrorID(fp); !strings.HasPrefix(id, "err_") || len(id) != 20 {
		t.Fatalf("error id %q", id)
	}
	same := []func(r *Report){
		func(r *Report) { r.Data.Message = "Query 18 timed out after 29000 ms" },
		func(r *Report) { r.Timestamp = r.Timestamp.Add(time.Hour) },
		func(r *Report) { r.Data.Context = map[string]any{"row_count": 1} },
	}
	for i, edit := range same {
		r := base()
		edit(r)
		if got := Fingerprint(r); got != fp {
			t.Errorf("same error %d: fingerprint changed", i)
		}
	}
	different := map[string]func(r *Report){
		"agent":   func(r *Report) { r.AgentID = "viz_agent" },
		"type":    func(r *Report) { r.Data.ErrorType = SystemError },
		"code":    func(r *Report) { r.Data.ErrorCode = "QUERY_TIMEOUT" },
		"query":   func(r *Report) { r.Data.QueryID = "q_457" },
		"message": func(r *Report) { r.Data.Message = "Query 17 was cancelled" },
	}
	for name, edit := range different {
		r := base()
		edit(r)
		if got := Fingerprint(r); got == fp {
			t.Errorf("a different %s gives the same fingerprint", name)
		}
	}
	// Parts are delimited: moving text from one field to the next changes
	// the fingerprint.
	a, b := base(), base()
	a.AgentID, a.Data.ErrorCode = "ab", "C"
	b.AgentID, b.Data.ErrorCode = "a", "bC"
	if Fingerprint(a) == Fingerprint(b) {
		t.Error("fields are not delimited in the fingerprint")
	}
}

// FuzzNormalizeMessage checks the normalizer's properties on any text: it
// never panics; it is idempotent; no word it returns begins with a digit;
// and changing the digits (keeping 0 as it is, which 0x needs) changes
// nothing, since every digit is part of a placeholder or of a word that
// begins with a letter.
// TestFingerprintUnchanged: the fingerprint is the SHA-256 of the parts,
// each followed by a zero byte, as it was first written (with a hash.Hash),
// short parts or long: stored fingerprints and error ids stay valid.
func TestFingerprintUnchanged(t *testing.T) {
	for _, r := range []*Report{
		{},
		{AgentID: "query_engine", Data: Data{ErrorType: QueryError, ErrorCode: "DB_TIMEOUT", QueryID: "q_456", Message: "Query timed out after 30s"}},
		{AgentID: strings.Repeat("a", 200), Data: Data{ErrorType: QueryError, QueryID: strings.Repeat("q", 120),
			Message: strings.Repeat("long message 42 ", 40), Fault: &fault.Error{Code: fault.Timeout}}},
	} {
		h := sha256.New()
		faultCode := ""
		if r.Data.Fault != nil {
			faultCode = string(r.Data.Fault.Code)
		}
		for _, part := range []string{FingerprintVersion, r.AgentID, string(r.Data.ErrorType), r.Data.ErrorCode,
			faultCode, r.Data.QueryID, NormalizeMessage(r.Data.Message)} {
			h.Write([]byte(part))
			h.Write([]byte{0})
		}
		if got, want := Fingerprint(r), FingerprintVersion+":"+hex.EncodeToString(h.Sum(nil)); got != want {
			t.Errorf("Fingerprint = %s, want %s", got, want)
		}
	}
}

func FuzzNormalizeMessage(f *testing.F) {
	f.Add("Query 17 timed out after 30s at 2025-08-08T12:20:05Z from 10.0.0.1:5432")
	f.Add("id 3f2b8c1e-9a4d-4f6e-8b2a-1c3d5e7f9a0b 0xdeadbeef 1,234.5 12:30:01.5 v2")
	f.Fuzz(func(t *testing.T, msg string) {
		got := NormalizeMessage(msg)
		if want := normalizeMessageBuilder(msg); got != want {
			t.Fatalf("NormalizeMessage(%q) = %q, but as first written %q", msg, got, want)
		}
		if app := string(appendNormalized([]byte("x\x00"), msg)); app != "x\x00"+got {
			t.Fatalf("appendNormalized(%q) appends %q, NormalizeMessage gives %q", msg, app[2:], got)
		}
		if again := NormalizeMessage(got); again != got {
			t.Fatalf("not idempotent: %q → %q → %q", msg, got, again)
		}
		for i := 0; i < len(got); i++ {
			if isDigit(got[i]) && (i == 0 || !isWord(got[i-1])) {
				t.Fatalf("%q → %q: a word begins with a digit at %d", msg, got, i)
			}
		}
		// Shift the digits outside words that begin with a letter or '_'.
		b := []byte(msg)
		for i := 0; i < len(b); i++ {
			if isWord(b[i]) && (i == 0 || !isWord(b[i-1])) && !isDigit(b[i]) {
				i = wordEnd(msg, i) - 1
				continue
			}
			if b[i] >= '1' && b[i] <= '9' {
				b[i] = '1' + (b[i]-'1'+4)%9
			}
		}
		shifted := string(b)
		if other := NormalizeMessage(shifted); other != got {
			t.Fatalf("changing digits changed the result:\n%q → %q\n%q → %q", msg, got, shifted, other)
		}
	})
}

// normalizeMessageBuilder is NormalizeMessage as first written (fields
// joined, then a strings.Builder), which FuzzNormalizeMessage holds
// NormalizeMessage and the Fingerprint's appendNormalized to.
func normalizeMessageBuilder(msg string) string {
	msg = strings.Join(strings.Fields(msg), " ")
	if strings.IndexFunc(msg, isDigitRune) < 0 {
		return msg
	}
	var b strings.Builder
	b.Grow(len(msg))
	for i := 0; i < len(msg); {
		if !isWord(msg[i]) || i > 0 && isWord(msg[i-1]) {
			b.WriteByte(msg[i])
			i++
			continue
		}
		if end, ph := matchPart(msg, i); end > i {
			b.WriteString(ph)
			i = end
			continue
		}
		end := wordEnd(msg, i)
		b.WriteString(msg[i:end])
		i = end
	}
	return b.String()
}

// TestDeliveryKey: the key is the report's time in UTC, fixed width with
// nanoseconds, "/" and the fingerprint; one instant in any time zone gives
// one key, and the keys' byte order is their times' order (what lets a
// store's index of them append), across fractions, seconds, days and years.
func TestDeliveryKey(t *testing.T) {
	r := &Report{AgentID: "query_engine", Data: Data{ErrorType: QueryError, ErrorCode: "DB_TIMEOUT", QueryID: "q_456",
		Message: "Query timed out after 30s"}}
	fp := Fingerprint(r)
	for _, c := range []struct {
		at   time.Time
		want string
	}{
		{time.Date(2025, 8, 8, 12, 20, 5, 0, time.UTC), "20250808T122005.000000000Z/"},
		{time.Date(2025, 8, 8, 12, 20, 5, 500_000_000, time.UTC), "20250808T122005.500000000Z/"},
		{time.Date(2025, 8, 8, 14, 20, 5, 123456789, time.FixedZone("CEST", 2*3600)), "20250808T122005.123456789Z/"},
		{time.Date(2025, 8, 8, 12, 20, 5, 7, time.UTC), "20250808T122005.000000007Z/"},
		{time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), "00010101T000000.000000000Z/"},
	} {
		r.Timestamp = c.at
		if got := DeliveryKey(r); got != c.want+fp || len(got) != 94 {
			t.Errorf("DeliveryKey at %v = %q (%d bytes), want %q", c.at, got, len(got), c.want+fp)
		}
	}
	base := time.Date(2025, 12, 31, 23, 59, 59, 999_999_990, time.UTC)
	times := []time.Time{time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC)}
	for _, d := range []time.Duration{1, 9, 10, 11, 100, time.Microsecond, time.Second, time.Hour, 24 * time.Hour, 400 * 24 * time.Hour} {
		times = append(times, base.Add(d), base.Add(-d))
	}
	for i := range 200 { // spread over the years a JSON timestamp can hold
		n := (uint64(i)*0x9e3779b97f4a7c15 ^ 0x2545f491) % uint64(9999*365*24*3600)
		times = append(times, time.Unix(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Unix()+int64(n), int64(i*7919)).UTC())
	}
	for _, a := range times {
		for _, b := range times {
			r.Timestamp = a
			ka := DeliveryKey(r)
			r.Timestamp = b
			kb := DeliveryKey(r)
			if got, want := strings.Compare(ka, kb), a.Compare(b); got != want {
				t.Fatalf("keys at %v and %v compare %d, their times %d:\n%s\n%s", a, b, got, want, ka, kb)
			}
		}
	}
}
