package sqlite

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// BenchmarkSessionRecords measures GET /v1/errors?session_id='s read: the
// records of one session, found among the tenant's latest
// store.MaxSessionScan occurrences (their reports' data.context
// .session_id), on a tenant of 30,000 occurrences of 3,000 records, each
// report about 1 KiB and naming one of 500 sessions. plain is an id
// looked for as text first; odd one that must be parsed in every report.
//
//	go test ./store/sqlite -run '^$' -bench BenchmarkSessionRecords -benchtime 20x
func BenchmarkSessionRecords(b *testing.B) {
	const occurrences, records, sessions = 30_000, 3_000, 500
	s, err := Open(b.Context(), filepath.Join(b.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	t := s.Tenant("default")
	now := time.Now()
	pad := strings.Repeat("x", 800)
	for i := range occurrences {
		sid := fmt.Sprintf("sess-%03d", i%sessions)
		if i%sessions == 7 {
			sid = `odd "session" <7>`
		}
		ctx, _ := json.Marshal(map[string]string{"door": "mcp", "session_id": sid, "tool": "sessions_prompt", "pad": pad})
		id := fmt.Sprintf("err_%05d", i%records)
		o := store.Occurrence{DeliveryKey: fmt.Sprint("d", i), ErrorID: id, QueryID: "mcp:sessions_prompt", AgentID: "echo",
			ErrorType: "system_error", Severity: "high", NextAction: "escalate", Attempt: 1,
			ReportedAt: now.Add(time.Duration(i) * time.Millisecond), ReceivedAt: now.Add(time.Duration(i) * time.Millisecond),
			Report:   json.RawMessage(fmt.Sprintf(`{"agent_id":"echo","data":{"message":"boom","query_id":"mcp:sessions_prompt","context":%s}}`, ctx)),
			Feedback: json.RawMessage(`{"next_action":"escalate"}`)}
		if _, err := t.SaveOccurrence(b.Context(), o); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct{ name, id string }{{"plain", "sess-123"}, {"odd", `odd "session" <7>`}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				p, err := t.ErrorRecords(b.Context(), store.Filter{SessionID: c.id})
				if err != nil || len(p.Records) == 0 {
					b.Fatal(p, err)
				}
			}
		})
	}
}
