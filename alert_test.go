package triage_test

import (
	"testing"
	"time"

	"github.com/triage-go/triage"
)

var throttleNow = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

// 200 firings a second apart under an hour's throttle: one notification,
// then a digest of the 199 held back once the hour has passed, then the
// next firing goes out at once, carrying nothing.
func TestThrottleFire(t *testing.T) {
	t.Parallel()
	var th triage.Throttle
	sent := 0
	for i := range 200 {
		at := throttleNow.Add(time.Duration(i) * time.Second)
		next, send, held, _ := th.Fire(time.Hour, at)
		if send {
			sent++
			if held != 0 {
				t.Errorf("firing %d carries %d held", i, held)
			}
		}
		th = next
		if th.DigestDue(time.Hour, at) {
			t.Fatalf("a digest due at firing %d, within the hour", i)
		}
	}
	if sent != 1 || th.Held != 199 || !th.HeldSince.Equal(throttleNow.Add(time.Second)) {
		t.Fatalf("sent %d, held %d since %v", sent, th.Held, th.HeldSince)
	}
	if th.DigestDue(time.Hour, throttleNow.Add(time.Hour-time.Nanosecond)) || !th.DigestDue(time.Hour, throttleNow.Add(time.Hour)) {
		t.Error("the digest is not due exactly an hour after the notification")
	}
	// A firing past the hour takes the held ones with it.
	next, send, held, since := th.Fire(time.Hour, throttleNow.Add(2*time.Hour))
	if !send || held != 199 || !since.Equal(throttleNow.Add(time.Second)) || next.Held != 0 || !next.Sent.Equal(throttleNow.Add(2*time.Hour)) {
		t.Errorf("send %v held %d since %v next %+v", send, held, since, next)
	}
}
