package natsingress_test

import (
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/triage-go/triage/adapter/natsingress"
	"github.com/triage-go/triage/internal/testkit/natstest"
)

// natsServer is a nats-server of the test's own, which it may stop and
// start again (on the same port and storage).
type natsServer struct {
	t    *testing.T
	bin  string
	port int
	dir  string
	cmd  *exec.Cmd
}

// startNATSServer starts a nats-server with JetStream on a free port. The
// binary is nats-server on PATH or /usr/sbin/nats-server (Debian's); the
// test skips without one, and without TRIAGE_TEST_NATS, which says NATS
// tests are wanted.
func startNATSServer(t *testing.T) *natsServer {
	t.Helper()
	natstest.URL(t)
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		if bin, err = exec.LookPath("/usr/sbin/nats-server"); err != nil {
			t.Skip("no nats-server binary (PATH, /usr/sbin): this test stops and restarts a NATS server of its own")
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s := &natsServer{t: t, bin: bin, port: port, dir: t.TempDir()}
	s.start()
	t.Cleanup(s.stop)
	return s
}

func (s *natsServer) url() string { return fmt.Sprintf("nats://127.0.0.1:%d", s.port) }

func (s *natsServer) start() {
	s.t.Helper()
	s.cmd = exec.Command(s.bin, "-a", "127.0.0.1", "-p", fmt.Sprint(s.port), "-js", "-sd", filepath.Join(s.dir, "js"),
		"-l", filepath.Join(s.dir, "nats-server.log"))
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	natstest.Eventually(s.t, "nats-server listening", func() bool {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", s.port), 100*time.Millisecond)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}

func (s *natsServer) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}

// TestNATSServerRestart: while the NATS server is down the consumer is
// not ready (/readyz says nats_down); once it is back, the consumer
// reconnects on its own, is ready again and takes reports.
func TestNATSServerRestart(t *testing.T) {
	t.Parallel()
	ns := startNATSServer(t)
	b := setup(t, options{url: ns.url()})
	if err := b.in.Ready(t.Context()); err != nil {
		t.Fatalf("ready at start: %v", err)
	}
	ns.stop()
	natstest.Eventually(t, "not ready with the server down", func() bool { return b.in.Ready(t.Context()) != nil })
	t.Logf("while down: %v", b.in.Ready(t.Context()))
	ns.start()
	natstest.Eventually(t, "ready with the server back", func() bool { return b.in.Ready(t.Context()) == nil })

	natstest.Eventually(t, "the test's own connection back", b.nc.IsConnected)
	onFeedback := b.bus.Listen(t, b.cfg.FeedbackSubject("default"))
	ack := b.publish(t, "default", golden(t, "db_timeout.json"))
	m := natstest.Receive(t, onFeedback, "feedback after the restart")
	wantHeader(t, m.Header, natsingress.HeaderStatus, "201")
	b.waitAcked(t, ack)
}
