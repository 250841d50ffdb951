package store

import (
	"context"
	"errors"
	"time"

	"github.com/triage-go/triage"
)

// MCPSession is the root package's: store keeps its name for it.
type (
	MCPSession     = triage.MCPSession
	MCPSessionPage = triage.MCPSessionPage
)

// The outcomes of an MCP session.
const (
	// SessionOpen is a session opened and not ended: its client may still
	// use it, or the instance holding it stopped before it could record
	// the end (the record stays so until it expires, as a run does).
	SessionOpen = "open"
	// SessionClosed is a session its client closed (DELETE /mcp).
	SessionClosed = "closed"
	// SessionExpired is a session closed after it went unused for the
	// door's idle timeout.
	SessionExpired = "expired"
	// SessionEvicted is a session closed to make room for another of its
	// tenant's, past the tenant's bound on sessions.
	SessionEvicted = "evicted"
	// SessionShutdown is a session closed because the service shut down.
	SessionShutdown = "shutdown"
)

// The bounds of a session record.
const (
	// MaxSessionIDBytes bounds a session's id, client name, client version
	// and protocol version, each.
	MaxSessionIDBytes = 256
)

// The errors of the MCP session records; test them with errors.Is.
var (
	// ErrSessionExists is OpenSession's answer when the tenant has a
	// session with that id already.
	ErrSessionExists = errors.New("store: session id already used")
	// ErrSessionEnded is EndSession's answer for a session that ended
	// already: its first end stays.
	ErrSessionEnded = errors.New("store: session already ended")
	// ErrInvalidSession is wrapped for a session or an end the store
	// refuses: an empty session id; an id, name or version that is not
	// UTF-8 text without NULs or is over MaxSessionIDBytes; an unknown
	// outcome (or "open" as an end); negative counts, or more failed
	// calls than calls.
	ErrInvalidSession = errors.New("store: invalid session record")
)

// MCPSessions keeps one tenant's MCP session records: every Tenant has
// them. A session is written twice: when it opens, and when it ends (with
// its counts); never per call.
type MCPSessions interface {
	// OpenSession records that session s.SessionID opened now (s's
	// Outcome, OpenedAt, EndedAt and counts are ignored) and returns the
	// record. It returns ErrSessionExists when the tenant has a session
	// with that id, and changes nothing.
	OpenSession(ctx context.Context, s MCPSession) (MCPSession, error)
	// EndSession records how an open session ended, now, with its counts
	// (s.Outcome, s.Calls, s.FailedCalls), and returns the record. A
	// session the store does not have (its open was not recorded, or its
	// record expired while it was still in use) is recorded whole, from
	// s (its OpenedAt, client and protocol version). A session ends once:
	// for one that ended already it returns ErrSessionEnded and changes
	// nothing.
	EndSession(ctx context.Context, s MCPSession) (MCPSession, error)
	// GetSession returns a session's record, and false when the tenant
	// has none with that id (never recorded, expired, or another
	// tenant's).
	GetSession(ctx context.Context, sessionID string) (MCPSession, bool, error)
	// ListSessions returns a page of the tenant's sessions that f
	// selects, the latest opened first (of sessions opened at the same
	// instant, the greatest id first). It returns ErrBadCursor for a
	// cursor it did not make.
	ListSessions(ctx context.Context, f SessionFilter) (MCPSessionPage, error)
}

// SessionFilter selects sessions: each field set narrows the list.
type SessionFilter struct {
	// Outcome is one of the outcomes (SessionOpen, SessionClosed, …).
	Outcome string
	// Since keeps the sessions opened at or after it.
	Since time.Time
	// Limit bounds the page: 1 to MaxLimit, default DefaultLimit.
	Limit int
	// Cursor continues from an MCPSessionPage's Next.
	Cursor string
}

// SessionOutcomes are the outcomes a session record may have.
var SessionOutcomes = []string{SessionOpen, SessionClosed, SessionExpired, SessionEvicted, SessionShutdown}

// MaxSessionScan bounds the occurrences Filter.SessionID reads: of a
// recorded session, the first received from its opening on; of another
// session id, the tenant's latest.
const MaxSessionScan = 10_000

// The occurrences Filter.SessionID reads for a recorded session are those
// received from SessionRecordsEarly before it opened (an instance's clock
// behind the one that opened it) to SessionRecordsLate after it ended (a
// failed call's recording job retried, or rescued from a stopped instance
// after DefaultJobRescueAfter); of an open session, up to now.
const (
	SessionRecordsEarly = time.Minute
	SessionRecordsLate  = 2 * time.Hour
)
