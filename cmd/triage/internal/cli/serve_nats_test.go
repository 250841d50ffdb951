package cli_test

import (
	"database/sql"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/triage-go/triage/internal/testkit/natstest"

	_ "modernc.org/sqlite" // database/sql's "sqlite", to hold the service's database locked
)

// flags are serve's NATS flags for the bus, with the ack wait given.
func flags(b *natstest.Bus, ackWait string) []string {
	return []string{"--nats", b.URL, "--nats-stream", b.Stream, "--nats-subject", b.Subject,
		"--nats-feedback", b.Feedback, "--nats-dead-letter", b.DeadLetter, "--nats-ack-wait", ackWait}
}

// publish stores a report for tenant on the bus's stream, with a
// Nats-Msg-Id when msgID is not empty.
func publish(t *testing.T, b *natstest.Bus, tenant string, body []byte, msgID string) uint64 {
	t.Helper()
	var header []string
	if msgID != "" {
		header = []string{"Nats-Msg-Id", msgID}
	}
	return b.Publish(t, b.Subject+"."+tenant, body, header...).Sequence
}

// TestServeNATS: `triage serve` with TRIAGE_NATS set (as --nats) takes a
// report published to the bus, answers it on the feedback subject and
// records it as the HTTP API does; /readyz counts the consumer.
func TestServeNATS(t *testing.T) {
	bus := natstest.New(t, "", "cli")
	t.Setenv("TRIAGE_API_KEYS", "")
	t.Setenv("TRIAGE_NATS", bus.URL)
	flags := flags(bus, "30s")[2:] // all but --nats: the environment's
	svc := startServe(t, append([]string{"--db", filepath.Join(t.TempDir(), "triage.db")}, flags...)...)
	onFeedback := bus.Listen(t, bus.Feedback+".default")
	seq := publish(t, bus, "default", goldenFile(t, "db_timeout.json"), "")
	m := natstest.Receive(t, onFeedback, "feedback")
	if m.Header.Get("Triage-Status") != "201" {
		t.Fatalf("feedback %v %s", m.Header, m.Data)
	}
	var fb struct {
		ErrorID string `json:"error_id"`
	}
	if err := json.Unmarshal(m.Data, &fb); err != nil {
		t.Fatal(err)
	}
	natstest.Eventually(t, "the message acknowledged", func() bool { return bus.Consumer(t, bus.Stream+"-default", "triage").AckFloor.Stream >= seq })
	if r := call(t, "GET", svc.base+"/v1/errors/"+fb.ErrorID, nil); r.status != 200 || r.field(t, "occurrence_count") != 1.0 {
		t.Errorf("the record: %d %s", r.status, r.body)
	}
	if r := call(t, "POST", svc.base+"/v1/errors", goldenFile(t, "db_timeout.json")); r.status != 200 || r.field(t, "error_id") != fb.ErrorID {
		t.Errorf("the same report over HTTP: %d %s, want a duplicate of %s", r.status, r.body, fb.ErrorID)
	}
	if r := call(t, "GET", svc.base+"/readyz", nil); r.status != 200 {
		t.Errorf("/readyz: %d %s", r.status, r.body)
	}
	if code := svc.stop(); code != 0 {
		t.Errorf("exit %d; stderr:\n%s", code, svc.stderr.String())
	}
}

// TestServeNATSUnreachable: a NATS server that cannot be reached stops
// serve at once, with a message that keeps the URL's password out.
func TestServeNATSUnreachable(t *testing.T) {
	t.Setenv("TRIAGE_API_KEYS", "")
	r := run(t, "", "serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "triage.db"),
		"--nats", "nats://triage:hunter2-secret@127.0.0.1:1")
	if r.code == 0 || !strings.Contains(r.stderr, "NATS") || strings.Contains(r.stderr+r.stdout, "hunter2") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	t.Logf("stderr: %s", r.stderr)
}

// TestServeNATSKill9: a `triage serve` killed with SIGKILL between taking
// a message and committing its report leaves the message unacknowledged;
// after a restart NATS delivers it again and the report is handled once:
// one record, one occurrence, one feedback, which is the first answer
// (201), not a replay.
func TestServeNATSKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binary and kills it")
	}
	bus := natstest.New(t, "", "cli")
	dir := t.TempDir()
	bin := filepath.Join(dir, "triage")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/triage-go/triage/cmd/triage").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dbPath := filepath.Join(dir, "triage.db")
	start := func() (*exec.Cmd, string) {
		return startBinary(t, bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--db", dbPath}, flags(bus, "2s")...)...)
	}
	cmd, _ := start()

	// Another process holds SQLite's write lock: the service's first
	// write for the report waits on it (its busy timeout is 10s).
	db, err := sql.Open("sqlite", dbPath+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	lock, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	onFeedback := bus.Listen(t, bus.Feedback+".default")
	seq := publish(t, bus, "default", goldenFile(t, "db_timeout.json"), "kill-9-report")
	natstest.Eventually(t, "the message in the service's hands", func() bool {
		info := bus.Consumer(t, bus.Stream+"-default", "triage")
		return info.Delivered.Stream >= seq && info.NumAckPending == 1
	})
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if _, err := lock.ExecContext(t.Context(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	lock.Close()
	if info := bus.Consumer(t, bus.Stream+"-default", "triage"); info.AckFloor.Stream >= seq {
		t.Fatalf("the killed service acknowledged the message: ack floor %d", info.AckFloor.Stream)
	}
	select {
	case m := <-onFeedback:
		t.Fatalf("feedback before the commit: %v %s", m.Header, m.Data)
	default:
	}

	cmd, base := start()
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	m := natstest.Receive(t, onFeedback, "feedback after the restart")
	delivered, _ := strconv.Atoi(m.Header.Get("Triage-Delivered"))
	if m.Header.Get("Triage-Status") != "201" || m.Header.Get("Idempotent-Replayed") != "" || delivered < 2 {
		t.Errorf("feedback %v, want the first answer (201, no replay) of a redelivery", m.Header)
	}
	natstest.Eventually(t, "the message acknowledged", func() bool {
		info := bus.Consumer(t, bus.Stream+"-default", "triage")
		return info.AckFloor.Stream >= seq && info.NumAckPending == 0
	})
	select {
	case m := <-onFeedback:
		t.Errorf("a second feedback: %v %s", m.Header, m.Data)
	case <-time.After(500 * time.Millisecond):
	}
	var list struct {
		Records []struct {
			ErrorID string `json:"error_id"`
			Count   int    `json:"occurrence_count"`
		} `json:"records"`
	}
	r := call(t, "GET", base+"/v1/errors", nil)
	if err := json.Unmarshal(r.body, &list); err != nil {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if len(list.Records) != 1 || list.Records[0].Count != 1 {
		t.Errorf("records %s, want one with one occurrence", r.body)
	}
	t.Logf("delivered %d times; records %s", delivered, r.body)
}
