package sqlstore

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/triage-go/triage/store"
)

// sessionColumns are a session record's columns, as scanSession reads them.
const sessionColumns = `session_id, client_name, client_version, protocol_version, outcome, opened_at, ended_at, calls, failed_calls`

// scanSession reads a row of sessionColumns.
func scanSession(row Row) (store.MCPSession, error) {
	var (
		s             store.MCPSession
		opened, ended int64
	)
	err := row.Scan(&s.SessionID, &s.ClientName, &s.ClientVersion, &s.ProtocolVersion, &s.Outcome, &opened, &ended, &s.Calls, &s.FailedCalls)
	s.OpenedAt, s.EndedAt = fromNanos(opened), fromNanos(ended)
	return s, err
}

// checkSession refuses the ids and names the table may not hold (see
// store.ErrInvalidSession).
func checkSession(s store.MCPSession) error {
	for _, c := range []struct{ what, v string }{{"session id", s.SessionID}, {"client name", s.ClientName},
		{"client version", s.ClientVersion}, {"protocol version", s.ProtocolVersion}} {
		switch {
		case c.what == "session id" && c.v == "":
			return fmt.Errorf("%w: the session id is empty", store.ErrInvalidSession)
		case len(c.v) > store.MaxSessionIDBytes:
			return fmt.Errorf("%w: the %s is %d bytes long, over %d (store.MaxSessionIDBytes)", store.ErrInvalidSession, c.what, len(c.v), store.MaxSessionIDBytes)
		case !isText(c.v):
			return fmt.Errorf("%w: the %s %q is not UTF-8 text without NULs", store.ErrInvalidSession, c.what, c.v)
		}
	}
	return nil
}

// OpenSession records a session as open, in one statement: an insert that
// does nothing on (tenant, session_id) taken.
func (t *tenant) OpenSession(ctx context.Context, s store.MCPSession) (store.MCPSession, error) {
	if err := checkSession(s); err != nil {
		return store.MCPSession{}, t.s.errorf("open session", err)
	}
	s.Outcome, s.OpenedAt, s.EndedAt, s.Calls, s.FailedCalls = store.SessionOpen, fromNanos(nanos(t.s.now())), fromNanos(0), 0, 0
	n, err := t.s.db.Writer().Exec(ctx, `
		INSERT INTO mcp_sessions (tenant, `+sessionColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, 0, 0, 0)
		ON CONFLICT (tenant, session_id) DO NOTHING`,
		t.id, s.SessionID, s.ClientName, s.ClientVersion, s.ProtocolVersion, s.Outcome, nanos(s.OpenedAt))
	if err == nil && n == 0 {
		err = fmt.Errorf("%w: %q", store.ErrSessionExists, s.SessionID)
	}
	if err != nil {
		return store.MCPSession{}, t.s.errorf("open session", err)
	}
	return s, nil
}

// EndSession records a session's end, in one statement: an insert of the
// whole record that, on the session's row, updates it while it is open.
func (t *tenant) EndSession(ctx context.Context, s store.MCPSession) (store.MCPSession, error) {
	err := checkSession(s)
	switch {
	case err != nil:
	case s.Outcome == store.SessionOpen || !slices.Contains(store.SessionOutcomes, s.Outcome):
		err = fmt.Errorf("%w: %q is not an end", store.ErrInvalidSession, s.Outcome)
	case s.Calls < 0 || s.FailedCalls < 0 || s.FailedCalls > s.Calls:
		err = fmt.Errorf("%w: %d failed calls of %d", store.ErrInvalidSession, s.FailedCalls, s.Calls)
	}
	if err != nil {
		return store.MCPSession{}, t.s.errorf("end session", err)
	}
	ended := nanos(t.s.now())
	opened := nanos(s.OpenedAt)
	if s.OpenedAt.IsZero() || opened > ended {
		opened = ended
	}
	row := t.s.db.Writer().QueryRow(ctx, `
		INSERT INTO mcp_sessions AS m (tenant, `+sessionColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (tenant, session_id) DO UPDATE SET outcome = excluded.outcome, ended_at = excluded.ended_at,
			calls = excluded.calls, failed_calls = excluded.failed_calls
		WHERE m.outcome = 'open'
		RETURNING `+sessionColumns,
		t.id, s.SessionID, s.ClientName, s.ClientVersion, s.ProtocolVersion, s.Outcome, opened, ended, s.Calls, s.FailedCalls)
	got, err := scanSession(row)
	if errors.Is(err, sql.ErrNoRows) {
		err = fmt.Errorf("%w: %q", store.ErrSessionEnded, s.SessionID)
	}
	if err != nil {
		return store.MCPSession{}, t.s.errorf("end session", err)
	}
	return got, nil
}

// GetSession returns a session's record.
func (t *tenant) GetSession(ctx context.Context, sessionID string) (store.MCPSession, bool, error) {
	if !isText(sessionID) {
		return store.MCPSession{}, false, nil // never stored
	}
	s, err := scanSession(t.s.db.Reader().QueryRow(ctx, `SELECT `+sessionColumns+` FROM mcp_sessions WHERE tenant = $1 AND session_id = $2`,
		t.id, sessionID))
	if errors.Is(err, sql.ErrNoRows) {
		return store.MCPSession{}, false, nil
	}
	if err != nil {
		return store.MCPSession{}, false, t.s.errorf("get session", err)
	}
	return s, true, nil
}

// ListSessions returns a page of the tenant's sessions, the latest opened
// first, by the mcp_sessions_by_tenant_open index.
func (t *tenant) ListSessions(ctx context.Context, f store.SessionFilter) (store.MCPSessionPage, error) {
	page := store.MCPSessionPage{Sessions: []store.MCPSession{}}
	if f.Outcome != "" && !slices.Contains(store.SessionOutcomes, f.Outcome) {
		return page, nil // never stored
	}
	query, args, err := ListSessionsSQL(t.id, f)
	if err != nil {
		return store.MCPSessionPage{}, t.s.errorf("list sessions", err)
	}
	n := pageSize(f.Limit)
	rows, err := t.s.db.Reader().Query(ctx, query, args...)
	err = scanAll(rows, err, func(row Row) error {
		s, err := scanSession(row)
		if err != nil {
			return err
		}
		if len(page.Sessions) == n {
			last := page.Sessions[n-1]
			page.Next = encodeSessionCursor(nanos(last.OpenedAt), last.SessionID)
			return nil
		}
		page.Sessions = append(page.Sessions, s)
		return nil
	})
	if err != nil {
		return store.MCPSessionPage{}, t.s.errorf("list sessions", err)
	}
	return page, nil
}

// ListSessionsSQL is ListSessions' query of tenant's sessions that f
// selects, with its arguments: one more than the page, to tell whether
// there is a next.
func ListSessionsSQL(tenant string, f store.SessionFilter) (string, []any, error) {
	w := newWhere("tenant", tenant)
	w.equal("outcome", f.Outcome)
	if !f.Since.IsZero() {
		w.cond("opened_at >=", nanos(f.Since))
	}
	if f.Cursor != "" {
		opened, id, err := decodeSessionCursor(f.Cursor)
		if err != nil {
			return "", nil, err
		}
		at := w.arg(opened)
		w.WriteString(" AND (opened_at < " + at + " OR opened_at = " + at + " AND session_id < " + w.arg(id) + ")")
	}
	query := `SELECT ` + sessionColumns + ` FROM mcp_sessions WHERE ` + w.String() +
		` ORDER BY opened_at DESC, session_id DESC LIMIT ` + w.arg(pageSize(f.Limit)+1)
	return query, w.args, nil
}

// sessionCursorPrefix marks a cursor of ListSessions: the last session's
// opening (in nanoseconds) and its id.
const sessionCursorPrefix = "mcps1:"

func encodeSessionCursor(opened int64, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(sessionCursorPrefix + strconv.FormatInt(opened, 10) + ":" + id))
}

// decodeSessionCursor reads a cursor encodeSessionCursor made; any other
// string is store.ErrBadCursor.
func decodeSessionCursor(c string) (int64, string, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, "", store.ErrBadCursor
	}
	rest, ok := strings.CutPrefix(string(b), sessionCursorPrefix)
	if !ok {
		return 0, "", store.ErrBadCursor
	}
	digits, id, ok := strings.Cut(rest, ":")
	opened, err := strconv.ParseInt(digits, 10, 64)
	if !ok || err != nil || opened < 0 || id == "" || !isText(id) {
		return 0, "", store.ErrBadCursor
	}
	return opened, id, nil
}

// sessionRecordsSQL is the subquery of the error IDs of the tenant's ($1)
// occurrences whose report names sessionID (data.context.session_id), in
// d, its argument added to w; at most store.MaxSessionScan occurrences
// are read, so its cost is bounded whatever the tenant holds, and no
// index of the sessions is kept per report.
//
// Of a session the tenant has a record of (mcp_sessions), they are the
// first received from its opening to its end (store.SessionRecordsEarly,
// store.SessionRecordsLate; an open one's ended_at is 0: up to now), read
// in order from the tenant's range of occurrences_by_received (tenant,
// received_at), its bounds the record's, looked up once (scalar
// subqueries). Of another id (a framework adapter's session, one expired),
// they are the tenant's latest, read in the order of the tenant's index
// (occurrences_by_tenant: by ID on SQLite, by transaction ID on
// PostgreSQL); that branch's scan runs only when the session has no
// record, and the first reads nothing then (its bounds are NULL).
//
// A plain id (letters, digits, "-", "_", ".", ":") is first looked for as
// text, which spares most reports' JSON parse.
func sessionRecordsSQL(d Dialect, w *where, sessionID string) string {
	id := w.arg(sessionID)
	order, match, find := "id", "json_extract(report, '$.data.context.session_id') = "+id, "instr(report, "+id+") > 0"
	if d.XidPositions {
		order, match, find = "xid", "report::jsonb #>> '{data,context,session_id}' = "+id, "strpos(report, "+id+") > 0"
	}
	if plainID(sessionID) {
		match = find + " AND " + match
	}
	session := ` FROM mcp_sessions WHERE tenant = $1 AND session_id = ` + id
	limit := strconv.Itoa(store.MaxSessionScan)
	early := strconv.FormatInt(int64(store.SessionRecordsEarly), 10)
	late := strconv.FormatInt(int64(store.SessionRecordsLate), 10)
	during := `SELECT error_id, report FROM occurrences WHERE tenant = $1` +
		` AND received_at >= (SELECT opened_at - ` + early + session + `)` +
		` AND received_at <= (SELECT CASE WHEN ended_at = 0 THEN ` + strconv.FormatInt(math.MaxInt64, 10) +
		` ELSE ended_at + ` + late + ` END` + session + `)` +
		` ORDER BY received_at LIMIT ` + limit
	// The latest, of an id with no record. PostgreSQL evaluates a
	// condition on no row once, before the scan (a one-time filter);
	// SQLite evaluates it row by row, inside the loop, which would walk
	// the tenant's whole range for a recorded session: there the record
	// makes the LIMIT 0, which ends the statement before the loop.
	gate, latestLimit := ` AND NOT EXISTS (SELECT 1`+session+`)`, limit
	if !d.XidPositions {
		gate, latestLimit = "", `(SELECT CASE WHEN EXISTS (SELECT 1`+session+`) THEN 0 ELSE `+limit+` END)`
	}
	latest := `SELECT error_id, report FROM occurrences WHERE tenant = $1` + gate + ` ORDER BY ` + order + ` DESC LIMIT ` + latestLimit
	return `SELECT s.error_id FROM (SELECT * FROM (` + during + `) AS during UNION ALL SELECT * FROM (` + latest + `) AS latest) AS s` +
		` WHERE s.report IS NOT NULL AND ` + match
}

// plainID tells whether id is written in JSON as it is: letters, digits,
// "-", "_", ".", ":".
func plainID(id string) bool {
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' || r == ':') {
			return false
		}
	}
	return id != ""
}
