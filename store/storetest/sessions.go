package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// getSession returns tenant's session, which must exist.
func getSession(t *testing.T, tn store.MCPSessions, id string) store.MCPSession {
	t.Helper()
	s, found, err := tn.GetSession(t.Context(), id)
	if err != nil || !found {
		t.Fatalf("GetSession(%q) = %+v, %v, %v; want the session", id, s, found, err)
	}
	return s
}

// noSession checks that tenant has no session id.
func noSession(t *testing.T, tn store.MCPSessions, id string) {
	t.Helper()
	if s, found, err := tn.GetSession(t.Context(), id); err != nil || found {
		t.Errorf("GetSession(%q) = %+v, %v, %v; want none", id, s, found, err)
	}
}

func sameSession(t *testing.T, what string, got, want store.MCPSession) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s =\n%+v\nwant\n%+v", what, got, want)
	}
}

// sessionOccurrence is an occurrence of errorID whose report names the
// session (data.context.session_id).
func sessionOccurrence(key, errorID, sessionID string, at time.Time) store.Occurrence {
	o := newOccurrence(key, errorID, at)
	ctx, _ := json.Marshal(map[string]string{"session_id": sessionID, "door": "mcp"})
	o.Report = json.RawMessage(fmt.Sprintf(`{"agent_id": "sql_agent", "data": {"message": "boom", "query_id": "q-%s", "context": %s}}`, errorID, ctx))
	return o
}

var sessionTests = []test{
	{"RoundTrip", func(t *testing.T, e *env) {
		ctx := t.Context()
		tn := e.s.Tenant("a")
		opened := e.clock.Now()
		got, err := tn.OpenSession(ctx, store.MCPSession{SessionID: "S1", ClientName: "claude-code", ClientVersion: "2.1.0",
			ProtocolVersion: "2025-06-18", Outcome: store.SessionClosed, Calls: 9, EndedAt: opened}) // ignored
		must(t, err)
		open := store.MCPSession{SessionID: "S1", ClientName: "claude-code", ClientVersion: "2.1.0", ProtocolVersion: "2025-06-18",
			Outcome: store.SessionOpen, OpenedAt: opened}
		sameSession(t, "OpenSession", got, open)
		sameSession(t, "GetSession of an open session", getSession(t, tn, "S1"), open)
		if _, err := tn.OpenSession(ctx, store.MCPSession{SessionID: "S1"}); !errors.Is(err, store.ErrSessionExists) {
			t.Errorf("OpenSession again: %v, want ErrSessionExists", err)
		}

		ended := e.clock.Advance(90 * time.Second)
		end := open
		end.Outcome, end.Calls, end.FailedCalls, end.ClientName = store.SessionClosed, 7, 2, "ignored: the row has it"
		got, err = tn.EndSession(ctx, end)
		must(t, err)
		closed := open
		closed.Outcome, closed.EndedAt, closed.Calls, closed.FailedCalls = store.SessionClosed, ended, 7, 2
		sameSession(t, "EndSession", got, closed)
		sameSession(t, "GetSession of an ended session", getSession(t, tn, "S1"), closed)

		// A session ends once.
		e.clock.Advance(time.Second)
		end.Outcome = store.SessionShutdown
		if _, err := tn.EndSession(ctx, end); !errors.Is(err, store.ErrSessionEnded) {
			t.Errorf("EndSession again: %v, want ErrSessionEnded", err)
		}
		sameSession(t, "GetSession after a second end", getSession(t, tn, "S1"), closed)

		// Another tenant has none.
		noSession(t, e.s.Tenant("b"), "S1")
		noSession(t, tn, "S2")
	}},
	{"EndWithoutOpen", func(t *testing.T, e *env) {
		// An end of a session whose open was not recorded (or expired)
		// records it whole.
		tn := e.s.Tenant("a")
		opened := e.clock.Now()
		ended := e.clock.Advance(time.Hour)
		got, err := tn.EndSession(t.Context(), store.MCPSession{SessionID: "S9", ClientName: "inspector", ProtocolVersion: "2025-03-26",
			Outcome: store.SessionExpired, OpenedAt: opened, Calls: 3, FailedCalls: 3})
		must(t, err)
		want := store.MCPSession{SessionID: "S9", ClientName: "inspector", ProtocolVersion: "2025-03-26", Outcome: store.SessionExpired,
			OpenedAt: opened, EndedAt: ended, Calls: 3, FailedCalls: 3}
		sameSession(t, "EndSession without an open", got, want)
		sameSession(t, "GetSession", getSession(t, tn, "S9"), want)
	}},
	{"Invalid", func(t *testing.T, e *env) {
		ctx := t.Context()
		tn := e.s.Tenant("a")
		for _, s := range []store.MCPSession{{}, {SessionID: "a\x00b"}, {SessionID: "x", ClientName: string(make([]byte, store.MaxSessionIDBytes+1))},
			{SessionID: "x", ClientVersion: "\xff"}} {
			if _, err := tn.OpenSession(ctx, s); !errors.Is(err, store.ErrInvalidSession) {
				t.Errorf("OpenSession(%q) = %v, want ErrInvalidSession", s.SessionID, err)
			}
		}
		_, err := tn.OpenSession(ctx, store.MCPSession{SessionID: "S1"})
		must(t, err)
		for _, s := range []store.MCPSession{{SessionID: "S1", Outcome: store.SessionOpen}, {SessionID: "S1", Outcome: "gone"},
			{SessionID: "S1", Outcome: store.SessionClosed, Calls: -1}, {SessionID: "S1", Outcome: store.SessionClosed, Calls: 1, FailedCalls: 2}} {
			if _, err := tn.EndSession(ctx, s); !errors.Is(err, store.ErrInvalidSession) {
				t.Errorf("EndSession(%+v) = %v, want ErrInvalidSession", s, err)
			}
		}
		if got := getSession(t, tn, "S1"); got.Outcome != store.SessionOpen {
			t.Errorf("after refused ends, the session is %q", got.Outcome)
		}
	}},
	{"List", func(t *testing.T, e *env) {
		ctx := t.Context()
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		var want []string
		for i := range 7 {
			id := fmt.Sprintf("S%d", i)
			_, err := a.OpenSession(ctx, store.MCPSession{SessionID: id})
			must(t, err)
			if i%2 == 0 {
				_, err = a.EndSession(ctx, store.MCPSession{SessionID: id, Outcome: store.SessionExpired})
				must(t, err)
			}
			if i != 3 { // S3 and S4 opened at the same instant: S4 listed first
				e.clock.Advance(time.Second)
			}
			want = append([]string{id}, want...)
		}
		_, err := b.OpenSession(ctx, store.MCPSession{SessionID: "other"})
		must(t, err)
		var got []string
		f := store.SessionFilter{Limit: 3}
		for pages := 0; ; pages++ {
			p, err := a.ListSessions(ctx, f)
			must(t, err)
			if len(p.Sessions) > 3 || pages > 3 {
				t.Fatalf("page %d: %d sessions", pages, len(p.Sessions))
			}
			for _, s := range p.Sessions {
				got = append(got, s.SessionID)
			}
			if p.Next == "" {
				break
			}
			f.Cursor = p.Next
		}
		if !slices.Equal(got, want) {
			t.Errorf("ListSessions paged = %v, want %v", got, want)
		}
		p, err := a.ListSessions(ctx, store.SessionFilter{Outcome: store.SessionExpired})
		must(t, err)
		if len(p.Sessions) != 4 || p.Sessions[0].SessionID != "S6" {
			t.Errorf("the expired sessions: %+v", p.Sessions)
		}
		p, err = a.ListSessions(ctx, store.SessionFilter{Since: Epoch.Add(4 * time.Second)})
		must(t, err)
		if len(p.Sessions) != 2 {
			t.Errorf("the sessions opened since 4 s: %+v", p.Sessions)
		}
		if p, err = a.ListSessions(ctx, store.SessionFilter{Outcome: "nope"}); err != nil || len(p.Sessions) != 0 {
			t.Errorf("an unknown outcome: %+v, %v", p, err)
		}
		if _, err := a.ListSessions(ctx, store.SessionFilter{Cursor: "nope"}); !errors.Is(err, store.ErrBadCursor) {
			t.Errorf("a bad cursor: %v, want ErrBadCursor", err)
		}
	}},
	{"Expire", func(t *testing.T, e *env) {
		ctx := t.Context()
		const day = 24 * time.Hour
		a := e.s.Tenant("a")
		for _, id := range []string{"old-open", "old-closed"} {
			_, err := a.OpenSession(ctx, store.MCPSession{SessionID: id})
			must(t, err)
		}
		e.clock.Advance(6 * day)
		_, err := a.EndSession(ctx, store.MCPSession{SessionID: "old-closed", Outcome: store.SessionClosed})
		must(t, err)
		_, err = a.OpenSession(ctx, store.MCPSession{SessionID: "recent"})
		must(t, err)
		e.clock.Advance(2 * day)
		// Eight days: the sessions opened more than a week ago, whatever
		// their outcome (an open one whose instance stopped goes too).
		_, err = e.s.Expire(ctx, store.Retention{})
		must(t, err)
		noSession(t, a, "old-open")
		noSession(t, a, "old-closed")
		getSession(t, a, "recent")
		_, err = e.s.Expire(ctx, store.Retention{Sessions: time.Hour})
		must(t, err)
		noSession(t, a, "recent")
	}},
	{"RecordsOfASession", func(t *testing.T, e *env) {
		ctx := t.Context()
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		odd := `s"<&é`
		save(t, a, sessionOccurrence("d1", "e1", "S1", e.clock.Advance(time.Minute)))
		save(t, a, sessionOccurrence("d2", "e2", "S2", e.clock.Advance(time.Minute)))
		save(t, a, sessionOccurrence("d3", "e1", "S1", e.clock.Advance(time.Minute)))
		save(t, a, sessionOccurrence("d4", "e3", "S1", e.clock.Advance(time.Minute)))
		save(t, a, sessionOccurrence("d5", "e2", odd, e.clock.Advance(time.Minute)))
		save(t, a, sessionOccurrence("d6", "e4", "S1x", e.clock.Advance(time.Minute)))
		save(t, a, newOccurrence("d7", "e5", e.clock.Advance(time.Minute)))
		save(t, b, sessionOccurrence("d8", "e9", "S1", e.clock.Advance(time.Minute)))
		for _, c := range []struct {
			f    store.Filter
			want []string
		}{
			{store.Filter{SessionID: "S1"}, []string{"e3", "e1"}},
			{store.Filter{SessionID: "S2"}, []string{"e2"}},
			{store.Filter{SessionID: odd}, []string{"e2"}},
			{store.Filter{SessionID: "S"}, nil},
			{store.Filter{SessionID: "S1", AgentID: "nobody"}, nil},
			{store.Filter{SessionID: "S1", Sort: store.SortFirstSeen, Limit: 1}, []string{"e3", "e1"}},
		} {
			got, total := pageAll(t, a, c.f)
			if !slices.Equal(got, c.want) || total != len(c.want) {
				t.Errorf("ErrorRecords(%+v) = %v (total %d), want %v", c.f, got, total, c.want)
			}
		}
		got, _ := pageAll(t, b, store.Filter{SessionID: "S1"})
		if !slices.Equal(got, []string{"e9"}) {
			t.Errorf("tenant b's records of S1: %v", got)
		}
		if _, err := a.ChangeRecords(ctx, store.Filter{SessionID: "S1"}, triage.Change{Status: triage.StatusResolved}, "me"); err == nil {
			t.Error("a bulk change by session: no error; it must refuse the filter it does not apply")
		}
	}},
	{"RecordedSessionsWindow", func(t *testing.T, e *env) {
		// A recorded session's records are those of the occurrences
		// received from SessionRecordsEarly before it opened to
		// SessionRecordsLate after it ended (an open one's, up to any
		// time); an id with no record reads the tenant's latest.
		ctx := t.Context()
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		t0 := e.clock.Now()
		opened := e.clock.Advance(10 * time.Minute)
		_, err := a.OpenSession(ctx, store.MCPSession{SessionID: "S1"})
		must(t, err)
		ended := e.clock.Advance(5 * time.Minute)
		_, err = a.EndSession(ctx, store.MCPSession{SessionID: "S1", Outcome: store.SessionClosed, OpenedAt: opened})
		must(t, err)
		open := e.clock.Advance(time.Minute)
		_, err = a.OpenSession(ctx, store.MCPSession{SessionID: "S3"})
		must(t, err)
		for _, o := range []store.Occurrence{
			sessionOccurrence("d1", "e-before", "S1", t0),
			sessionOccurrence("d2", "e-early", "S1", opened.Add(-store.SessionRecordsEarly)),
			sessionOccurrence("d3", "e-during", "S1", opened.Add(time.Minute)),
			sessionOccurrence("d4", "e-other", "S2", opened.Add(2*time.Minute)),
			sessionOccurrence("d5", "e-late", "S1", ended.Add(store.SessionRecordsLate)),
			sessionOccurrence("d6", "e-after", "S1", ended.Add(store.SessionRecordsLate+time.Second)),
			sessionOccurrence("d7", "e-open-before", "S3", open.Add(-store.SessionRecordsEarly-time.Second)),
			sessionOccurrence("d8", "e-open-late", "S3", open.Add(24*time.Hour)),
		} {
			save(t, a, o)
		}
		save(t, b, sessionOccurrence("d9", "e-b", "S1", t0))
		for _, c := range []struct {
			tn   store.Records
			id   string
			want []string
		}{
			{a, "S1", []string{"e-late", "e-during", "e-early"}},
			{a, "S3", []string{"e-open-late"}},
			// No record: the tenant's latest, whenever received.
			{a, "S2", []string{"e-other"}},
			{b, "S1", []string{"e-b"}},
		} {
			got, total := pageAll(t, c.tn, store.Filter{SessionID: c.id})
			if !slices.Equal(got, c.want) || total != len(c.want) {
				t.Errorf("ErrorRecords(session %s) = %v (total %d), want %v", c.id, got, total, c.want)
			}
		}
	}},
}

// FillSessionRecords saves, through s (its clock at now), tenant a's
// record of session S1, opened 15 minutes before now and closed at now,
// and occurrences naming it: one received in its window, one an hour
// before it and one three hours after it. CheckSessionRecords checks
// that its records are the window's: a migration test fills a store,
// undoes the migration of occurrences_by_received, and checks again once
// the store is opened (and so migrated) again.
func FillSessionRecords(t *testing.T, s store.Store, now time.Time) {
	t.Helper()
	a := s.Tenant("a")
	_, err := a.EndSession(t.Context(), store.MCPSession{SessionID: "S1", Outcome: store.SessionClosed, OpenedAt: now.Add(-15 * time.Minute)})
	must(t, err)
	for _, o := range []store.Occurrence{
		sessionOccurrence("d1", "e-before", "S1", now.Add(-time.Hour)),
		sessionOccurrence("d2", "e-during", "S1", now.Add(-10*time.Minute)),
		sessionOccurrence("d3", "e-after", "S1", now.Add(3*time.Hour)),
	} {
		save(t, a, o)
	}
}

// CheckSessionRecords checks the records of FillSessionRecords' session.
func CheckSessionRecords(t *testing.T, s store.Store) {
	t.Helper()
	got, total := pageAll(t, s.Tenant("a"), store.Filter{SessionID: "S1"})
	if !slices.Equal(got, []string{"e-during"}) || total != 1 {
		t.Errorf("the records of session S1 = %v (total %d), want [e-during]", got, total)
	}
}
