package acp

import (
	"bytes"
	"log/slog"
	"sync"
	"unicode/utf8"

	"github.com/triage-go/triage/fault"
)

// maxLogLine is how much of a worker's stderr line, or of anything else the
// worker wrote, reaches a log record: redacted first, then cut.
const maxLogLine = 1024

// tailLines is how many of a worker's last stderr lines a start or exit
// fault keeps in its Debug.
const tailLines = 8

// safeText is s as the pool logs it: cut to 4 KiB (so that redaction never
// runs over a huge line), redacted with fault.Redact, then cut to 1 KiB.
func safeText(s string) string {
	return cut(fault.Redact(cut(s, 4*maxLogLine)), maxLogLine)
}

// cut returns s cut to at most n bytes, on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// stderrLog is a worker's standard error: each line goes to the logger at
// debug level, made safe by safeText, and the last few stay for the faults.
type stderrLog struct {
	log *slog.Logger

	mu      sync.Mutex
	partial []byte
	last    []string
}

func (s *stderrLog) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			s.partial = append(s.partial, b...)
			if len(s.partial) > 4*maxLogLine {
				s.line(s.partial)
				s.partial = s.partial[:0]
			}
			break
		}
		if len(s.partial) > 0 {
			s.partial = append(s.partial, b[:i]...)
			s.line(s.partial)
			s.partial = s.partial[:0]
		} else {
			s.line(b[:i])
		}
		b = b[i+1:]
	}
	return n, nil
}

// line logs one line; s.mu is held.
func (s *stderrLog) line(b []byte) {
	line := safeText(string(bytes.TrimRight(b, "\r")))
	if line == "" {
		return
	}
	s.log.Debug("worker stderr", "line", line)
	if len(s.last) == tailLines {
		s.last = append(s.last[:0], s.last[1:]...)
	}
	s.last = append(s.last, line)
}

// tail returns the last lines, already safe.
func (s *stderrLog) tail() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.last...)
}

// failure is what a log record says of a start's failure: the fault's
// code, its details (the reason, the worker's own error, how it exited)
// and the cause's text, made safe by safeText.
func failure(err error) []any {
	f := fault.From(err)
	attrs := []any{"code", string(f.Code)}
	for _, k := range []string{"reason", "exit", "workerErrorCode", "workerErrorMessage"} {
		if v, ok := f.Details[k]; ok {
			attrs = append(attrs, k, v)
		}
	}
	if f.Cause != nil {
		attrs = append(attrs, "cause", safeText(f.Cause.Error()))
	}
	return attrs
}
