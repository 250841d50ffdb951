package logguard

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/triage-go/triage/fault"
)

// Guard is a slog.Handler that a service logs through, so that what a
// client (or a peer) sends cannot make the logs an amplifier or a leak:
//
//   - every string value (of the record, of a group, of a LogValuer once
//     resolved, of an error's text) is redacted with fault.Redact and cut
//     to max bytes, with the length it had; any other value is rendered as
//     a handler would (%+v), and replaced by its cut, redacted text when
//     that is longer than max or holds a secret;
//   - of the lines at Warn and above, those of one level and message are
//     written at most burst times per window; the others are counted, and
//     one line at the window's end says how many were not written.
//
// With Config.Level set, every record is written at that level (a peer's
// own logs, such as an SDK's, at debug).
type Guard struct {
	next    slog.Handler
	max     int         // longest string value, in bytes; <= 0: not cut
	level   *slog.Level // every record's level, when set
	repeats *repeats    // nil: nothing is suppressed
}

// MaxValue is the longest string value, in bytes, a Guard logs by default:
// a longer one is cut, with the length it had. It is fault.Redact's own
// bound, which every logged string goes through.
const MaxValue = 1024

// Config configures a Guard. Every zero field means the documented
// default.
type Config struct {
	// MaxValue is the longest string value, in bytes. Defaults to
	// MaxValue; negative: not cut (still redacted).
	MaxValue int
	// Burst lines of one level and message, at Warn and above, are
	// written per Window; the others are counted, and one line at the
	// window's end says how many were not written. Defaults to 0:
	// nothing is suppressed.
	Burst  int
	Window time.Duration
	// Level, when set, is the level every record is written at.
	Level *slog.Level
}

// maxLogMessage bounds a record's message (the service's are constants,
// but net/http's error log carries what the connection sent).
const maxLogMessage = 1024

// maxRepeatKeys bounds the messages whose repeats are counted; past it,
// the lines of a message not yet counted share one count per level.
const maxRepeatKeys = 1024

// New returns a Guard that writes to next.
func New(next slog.Handler, o Config) *Guard {
	if o.MaxValue == 0 {
		o.MaxValue = MaxValue
	}
	g := &Guard{next: next, max: o.MaxValue, level: o.Level}
	if o.Burst > 0 {
		g.repeats = &repeats{burst: o.Burst, window: o.Window, maxKeys: maxRepeatKeys, lines: map[repeatKey]*repeatCount{}}
	}
	return g
}

// Enabled reports whether next takes records of level l (of Config.Level,
// when set).
func (g *Guard) Enabled(ctx context.Context, l slog.Level) bool {
	if g.level != nil {
		l = *g.level
	}
	return g.next.Enabled(ctx, l)
}

// Handle writes r to next, made safe.
func (g *Guard) Handle(ctx context.Context, r slog.Record) error {
	if g.level != nil {
		r.Level = *g.level
	}
	if g.repeats != nil && r.Level >= slog.LevelWarn {
		ok, past := g.repeats.allow(g.next, r)
		past.write() // the count of the window before, if its timer is late
		if !ok {
			return nil
		}
	}
	out := slog.NewRecord(r.Time, r.Level, cutText(r.Message, maxLogMessage), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(g.attr(a))
		return true
	})
	return g.next.Handle(ctx, out)
}

// WithAttrs returns a Guard whose records carry attrs, made safe.
func (g *Guard) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return g
	}
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = g.attr(a)
	}
	return &Guard{next: g.next.WithAttrs(clean), max: g.max, level: g.level, repeats: g.repeats}
}

// WithGroup returns a Guard whose records' attributes are in group name.
func (g *Guard) WithGroup(name string) slog.Handler {
	if name == "" {
		return g
	}
	return &Guard{next: g.next.WithGroup(name), max: g.max, level: g.level, repeats: g.repeats}
}

// Flush writes the counts of the lines suppressed so far.
func (g *Guard) Flush() {
	if g != nil && g.repeats != nil {
		g.repeats.flush()
	}
}

func (g *Guard) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		v = slog.StringValue(cutText(v.String(), g.max))
	case slog.KindGroup:
		in := v.Group()
		out := make([]slog.Attr, len(in))
		for i, ga := range in {
			out[i] = g.attr(ga)
		}
		v = slog.GroupValue(out...)
	case slog.KindAny:
		v = g.anyValue(v)
	}
	return slog.Attr{Key: a.Key, Value: v}
}

func (g *Guard) anyValue(v slog.Value) slog.Value {
	switch x := v.Any().(type) {
	case error:
		return slog.StringValue(cutText(x.Error(), g.max))
	case []byte:
		return slog.StringValue(cutText(string(x), g.max))
	}
	limit := g.max
	if limit <= 0 {
		limit = 1 << 20 // not cut: only looked at for secrets, up to a MiB
	}
	b := cappedBuffer{max: limit + 1}
	fmt.Fprintf(&b, "%+v", v.Any())
	text := string(b.buf)
	if b.total > limit || fault.Redact(text) != text {
		return slog.StringValue(cutTextLen(text, b.total, g.max))
	}
	return v
}

// cutText redacts s and cuts it to limit bytes (at a rune boundary),
// saying how long it was.
func cutText(s string, limit int) string { return cutTextLen(s, len(s), limit) }

// cutTextLen is cutText of a text whose first bytes are s and whose length
// is n.
func cutTextLen(s string, n, limit int) string {
	if limit <= 0 || n <= limit {
		return fault.Redact(s)
	}
	cut := min(limit, len(s))
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fault.Redact(s[:cut]) + "…[truncated: " + strconv.Itoa(n) + " bytes]"
}

// cappedBuffer keeps the first max bytes written to it, and counts them
// all.
type cappedBuffer struct {
	buf   []byte
	max   int
	total int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.total += len(p)
	if room := b.max - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// repeats counts the lines of each level and message, per window.
type repeats struct {
	mu      sync.Mutex
	burst   int
	window  time.Duration
	maxKeys int
	lines   map[repeatKey]*repeatCount
}

type repeatKey struct {
	level slog.Level
	msg   string
}

// otherMessages is the message of the count that the lines of messages
// not counted on their own share, when maxKeys messages are.
const otherMessages = "(other messages)"

type repeatCount struct {
	start      time.Time // of the window
	n          int       // lines written in the window
	suppressed int       // lines not written, not reported yet
	out        slog.Handler
	timer      *time.Timer
}

// allow tells whether r is written; a line that is not is counted, and
// reported through out at the window's end, by a timer, or by the first
// line after it when the timer has not run yet: allow then returns that
// count, to write once p.mu is released.
func (p *repeats) allow(out slog.Handler, r slog.Record) (bool, *summary) {
	now := r.Time
	if now.IsZero() {
		now = time.Now()
	}
	k := repeatKey{r.Level, r.Message}
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.lines[k]
	if c == nil {
		if len(p.lines) >= p.maxKeys {
			p.sweep(now)
		}
		if len(p.lines) >= p.maxKeys {
			k = repeatKey{r.Level, otherMessages}
			c = p.lines[k]
		}
		if c == nil {
			c = &repeatCount{start: now}
			p.lines[k] = c
		}
	}
	var past *summary
	if now.Sub(c.start) >= p.window {
		past = p.take(k, c)
		c.start, c.n = now, 0
	}
	if c.n < p.burst {
		c.n++
		return true, past
	}
	c.suppressed++
	if c.suppressed == 1 {
		c.out = out
		c.timer = time.AfterFunc(max(c.start.Add(p.window).Sub(now), 0), func() { p.report(k) })
	}
	return false, past
}

// summary is the line that counts the lines of a message not written.
type summary struct {
	key    repeatKey
	n      int
	window time.Duration
	out    slog.Handler
}

// take takes c's count, if any, to report; p.mu is held.
func (p *repeats) take(k repeatKey, c *repeatCount) *summary {
	if c.suppressed == 0 {
		return nil
	}
	if c.timer != nil {
		c.timer.Stop()
	}
	s := &summary{key: k, n: c.suppressed, window: p.window, out: c.out}
	c.suppressed, c.out, c.timer = 0, nil, nil
	return s
}

func (s *summary) write() {
	if s == nil {
		return
	}
	msg := cutText(s.key.msg, maxLogMessage)
	rec := slog.NewRecord(time.Now(), s.key.level, msg+": repeated "+strconv.Itoa(s.n)+" more times, not logged", 0)
	rec.AddAttrs(slog.Int("suppressed", s.n), slog.Duration("window", s.window))
	_ = s.out.Handle(context.Background(), rec)
}

// sweep forgets the messages whose window has passed with nothing to
// report; p.mu is held.
func (p *repeats) sweep(now time.Time) {
	for k, c := range p.lines {
		if c.suppressed == 0 && now.Sub(c.start) >= p.window {
			delete(p.lines, k)
		}
	}
}

// report writes how many lines of k were not written, if any.
func (p *repeats) report(k repeatKey) {
	p.mu.Lock()
	var s *summary
	if c := p.lines[k]; c != nil {
		s = p.take(k, c)
	}
	p.mu.Unlock()
	s.write()
}

// flush reports every count at once.
func (p *repeats) flush() {
	p.mu.Lock()
	var due []*summary
	for k, c := range p.lines {
		if s := p.take(k, c); s != nil {
			due = append(due, s)
		}
	}
	p.mu.Unlock()
	for _, s := range due {
		s.write()
	}
}
