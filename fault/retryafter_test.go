package fault_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
)

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		header http.Header
		want   time.Duration
		ok     bool
	}{
		{"seconds", http.Header{"Retry-After": {"120"}}, 2 * time.Minute, true},
		{"zero", http.Header{"Retry-After": {"0"}}, 0, true},
		{"spaces", http.Header{"Retry-After": {" 5 "}}, 5 * time.Second, true},
		{"http-date", http.Header{"Retry-After": {"Sat, 21 Nov 2026 12:01:30 GMT"}}, 90 * time.Second, true},
		{"rfc850 date", http.Header{"Retry-After": {"Saturday, 21-Nov-26 12:00:10 GMT"}}, 10 * time.Second, true},
		{"asctime date", http.Header{"Retry-After": {"Sat Nov 21 12:00:03 2026"}}, 3 * time.Second, true},
		{"past date", http.Header{"Retry-After": {"Sat, 21 Nov 2026 11:00:00 GMT"}}, 0, true},
		{"capped seconds", http.Header{"Retry-After": {"999999999"}}, 24 * time.Hour, true},
		{"capped overflow", http.Header{"Retry-After": {"99999999999999999999"}}, 24 * time.Hour, true},
		{"capped ms", http.Header{"Retry-After-Ms": {"999999999999"}}, 24 * time.Hour, true},
		{"capped date", http.Header{"Retry-After": {"Sat, 21 Nov 2099 12:00:00 GMT"}}, 24 * time.Hour, true},
		{"ms wins", http.Header{"Retry-After": {"5"}, "Retry-After-Ms": {"1500"}}, 1500 * time.Millisecond, true},
		{"fractional ms", http.Header{"Retry-After-Ms": {"2.5"}}, 2500 * time.Microsecond, true},
		{"bad ms falls back", http.Header{"Retry-After": {"5"}, "Retry-After-Ms": {"soon"}}, 5 * time.Second, true},
		{"negative", http.Header{"Retry-After": {"-5"}}, 0, false},
		{"fraction", http.Header{"Retry-After": {"1.5"}}, 0, false},
		{"garbage", http.Header{"Retry-After": {"tomorrow"}}, 0, false},
		{"absent", http.Header{}, 0, false},
		{"nil", nil, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, ok := fault.ParseRetryAfter(c.header, now)
			if got != c.want || ok != c.ok {
				t.Errorf("got %v %v, want %v %v", got, ok, c.want, c.ok)
			}
		})
	}
}

func TestSeconds(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]int64{
		0: 0, -time.Second: 0, time.Nanosecond: 1, time.Second: 1,
		1001 * time.Millisecond: 2, time.Minute: 60,
	} {
		if got := fault.Seconds(d); got != want {
			t.Errorf("Seconds(%v) = %d, want %d", d, got, want)
		}
	}
}

func TestRetryDelay(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		header http.Header
		want   time.Duration
		ok     bool
	}{
		{"retry-after first", http.Header{"Retry-After": {"5"}, "Ratelimit": {`"default";r=0;t=30`}}, 5 * time.Second, true},
		{"structured exhausted", http.Header{"Ratelimit": {`"default";r=0;t=30`}}, 30 * time.Second, true},
		{"structured several", http.Header{"Ratelimit": {`"burst";r=0;t=2, "day";r=0;t=3600`}}, time.Hour, true},
		{"structured not exhausted", http.Header{"Ratelimit": {`"default";r=12;t=30`}}, 0, false},
		{"earlier dictionary", http.Header{"Ratelimit": {"limit=100, remaining=0, reset=45"}}, 45 * time.Second, true},
		{"earlier dictionary left", http.Header{"Ratelimit": {"limit=100, remaining=3, reset=45"}}, 0, false},
		{"separate fields", http.Header{"Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {"12"}}, 12 * time.Second, true},
		{"separate fields left", http.Header{"Ratelimit-Remaining": {"4"}, "Ratelimit-Reset": {"12"}}, 0, false},
		{"x- seconds", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"20"}}, 20 * time.Second, true},
		{"x- unix time", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {fmt.Sprint(now.Add(90 * time.Second).Unix())}}, 90 * time.Second, true},
		{"capped", http.Header{"Ratelimit": {`"d";r=0;t=99999999`}}, 24 * time.Hour, true},
		{"garbage", http.Header{"Ratelimit": {`;;;r=0;t=x`}}, 0, false},
		{"none", http.Header{}, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, ok := fault.RetryDelay(c.header, now)
			if got != c.want || ok != c.ok {
				t.Errorf("got %v %v, want %v %v", got, ok, c.want, c.ok)
			}
		})
	}
	// FromStatus reads them too.
	f := fault.FromStatus(429, http.Header{"Ratelimit": {`"default";r=0;t=7`}}, now)
	if f.RetryAfter != 7*time.Second {
		t.Errorf("FromStatus: %v", f.RetryAfter)
	}
}
