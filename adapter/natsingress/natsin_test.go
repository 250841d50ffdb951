package natsingress_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/triage-go/triage/adapter/natsingress"
	"github.com/triage-go/triage/internal/testkit/natstest"
)

const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

// post sends body to POST /v1/errors of the bundle's server, as a client
// of the HTTP API would: its status and body.
func (b *bundle) post(t *testing.T, body []byte, header ...string) (int, []byte) {
	t.Helper()
	hs := httptest.NewServer(b.srv)
	defer hs.Close()
	req, err := http.NewRequest("POST", hs.URL+"/v1/errors", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

func wantHeader(t *testing.T, h map[string][]string, name, want string) {
	t.Helper()
	got := h[name]
	if len(got) != 1 || got[0] != want {
		t.Errorf("header %s = %q, want %q", name, got, want)
	}
}

// TestReportCommittedAckedAnswered: a report published is committed, its
// feedback published to its Triage-Reply-To (or else to the tenant's
// feedback subject), traced to the message and with none of its other
// headers, and the message acknowledged; the same report over HTTP is
// then a duplicate of it.
func TestReportCommittedAckedAnswered(t *testing.T) {
	t.Parallel()
	b := setup(t, options{})
	inbox := b.cfg.FeedbackSubject("default") + ".inbox-1"
	replies := b.bus.Listen(t, inbox)
	onFeedback := b.bus.Listen(t, b.cfg.FeedbackSubject("default"))

	ack := b.publish(t, "default", golden(t, "db_timeout.json"), natsingress.HeaderReplyTo, inbox,
		"traceparent", traceparent, "Authorization", "Bearer sk-live-0123456789abcdefghij", natsingress.HeaderMsgID, "db-timeout-1")
	m := natstest.Receive(t, replies, "feedback on Triage-Reply-To")
	fb := feedback(t, m)
	wantHeader(t, m.Header, "Content-Type", "application/json")
	wantHeader(t, m.Header, natsingress.HeaderStatus, "201")
	wantHeader(t, m.Header, natsingress.HeaderSubject, b.cfg.ReportSubject("default"))
	wantHeader(t, m.Header, natsingress.HeaderStream, b.cfg.StreamName("default"))
	wantHeader(t, m.Header, natsingress.HeaderSequence, strconv.FormatUint(ack.Sequence, 10))
	wantHeader(t, m.Header, natsingress.HeaderMessageID, "db-timeout-1")
	wantHeader(t, m.Header, natsingress.HeaderDelivered, "1")
	wantHeader(t, m.Header, "traceparent", traceparent)
	if _, ok := m.Header["Authorization"]; ok {
		t.Error("the feedback carries the message's Authorization header")
	}
	if fb.ErrorType != "query_error" || fb.QueryID != "q_456" || fb.NextAction == "" {
		t.Errorf("feedback %+v, want the handler's for db_timeout", fb)
	}
	// The feedback is published once the record is committed.
	recs := b.records(t, "default")
	if len(recs) != 1 || recs[0].ErrorID != fb.ErrorID || recs[0].Count != 1 {
		t.Fatalf("records %+v, want one of %s", recs, fb.ErrorID)
	}
	b.waitAcked(t, ack)
	none(t, onFeedback, 200*time.Millisecond, "feedback on the feedback subject, besides Triage-Reply-To")

	// The same report over HTTP: a duplicate of the message's.
	status, body := b.post(t, golden(t, "db_timeout.json"))
	var again struct {
		ErrorID string `json:"error_id"`
	}
	if err := json.Unmarshal(body, &again); err != nil || status != 200 || again.ErrorID != fb.ErrorID {
		t.Errorf("POST /v1/errors of the same report: %d %s, want 200 with %s", status, body, fb.ErrorID)
	}

	// Without Triage-Reply-To, to the tenant's feedback subject.
	ack = b.publish(t, "default", golden(t, "chart_incompatible.json"))
	m = natstest.Receive(t, onFeedback, "feedback on "+b.cfg.FeedbackSubject("default"))
	wantHeader(t, m.Header, natsingress.HeaderStatus, "201")
	if fb := feedback(t, m); fb.ErrorType != "chart_error" {
		t.Errorf("feedback %+v, want chart_incompatible's", fb)
	}
	b.waitAcked(t, ack)
	if recs := b.records(t, "default"); len(recs) != 2 {
		t.Errorf("%d records, want 2", len(recs))
	}
}

// TestInvalidReportDeadLettered: an invalid report's problem, the one
// POST /v1/errors answers, goes to the dead-letter stream with the
// headers that trace it and none of the message's others, and to
// Triage-Reply-To; the message is acknowledged; nothing is recorded.
func TestInvalidReportDeadLettered(t *testing.T) {
	t.Parallel()
	b := setup(t, options{})
	dead := b.bus.Listen(t, b.cfg.DeadLetter+".>")
	inbox := b.cfg.FeedbackSubject("default") + ".inbox-1"
	replies := b.bus.Listen(t, inbox)
	body := []byte(`{"agent_id":"query engine","timestamp":"yesterday","status":"error","data":{"error_type":"db_error","message":"Query timed out"}}`)
	ack := b.publish(t, "default", body, natsingress.HeaderReplyTo, inbox, natsingress.HeaderMsgID, "bad-1",
		"X-API-Key", "key-0123456789abcdef", "traceparent", traceparent)

	m := natstest.Receive(t, dead, "dead letter")
	if m.Subject != b.cfg.DeadLetterSubject("default") {
		t.Errorf("dead letter on %s, want %s", m.Subject, b.cfg.DeadLetterSubject("default"))
	}
	wantHeader(t, m.Header, "Content-Type", "application/problem+json")
	wantHeader(t, m.Header, natsingress.HeaderStatus, "422")
	wantHeader(t, m.Header, natsingress.HeaderCode, "INVALID_REQUEST")
	wantHeader(t, m.Header, natsingress.HeaderSubject, b.cfg.ReportSubject("default"))
	wantHeader(t, m.Header, natsingress.HeaderStream, b.cfg.StreamName("default"))
	wantHeader(t, m.Header, natsingress.HeaderSequence, strconv.FormatUint(ack.Sequence, 10))
	wantHeader(t, m.Header, natsingress.HeaderMessageID, "bad-1")
	wantHeader(t, m.Header, natsingress.HeaderReplyTo, inbox)
	wantHeader(t, m.Header, "traceparent", traceparent)
	if _, ok := m.Header["X-API-Key"]; ok {
		t.Error("the dead letter carries the message's X-API-Key header")
	}

	// The problem is POST /v1/errors' for the same body, but for its
	// instance (a request's path).
	status, want := b.post(t, body)
	if status != 422 {
		t.Fatalf("POST /v1/errors: %d %s", status, want)
	}
	if got, want := withoutInstance(t, m.Data), withoutInstance(t, want); got != want {
		t.Errorf("dead letter's problem\n%s\nwant POST /v1/errors'\n%s", got, want)
	}
	r := natstest.Receive(t, replies, "the problem on Triage-Reply-To")
	wantHeader(t, r.Header, natsingress.HeaderStatus, "422")
	if !bytes.Equal(r.Data, m.Data) {
		t.Errorf("Triage-Reply-To got %s, the dead letter %s", r.Data, m.Data)
	}
	b.waitAcked(t, ack)
	if recs := b.records(t, "default"); len(recs) != 0 {
		t.Errorf("records %+v of an invalid report", recs)
	}
	// Stored on the dead-letter stream, once.
	s, err := b.js.Stream(t.Context(), b.cfg.Stream+"_DEADLETTER")
	if err != nil {
		t.Fatal(err)
	}
	if info, err := s.Info(t.Context()); err != nil || info.State.Msgs != 1 {
		t.Errorf("dead-letter stream: %v, %+v; want 1 message", err, info)
	}

	// Others refused for good: a body that is not JSON (400), a
	// Triage-Reply-To the consumer may not publish to (400; the subject
	// would have deleted the stream).
	for _, c := range []struct {
		name, tenant string
		body         []byte
		header       []string
		status, code string
	}{
		{"NotJSON", "default", []byte("Query timed out"), nil, "400", "INVALID_REQUEST"},
		{"ReplyToJetStreamAPI", "default", golden(t, "db_timeout.json"),
			[]string{natsingress.HeaderReplyTo, "$JS.API.STREAM.DELETE." + b.cfg.StreamName("default")}, "400", "INVALID_REQUEST"},
		{"ReplyToWildcard", "default", golden(t, "db_timeout.json"), []string{natsingress.HeaderReplyTo, "feedback.>"}, "400", "INVALID_REQUEST"},
		{"ReplyToInbox", "default", golden(t, "db_timeout.json"), []string{natsingress.HeaderReplyTo, "_INBOX.abc"}, "400", "INVALID_REQUEST"},
	} {
		ack := b.publish(t, c.tenant, c.body, c.header...)
		m := natstest.Receive(t, dead, "dead letter of "+c.name)
		if m.Subject != b.cfg.DeadLetterSubject(c.tenant) {
			t.Errorf("%s: dead letter on %s", c.name, m.Subject)
		}
		wantHeader(t, m.Header, natsingress.HeaderStatus, c.status)
		wantHeader(t, m.Header, natsingress.HeaderCode, c.code)
		var p struct {
			Code   string `json:"code"`
			Status int    `json:"status"`
		}
		if err := json.Unmarshal(m.Data, &p); err != nil || p.Code != c.code || strconv.Itoa(p.Status) != c.status {
			t.Errorf("%s: problem %s", c.name, m.Data)
		}
		b.waitAcked(t, ack)
	}
	if recs := b.records(t, "default"); len(recs) != 0 {
		t.Errorf("records %+v of refused reports", recs)
	}
	if _, err := b.js.Stream(t.Context(), b.cfg.StreamName("default")); err != nil {
		t.Errorf("the report stream: %v", err)
	}
}

func withoutInstance(t *testing.T, problem []byte) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(problem, &m); err != nil {
		t.Fatalf("%v: %s", err, problem)
	}
	delete(m, "instance")
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestTenancyWithAPIKeys: with API keys, a subject's tenant must be one
// the keys name: only they have a stream, so NATS itself refuses a
// report for another (no stream answers the publish) and nothing is
// recorded; a known tenant's report is that tenant's alone.
func TestTenancyWithAPIKeys(t *testing.T) {
	t.Parallel()
	b := setup(t, options{apiKeys: map[string]string{"acme-key-0123456789ab": "acme"}})
	onFeedback := b.bus.Listen(t, b.cfg.Feedback+".>")

	ack := b.publish(t, "acme", golden(t, "db_timeout.json"))
	m := natstest.Receive(t, onFeedback, "acme's feedback")
	if m.Subject != b.cfg.FeedbackSubject("acme") {
		t.Errorf("feedback on %s, want %s", m.Subject, b.cfg.FeedbackSubject("acme"))
	}
	wantHeader(t, m.Header, natsingress.HeaderStatus, "201")
	wantHeader(t, m.Header, natsingress.HeaderStream, b.cfg.StreamName("acme"))
	b.waitAcked(t, ack)
	if n := len(b.records(t, "acme")); n != 1 {
		t.Errorf("acme has %d records, want 1", n)
	}

	for _, tenant := range []string{"default", "globex"} {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		_, err := b.js.Publish(ctx, b.cfg.ReportSubject(tenant), golden(t, "db_timeout.json"))
		cancel()
		if !errors.Is(err, jetstream.ErrNoStreamResponse) {
			t.Errorf("a report for %s: %v, want NATS's refusal (no stream)", tenant, err)
		}
		if n := len(b.records(t, tenant)); n != 0 {
			t.Errorf("%s has %d records", tenant, n)
		}
	}
	none(t, onFeedback, 100*time.Millisecond, "feedback of a refused report")
}

// TestSameReportTwiceOneRecord: a report published twice is one record,
// whether the copies carry no Nats-Msg-Id (the report's own identity
// makes the second a duplicate: 200, the same error_id), the same one
// past JetStream's duplicate window (the key's stored answer again), or
// the same one within it (JetStream keeps one).
func TestSameReportTwiceOneRecord(t *testing.T) {
	t.Parallel()
	window := 200 * time.Millisecond
	b := setup(t, options{stream: &jetstream.StreamConfig{Duplicates: window}})
	onFeedback := b.bus.Listen(t, b.cfg.FeedbackSubject("default"))

	// No Nats-Msg-Id.
	b.publish(t, "default", golden(t, "db_timeout.json"))
	ack := b.publish(t, "default", golden(t, "db_timeout.json"))
	first, second := natstest.Receive(t, onFeedback, "first feedback"), natstest.Receive(t, onFeedback, "second feedback")
	// The two are handled side by side: the one that commits first is the
	// 201, and its feedback may be published after the other's.
	if first.Header.Get(natsingress.HeaderStatus) == "200" {
		first, second = second, first
	}
	wantHeader(t, first.Header, natsingress.HeaderStatus, "201")
	wantHeader(t, second.Header, natsingress.HeaderStatus, "200")
	if f1, f2 := feedback(t, first), feedback(t, second); f1.ErrorID != f2.ErrorID || !f2.Duplicate {
		t.Errorf("second feedback %+v, want a duplicate of %s", f2, f1.ErrorID)
	}
	b.waitAcked(t, ack)

	// The same Nats-Msg-Id, past the duplicate window: both are stored,
	// the second answered as the first was.
	a1 := b.publish(t, "default", golden(t, "chart_incompatible.json"), natsingress.HeaderMsgID, "chart-1")
	first = natstest.Receive(t, onFeedback, "feedback of chart-1")
	time.Sleep(2 * window)
	a2 := b.publish(t, "default", golden(t, "chart_incompatible.json"), natsingress.HeaderMsgID, "chart-1")
	if a2.Duplicate || a2.Sequence == a1.Sequence {
		t.Fatalf("JetStream dropped the copy past its duplicate window: %+v", a2)
	}
	second = natstest.Receive(t, onFeedback, "feedback of chart-1's copy")
	wantHeader(t, second.Header, natsingress.HeaderReplayed, "true")
	if second.Header.Get(natsingress.HeaderStatus) != "201" || !bytes.Equal(first.Data, second.Data) {
		t.Errorf("copy answered %v %s, want the first answer again: %s", second.Header, second.Data, first.Data)
	}
	b.waitAcked(t, a2)

	// Within the window JetStream keeps one.
	a1 = b.publish(t, "default", golden(t, "schema_missing.json"), natsingress.HeaderMsgID, "schema-1")
	a2 = b.publish(t, "default", golden(t, "schema_missing.json"), natsingress.HeaderMsgID, "schema-1")
	if !a2.Duplicate || a2.Sequence != a1.Sequence {
		t.Errorf("JetStream kept a copy within its duplicate window: %+v", a2)
	}
	natstest.Receive(t, onFeedback, "feedback of schema-1")
	b.waitAcked(t, a1)
	none(t, onFeedback, 300*time.Millisecond, "feedback of schema-1's copy")

	recs := b.records(t, "default")
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3: %+v", len(recs), recs)
	}
	for _, r := range recs {
		if r.Count != 1 {
			t.Errorf("record %s has %d occurrences, want 1", r.ErrorID, r.Count)
		}
	}
}

// TestReplyConfinedToTenant: a message's Triage-Reply-To is answered
// only when it is its tenant's feedback subject or under it; another
// tenant's feedback subject (a nested tenant's too: acme.eu's under
// acme's), an inbox, or anything else is a 400 dead letter of the sender,
// and nothing reaches the other tenant.
func TestReplyConfinedToTenant(t *testing.T) {
	t.Parallel()
	b := setup(t, options{apiKeys: map[string]string{"ta-key-0123456789abcdef": "ta", "tb-key-0123456789abcdef": "tb",
		"ta-eu-key-0123456789abcd": "ta.eu"}})
	dead := b.bus.Listen(t, b.cfg.DeadLetter+".>")
	others := b.bus.Listen(t, b.cfg.FeedbackSubject("tb")+".>")
	othersExact := b.bus.Listen(t, b.cfg.FeedbackSubject("tb"))
	nested := b.bus.Listen(t, b.cfg.FeedbackSubject("ta.eu")+".>")
	inboxes := b.bus.Listen(t, "_INBOX.ta")
	for i, reply := range []string{b.cfg.FeedbackSubject("tb"), b.cfg.FeedbackSubject("tb") + ".inbox",
		b.cfg.FeedbackSubject("ta.eu") + ".inbox", "_INBOX.ta", b.cfg.Feedback, "elsewhere.ta"} {
		ack := b.publish(t, "ta", report(t, "q_reply_"+strconv.Itoa(i)), natsingress.HeaderReplyTo, reply)
		m := natstest.Receive(t, dead, "the dead letter of a reply to "+reply)
		if m.Subject != b.cfg.DeadLetterSubject("ta") {
			t.Errorf("reply to %s: dead letter on %s", reply, m.Subject)
		}
		wantHeader(t, m.Header, natsingress.HeaderStatus, "400")
		wantHeader(t, m.Header, natsingress.HeaderCode, "INVALID_REQUEST")
		b.waitAcked(t, ack)
	}
	none(t, others, 0, "an answer on tb's subjects")
	none(t, othersExact, 0, "an answer on tb's feedback subject")
	none(t, nested, 0, "an answer on ta.eu's subjects")
	none(t, inboxes, 0, "an answer on an inbox")
	if n := len(b.records(t, "ta")); n != 0 {
		t.Errorf("ta has %d records of refused reports", n)
	}

	// Its own feedback subject, and subjects under it, are answered.
	for _, reply := range []string{b.cfg.FeedbackSubject("ta") + ".inbox", b.cfg.FeedbackSubject("ta.eu") + ".inbox"} {
		tenant := strings.TrimPrefix(strings.TrimSuffix(reply, ".inbox"), b.cfg.Feedback+".")
		replies := b.bus.Listen(t, reply)
		ack := b.publish(t, tenant, report(t, "q_reply_own_"+tenant), natsingress.HeaderReplyTo, reply)
		wantHeader(t, natstest.Receive(t, replies, "feedback on "+reply).Header, natsingress.HeaderStatus, "201")
		b.waitAcked(t, ack)
	}
	none(t, others, 100*time.Millisecond, "an answer on tb's subjects")
}

// TestMsgIDIsTheTenants: JetStream drops a message whose Nats-Msg-Id its
// stream saw within its duplicate window; tenant ta publishing tb's id
// first must not have tb's own report dropped. Each tenant's reports
// have a stream of their own, so the ids are each tenant's: both are
// stored, recorded and answered, each on its tenant's subject.
func TestMsgIDIsTheTenants(t *testing.T) {
	t.Parallel()
	b := setup(t, options{apiKeys: map[string]string{"ta-key-0123456789abcdef": "ta", "tb-key-0123456789abcdef": "tb"}})
	onA, onB := b.bus.Listen(t, b.cfg.FeedbackSubject("ta")), b.bus.Listen(t, b.cfg.FeedbackSubject("tb"))
	const id = "q_456-attempt-963424"
	ackA := b.publish(t, "ta", report(t, "q_ta_456"), natsingress.HeaderMsgID, id)
	ackB := b.publish(t, "tb", report(t, "q_tb_456"), natsingress.HeaderMsgID, id)
	if ackB.Duplicate {
		t.Fatalf("tb's report was taken for a duplicate of ta's (%+v, %+v): never recorded", ackA, ackB)
	}
	fa, fb := feedback(t, natstest.Receive(t, onA, "ta's feedback")), feedback(t, natstest.Receive(t, onB, "tb's feedback"))
	if fa.QueryID != "q_ta_456" || fb.QueryID != "q_tb_456" || fb.Duplicate {
		t.Errorf("feedback ta %+v, tb %+v", fa, fb)
	}
	b.waitAcked(t, ackA)
	b.waitAcked(t, ackB)
	if ra, rb := b.records(t, "ta"), b.records(t, "tb"); len(ra) != 1 || len(rb) != 1 || rb[0].QueryID != "q_tb_456" {
		t.Errorf("records ta %+v, tb %+v; want one each", ra, rb)
	}
	// Within a tenant, the id still deduplicates, at JetStream first.
	again := b.publish(t, "tb", report(t, "q_tb_456"), natsingress.HeaderMsgID, id)
	if !again.Duplicate || again.Stream != ackB.Stream || again.Sequence != ackB.Sequence {
		t.Errorf("tb's copy: %+v, want JetStream's duplicate of %+v", again, ackB)
	}
	none(t, onB, 200*time.Millisecond, "feedback of tb's copy")
}

// TestSharedStreamRetired: the earlier layout's one stream of every
// tenant's reports gives up the report subjects on start (so that each
// tenant's stream can take its own), keeps its messages, and the
// consumer still handles those; new reports go to the tenant's stream.
func TestSharedStreamRetired(t *testing.T) {
	t.Parallel()
	var old *jetstream.PubAck
	b := setup(t, options{shared: &jetstream.StreamConfig{}, before: func(bus *natstest.Bus) {
		old = bus.Publish(t, bus.Subject+".default", report(t, "q_shared_old"))
	}})
	onFeedback := b.bus.Listen(t, b.cfg.FeedbackSubject("default"))
	if old.Stream != b.cfg.Stream {
		t.Fatalf("the report before the start went to %s, want the shared stream %s", old.Stream, b.cfg.Stream)
	}
	s, err := b.js.Stream(t.Context(), b.cfg.Stream)
	if err != nil {
		t.Fatal(err)
	}
	for _, subject := range s.CachedInfo().Config.Subjects {
		if strings.HasPrefix(subject, b.cfg.Subject) {
			t.Errorf("the shared stream still takes %s", subject)
		}
	}
	ack := b.publish(t, "default", report(t, "q_shared_new"))
	if ack.Stream != b.cfg.StreamName("default") {
		t.Errorf("a new report went to %s, want %s", ack.Stream, b.cfg.StreamName("default"))
	}
	got := map[string]string{}
	for range 2 {
		m := natstest.Receive(t, onFeedback, "feedback")
		wantHeader(t, m.Header, natsingress.HeaderStatus, "201")
		got[feedback(t, m).QueryID] = m.Header.Get(natsingress.HeaderStream)
	}
	if got["q_shared_old"] != b.cfg.Stream || got["q_shared_new"] != b.cfg.StreamName("default") {
		t.Errorf("answered %v, want q_shared_old from %s and q_shared_new from %s", got, b.cfg.Stream, b.cfg.StreamName("default"))
	}
	b.waitAcked(t, old)
	b.waitAcked(t, ack)
	if n := len(b.records(t, "default")); n != 2 {
		t.Errorf("%d records, want 2", n)
	}
	if err := b.in.Ready(t.Context()); err != nil {
		t.Errorf("not ready: %v", err)
	}
	// Deleted once drained, it is not made again; the consumer stays ready.
	if err := b.js.DeleteStream(t.Context(), b.cfg.Stream); err != nil {
		t.Fatal(err)
	}
	time.Sleep(pullHeartbeatWait)
	if err := b.in.Ready(t.Context()); err != nil {
		t.Errorf("not ready once the shared stream is deleted: %v", err)
	}
	if _, err := b.js.Stream(t.Context(), b.cfg.Stream); !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Errorf("the shared stream after its deletion: %v", err)
	}
}

// pullHeartbeatWait is long enough for a consumer to miss two of NATS's
// heartbeats (3 s apart) and notice its stream is gone.
const pullHeartbeatWait = 8 * time.Second
