package natsingress

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/triage-go/triage/wire/problem"
)

// Config configures a Consumer. Every zero field means the documented
// default.
type Config struct {
	// URL is the NATS server (nats://host:4222; several, comma-separated,
	// for a cluster). It may carry a user and password or a token. Required.
	URL string
	// Creds is a NATS credentials file (a user JWT and its NKey seed).
	// Defaults to "": none, or what URL carries.
	Creds string

	// Stream names the report streams: each tenant's reports have a
	// stream of their own, StreamName(T), which takes ReportSubject(T),
	// so that JetStream's deduplication by Nats-Msg-Id (per stream) is
	// the tenant's. Each is created on start when it does not exist (file
	// storage, limits retention, messages kept DefaultMaxAge), else given
	// its subject if it lacks it, its other settings kept. A stream named
	// Stream itself is the shared stream of an earlier layout: on start it
	// gives up its report subjects and the consumer drains it. Defaults to
	// DefaultStream.
	Stream string
	// Subject is the prefix of the report subjects: a report for tenant T
	// is published to Subject + "." + T. Defaults to DefaultSubject.
	Subject string
	// Durable is the name of the durable pull consumer on each report
	// stream; every instance of the service sharing it shares the work.
	// Defaults to DefaultDurable.
	Durable string
	// Feedback is the prefix of the subjects the feedback of a message
	// without a Triage-Reply-To header goes to: Feedback + "." + T. A
	// message's Triage-Reply-To must be that subject or one under it
	// (Feedback + "." + T + ".…"): tenant T's answers stay on T's
	// subjects. Defaults to DefaultFeedback.
	Feedback string
	// DeadLetter is the prefix of the dead-letter subjects: a refused
	// report's problem goes to DeadLetter + "." + the subject's tenant
	// part, stored in the stream DeadLetterStream (created on start, as
	// Stream is). Defaults to DefaultDeadLetter, and Stream + "_DEADLETTER".
	DeadLetter       string
	DeadLetterStream string

	// Workers bounds the reports handled at once by this instance, all
	// tenants' together; the tenants with messages waiting take the free
	// workers in turn, so one tenant's flood does not hold the others'
	// reports back. Default 8.
	Workers int
	// MaxAckPending bounds the messages of one tenant's stream delivered
	// and not yet acknowledged, across every instance sharing Durable:
	// past it NATS delivers no more of them until some are acknowledged.
	// Default 256.
	MaxAckPending int
	// AckWait is how long NATS waits for a message's acknowledgement
	// before it delivers the message again (to this instance or another);
	// it also bounds the handling of one message. Default 30s.
	AckWait time.Duration
	// MaxRetryDelay bounds the delay of a message refused for a reason
	// that passes (a store failure: 1s, 2s, 4s … doubling with each
	// delivery, up to it). Default 30s.
	MaxRetryDelay time.Duration
	// DrainTimeout bounds how long a shutdown waits for the messages in
	// hand; those still unfinished past it are delivered again. Default
	// 25s.
	DrainTimeout time.Duration

	// Tenants are the tenants whose reports the consumer takes, each
	// from a stream of its own (StreamName): NATS refuses a report for
	// another tenant (no stream takes its subject). Of two whose names
	// nest at a dot ("acme", "acme.eu"), a reply subject under both
	// feedback subjects is the longer one's. Required: the service's
	// (service.Service.Tenants).
	Tenants []string

	// Logger receives the consumer's logs. Defaults to slog.Default();
	// triage serve gives the server's (redacted, repeats counted).
	Logger *slog.Logger
	// Registerer registers the consumer's metrics. Defaults to nil: not
	// registered.
	Registerer prometheus.Registerer
	// Problems are the options of the problem documents a refused report
	// is answered and dead-lettered with, as the HTTP API writes them.
	// Defaults to relative types, no debug output.
	Problems *problem.Options
}

// The defaults.
const (
	DefaultStream        = "TRIAGE_REPORTS"
	DefaultSubject       = "triage.reports"
	DefaultDurable       = "triage"
	DefaultFeedback      = "triage.feedback"
	DefaultDeadLetter    = "triage.deadletter"
	DefaultWorkers       = 8
	DefaultMaxAckPending = 256
	DefaultAckWait       = 30 * time.Second
	DefaultMaxRetryDelay = 30 * time.Second
	DefaultDrainTimeout  = 25 * time.Second
	// DefaultMaxAge is how long a stream created on start keeps a message.
	DefaultMaxAge = 7 * 24 * time.Hour
)

// The headers the consumer reads and writes.
const (
	// HeaderReplyTo names the subject a report's feedback goes to (or its
	// problem, when it is refused): JetStream answers a publish's own
	// reply subject with its acknowledgement, and does not keep it. It
	// must be the tenant's feedback subject or one under it.
	HeaderReplyTo = "Triage-Reply-To"
	// HeaderMsgID is NATS's deduplication id, which is also the report's
	// idempotency key (as HTTP's Idempotency-Key).
	HeaderMsgID = "Nats-Msg-Id"
	// HeaderStatus is the HTTP status POST /v1/errors would have answered:
	// 201, 200, or a refusal's (422, 403 …).
	HeaderStatus = "Triage-Status"
	// HeaderCode is a refusal's fault code (INVALID_REQUEST …).
	HeaderCode = "Triage-Code"
	// HeaderReplayed is "true" on the stored answer of a repeated key, as
	// HTTP's Idempotent-Replayed.
	HeaderReplayed = "Idempotent-Replayed"
	// HeaderSubject, HeaderStream, HeaderSequence and HeaderMessageID
	// trace an answer or a dead letter to the message it answers: its
	// subject, its stream and sequence there (nats stream get STREAM SEQ),
	// and its Nats-Msg-Id.
	HeaderSubject   = "Triage-Subject"
	HeaderStream    = "Triage-Stream"
	HeaderSequence  = "Triage-Stream-Seq"
	HeaderMessageID = "Triage-Msg-Id"
	// HeaderDelivered is how many times NATS delivered the message.
	HeaderDelivered = "Triage-Delivered"
)

// withDefaults returns c with its defaults filled in, or why it cannot be
// used.
func (c Config) withDefaults() (Config, error) {
	if c.URL == "" {
		return c, errors.New("natsingress: Config.URL is required")
	}
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&c.Stream, DefaultStream)
	def(&c.Subject, DefaultSubject)
	def(&c.Durable, DefaultDurable)
	def(&c.Feedback, DefaultFeedback)
	def(&c.DeadLetter, DefaultDeadLetter)
	def(&c.DeadLetterStream, c.Stream+"_DEADLETTER")
	if c.Workers <= 0 {
		c.Workers = DefaultWorkers
	}
	if c.MaxAckPending <= 0 {
		c.MaxAckPending = DefaultMaxAckPending
	}
	if c.AckWait <= 0 {
		c.AckWait = DefaultAckWait
	}
	if c.MaxRetryDelay <= 0 {
		c.MaxRetryDelay = DefaultMaxRetryDelay
	}
	if c.DrainTimeout <= 0 {
		c.DrainTimeout = DefaultDrainTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.Default() // Start gives it the server's
	}
	for _, p := range []struct{ name, v string }{{"Stream", c.Stream}, {"Durable", c.Durable}, {"DeadLetterStream", c.DeadLetterStream}} {
		if !isName(p.v) {
			return c, fmt.Errorf("natsingress: Config.%s %q must be letters, digits, '_' and '-'", p.name, p.v)
		}
	}
	if c.Stream == c.DeadLetterStream {
		return c, errors.New("natsingress: Config.Stream and DeadLetterStream must differ")
	}
	prefixes := []struct{ name, v string }{{"Subject", c.Subject}, {"Feedback", c.Feedback}, {"DeadLetter", c.DeadLetter}}
	for i, p := range prefixes {
		if !isLiteralSubject(p.v) || strings.HasPrefix(p.v, "$") {
			return c, fmt.Errorf("natsingress: Config.%s %q must be a subject without wildcards, not starting with $", p.name, p.v)
		}
		for _, q := range prefixes[:i] {
			if under(p.v, q.v) || under(q.v, p.v) {
				return c, fmt.Errorf("natsingress: Config.%s %q and %s %q overlap", q.name, q.v, p.name, p.v)
			}
		}
	}
	return c, nil
}

// ReportSubject is the subject a report for tenant is published to.
func (c Config) ReportSubject(tenant string) string {
	return or(c.Subject, DefaultSubject) + "." + tenant
}

// StreamName is the stream of tenant's reports: Stream + "-" + the
// tenant's name, each '_', '.' and ':' in it written "_5F", "_2E" and
// "_3A" (a stream's name holds letters, digits, '-' and '_' only), so
// that no two tenants share a stream; a name longer than 255 bytes ends
// "-_h" + 32 hexadecimal digits of the tenant's SHA-256 instead.
func (c Config) StreamName(tenant string) string {
	prefix := or(c.Stream, DefaultStream) + "-"
	var b strings.Builder
	b.WriteString(prefix)
	for i := 0; i < len(tenant); i++ {
		switch ch := tenant[i]; ch {
		case '_', '.', ':':
			fmt.Fprintf(&b, "_%02X", ch)
		default:
			b.WriteByte(ch)
		}
	}
	if name := b.String(); len(name) <= 255 && isName(name) {
		return name
	}
	sum := sha256.Sum256([]byte(tenant))
	return prefix + "_h" + hex.EncodeToString(sum[:16])
}

// FeedbackSubject is the subject the feedback of tenant's reports goes to
// when a message names no Triage-Reply-To.
func (c Config) FeedbackSubject(tenant string) string {
	return or(c.Feedback, DefaultFeedback) + "." + tenant
}

// DeadLetterSubject is the subject the refused reports published to
// ReportSubject(tenant) go to.
func (c Config) DeadLetterSubject(tenant string) string {
	return or(c.DeadLetter, DefaultDeadLetter) + "." + tenant
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// isName tells whether s is a stream or consumer name this package
// creates: letters, digits, '_' and '-', at most 255 bytes.
func isName(s string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// isLiteralSubject tells whether s is a subject one may publish to: at
// most maxSubject bytes of printable ASCII, dot-separated tokens none
// empty, no wildcard.
func isLiteralSubject(s string) bool {
	if s == "" || len(s) > maxSubject {
		return false
	}
	for _, tok := range strings.Split(s, ".") {
		if tok == "" {
			return false
		}
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c > 0x7e || c == '*' || c == '>' {
			return false
		}
	}
	return true
}

// maxSubject bounds a subject the consumer publishes to.
const maxSubject = 255

// under tells whether subject is prefix or one of its subjects.
func under(subject, prefix string) bool {
	return subject == prefix || strings.HasPrefix(subject, prefix+".")
}
