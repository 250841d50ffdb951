package logguard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"testing/slogtest"
	"time"

	"github.com/triage-go/triage/internal/logguard"
)

// TestSlogtest: a Guard is a slog.Handler as testing/slogtest holds them,
// over a JSON handler.
func TestSlogtest(t *testing.T) {
	var buf bytes.Buffer
	h := logguard.New(slog.NewJSONHandler(&buf, nil), logguard.Config{Burst: 10, Window: time.Minute})
	results := func() []map[string]any {
		var ms []map[string]any
		for line := range bytes.Lines(buf.Bytes()) {
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatal(err)
			}
			ms = append(ms, m)
		}
		return ms
	}
	if err := slogtest.TestHandler(h, results); err != nil {
		t.Error(err)
	}
}

// With Level set, every record is written at it.
func TestLevel(t *testing.T) {
	var buf bytes.Buffer
	debug := slog.LevelDebug
	log := slog.New(logguard.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}), logguard.Config{Level: &debug}))
	log.Error("a peer's error", "token", "Bearer abcdef0123456789")
	if out := buf.String(); !strings.Contains(out, "level=DEBUG") || strings.Contains(out, "abcdef0123456789") {
		t.Errorf("%s", out)
	}
	buf.Reset()
	quiet := slog.New(logguard.New(slog.NewTextHandler(&buf, nil), logguard.Config{Level: &debug}))
	if quiet.Enabled(context.Background(), slog.LevelError) {
		t.Error("a record at debug is enabled on an info handler")
	}
}

// The guard's repeat windows: a new window writes again; the lines below
// Warn are never suppressed; a summary goes out through the logger that
// suppressed (its attributes).
func TestWindows(t *testing.T) {
	var buf bytes.Buffer
	g := logguard.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}), logguard.Config{MaxValue: 64, Burst: 2, Window: time.Minute})
	log := slog.New(g).With("component", "x")
	t0 := time.Date(2025, 8, 8, 12, 0, 0, 0, time.UTC)
	emit := func(at time.Duration, level slog.Level, msg string) {
		r := slog.NewRecord(t0.Add(at), level, msg, 0)
		r.AddAttrs(slog.String("value", strings.Repeat("v", 100)))
		_ = log.Handler().Handle(context.Background(), r)
	}
	for i := range 5 {
		emit(time.Duration(i)*time.Second, slog.LevelError, "store failed")
		emit(time.Duration(i)*time.Second, slog.LevelInfo, "handled")
	}
	emit(2*time.Minute, slog.LevelError, "store failed") // a new window, with the count of the last pending
	g.Flush()
	out := buf.String()
	if got := strings.Count(out, `msg=handled`); got != 5 {
		t.Errorf("info lines: %d, want 5", got)
	}
	if got := strings.Count(out, `msg="store failed"`); got != 3 {
		t.Errorf("error lines: %d, want 3 (2, then one in the next window)\n%s", got, out)
	}
	if !strings.Contains(out, `msg="store failed: repeated 3 more times, not logged" component=x suppressed=3 window=1m0s`) {
		t.Errorf("no summary of the 3 suppressed:\n%s", out)
	}
	if !strings.Contains(out, `value="`+strings.Repeat("v", 64)+`…[truncated: 100 bytes]"`) {
		t.Errorf("value not cut to 64 bytes:\n%s", out)
	}
}

// Values are cut and redacted wherever they are: groups, LogValuers,
// errors, other values, attributes added with With.
func TestValues(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(logguard.New(slog.NewTextHandler(&buf, nil), logguard.Config{MaxValue: 32}))
	long := strings.Repeat("é", 40) // 80 bytes: cut at a rune boundary
	log.With("with", long).Info("m",
		slog.Group("g", slog.String("s", long)),
		slog.Any("err", errors.New("Authorization: Bearer abcdef0123456789")),
		slog.Any("list", []string{long, long}),
		slog.Any("small", []int{1, 2}),
		slog.String("secret", "password=hunter2hunter2"),
	)
	out := buf.String()
	for _, want := range []string{
		`with="` + strings.Repeat("é", 16) + `…[truncated: 80 bytes]"`,
		`g.s="` + strings.Repeat("é", 16) + `…[truncated: 80 bytes]"`,
		`err="Authorization: [REDACTED]…[truncated: 38 bytes]"`,
		`list="[` + strings.Repeat("é", 15) + `…[truncated: 163 bytes]"`,
		`small="[1 2]"`,
		`secret="password=[REDACTED]"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in\n%s", want, out)
		}
	}
}
