package natstest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Wait is how long Receive and Eventually wait.
const Wait = 30 * time.Second

// URL is the NATS server's URL, from TRIAGE_TEST_NATS; the test is
// skipped without it.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("TRIAGE_TEST_NATS")
	if u == "" {
		t.Skip("TRIAGE_TEST_NATS is not set: this test needs a NATS server with JetStream " +
			"(nats-server -js; TRIAGE_TEST_NATS=nats://127.0.0.1:4222)")
	}
	return u
}

// Bus is a test's names on the server and its connection to it.
type Bus struct {
	URL        string
	Stream     string // the reports' streams' prefix: Stream, Stream+"-…" and Stream+"_DEADLETTER" are deleted
	Subject    string // the reports' subject prefix
	Feedback   string
	DeadLetter string
	NC         *nats.Conn
	JS         jetstream.JetStream
}

// New connects to url (TRIAGE_TEST_NATS's server when empty) and names
// the test's stream and subjects after prefix and a random suffix.
func New(t testing.TB, url, prefix string) *Bus {
	t.Helper()
	if url == "" {
		url = URL(t)
	}
	id := make([]byte, 6)
	_, _ = rand.Read(id)
	name := prefix + hex.EncodeToString(id)
	b := &Bus{URL: url, Stream: "TEST_" + strings.ToUpper(name), Subject: name + ".reports",
		Feedback: name + ".feedback", DeadLetter: name + ".deadletter"}
	var err error
	if b.NC, err = nats.Connect(url); err != nil {
		t.Fatal(err)
	}
	if b.JS, err = jetstream.New(b.NC); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		names, ours := b.JS.StreamNames(ctx), []string{}
		for s := range names.Name() { // all listed before any is deleted: the list is paged
			if s == b.Stream || s == b.Stream+"_DEADLETTER" || strings.HasPrefix(s, b.Stream+"-") {
				ours = append(ours, s)
			}
		}
		if err := names.Err(); err != nil {
			t.Errorf("listing the streams: %v", err)
		}
		for _, s := range ours {
			if err := b.JS.DeleteStream(ctx, s); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
				t.Errorf("deleting the stream %s: %v", s, err)
			}
		}
		b.NC.Close()
	})
	return b
}

// Listen subscribes to subject, before anything is published to it.
func (b *Bus) Listen(t testing.TB, subject string) chan *nats.Msg {
	t.Helper()
	ch := make(chan *nats.Msg, 64)
	sub, err := b.NC.ChanSubscribe(subject, ch)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.NC.Flush(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	return ch
}

// Publish stores a message on the stream whose subjects take subject,
// with the headers given as name, value pairs.
func (b *Bus) Publish(t testing.TB, subject string, body []byte, header ...string) *jetstream.PubAck {
	t.Helper()
	m := &nats.Msg{Subject: subject, Data: body, Header: nats.Header{}}
	for i := 0; i+1 < len(header); i += 2 {
		m.Header.Add(header[i], header[i+1])
	}
	ack, err := b.JS.PublishMsg(t.Context(), m)
	if err != nil {
		t.Fatal(err)
	}
	return ack
}

// Consumer returns the state of the durable consumer of stream.
func (b *Bus) Consumer(t testing.TB, stream, durable string) *jetstream.ConsumerInfo {
	t.Helper()
	c, err := b.JS.Consumer(t.Context(), stream, durable)
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// Receive returns the next message of ch, or fails the test after Wait.
func Receive(t testing.TB, ch chan *nats.Msg, what string) *nats.Msg {
	t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(Wait):
		t.Fatalf("no %s within %v", what, Wait)
	}
	return nil
}

// Eventually waits until cond holds, failing the test after Wait.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(Wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, Wait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
