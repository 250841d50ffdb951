package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// natsCrossTenant: on NATS JetStream (TRIAGE_TEST_NATS; skipped without
// it), `triage serve --nats` with tenants A and B, on streams and
// subjects of the scenario's own. A tries three things against B:
//
//   - its reports name B's feedback subjects (and others: an inbox, a
//     JetStream API subject, an application's) as Triage-Reply-To: none
//     may reach them, each is A's own dead letter;
//   - it publishes, first, the Nats-Msg-Id values B is about to use: B's
//     reports with them must all be recorded (a publish JetStream
//     acknowledged and the service never recorded is lost);
//   - it floods its subject with reports, then B publishes a few: B's
//     time from publish to feedback beside the flood is the figure.
func natsCrossTenant(ctx context.Context, c config) (r row) {
	url := os.Getenv("TRIAGE_TEST_NATS")
	if url == "" {
		r.skipped = "TRIAGE_TEST_NATS is not set (a NATS server with JetStream: nats://127.0.0.1:4222)"
		return r
	}
	id := make([]byte, 5)
	_, _ = rand.Read(id)
	name := "campaign" + hex.EncodeToString(id)
	stream, subject, feedback, dead := strings.ToUpper(name), name+".reports", name+".feedback", name+".deadletter"
	nc, err := nats.Connect(url)
	if err != nil {
		r.fail("NATS: %v", err)
		return r
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		r.fail("%v", err)
		return r
	}
	defer deleteStreams(js, stream)
	p, err := start(ctx, c, filepath.Join(c.dir, "natstenant.db"), filepath.Join(c.dir, "natstenant.log"),
		"--nats", url, "--nats-stream", stream, "--nats-subject", subject, "--nats-feedback", feedback, "--nats-dead-letter", dead)
	if err != nil {
		r.fail("%v", err)
		return r
	}
	defer p.stop()
	const a, b = "tenant-a", "tenant-b"
	var mu sync.Mutex
	got := map[string][]*nats.Msg{} // by subject
	for _, s := range []string{feedback + ".>", dead + ".>", "_INBOX.campaign.>", "orders.>"} {
		sub, err := nc.Subscribe(s, func(m *nats.Msg) {
			mu.Lock()
			got[m.Subject] = append(got[m.Subject], m)
			mu.Unlock()
		})
		if err != nil {
			r.fail("%v", err)
			return r
		}
		defer func() { _ = sub.Unsubscribe() }()
	}
	if err := nc.Flush(); err != nil {
		r.fail("%v", err)
		return r
	}
	count := func(match func(subject string) bool) int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for s, ms := range got {
			if match(s) {
				n += len(ms)
			}
		}
		return n
	}
	publish := func(tenant, query string, header ...string) (*jetstream.PubAck, error) {
		m := nats.NewMsg(subject + "." + tenant)
		m.Data = report(query, "")
		for i := 0; i+1 < len(header); i += 2 {
			m.Header.Set(header[i], header[i+1])
		}
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return js.PublishMsg(pctx, m)
	}

	// 1. Replies on B's subjects and others.
	replies := []string{feedback + "." + b, feedback + "." + b + ".inbox", "_INBOX.campaign.x", "orders.created", "$JS.API.STREAM.DELETE." + stream + "-" + b}
	for i, to := range replies {
		if _, err := publish(a, fmt.Sprintf("q_nats_reply_%d_%d", runID, i), "Triage-Reply-To", to); err != nil {
			r.fail("A's report replying to %s: %v", to, err)
			return r
		}
		r.bad++
	}
	// 2. A takes B's ids first.
	ids := c.n(20, 5)
	for i := range ids {
		if _, err := publish(a, fmt.Sprintf("q_nats_squat_a_%d_%d", runID, i), "Nats-Msg-Id", fmt.Sprintf("q_456-attempt-%d-%d", runID, i)); err != nil {
			r.fail("A's report: %v", err)
			return r
		}
	}
	var bAcked []string // B's query ids JetStream acknowledged
	duplicates := 0
	for i := range ids {
		q := fmt.Sprintf("q_nats_squat_b_%d_%d", runID, i)
		ack, err := publish(b, q, "Nats-Msg-Id", fmt.Sprintf("q_456-attempt-%d-%d", runID, i))
		if err != nil {
			r.fail("B's report: %v", err)
			return r
		}
		if ack.Duplicate {
			duplicates++
		}
		bAcked = append(bAcked, q)
	}
	hasFeedback := func(q string) bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.ContainsFunc(got[feedback+"."+b], func(m *nats.Msg) bool { return queryOf(m.Data) == q })
	}
	// 3. A's flood, then B's reports beside it.
	flood := c.n(400, 40)
	for i := range flood {
		if _, err := publish(a, fmt.Sprintf("q_nats_flood_%d_%d", runID, i)); err != nil {
			r.fail("A's flood: %v", err)
			return r
		}
	}
	bLate := &latencies{}
	for i := range c.n(10, 3) {
		q := fmt.Sprintf("q_nats_beside_%d_%d", runID, i)
		t0 := time.Now()
		if _, err := publish(b, q); err != nil {
			r.fail("B's report: %v", err)
			return r
		}
		bAcked = append(bAcked, q)
		ok := waitFor(ctx, 60*time.Second, func() bool { return hasFeedback(q) })
		bLate.add(time.Since(t0), ok, "no feedback within 60 s")
	}

	// What B's subscribers saw, and what B's records hold.
	waitFor(ctx, 60*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(missing(got[feedback+"."+b], bAcked)) == 0
	})
	time.Sleep(time.Second) // any stray answer
	mu.Lock()
	lost := missing(got[feedback+"."+b], bAcked)
	mu.Unlock()
	recorded := recordedQueries(ctx, p.base, keyB)
	for _, q := range lost {
		if !recorded[q] {
			r.lost++
		}
	}
	onB := count(func(s string) bool { return s != feedback+"."+b && strings.HasPrefix(s, feedback+"."+b) })
	stray := count(func(s string) bool { return strings.HasPrefix(s, "_INBOX.campaign") || strings.HasPrefix(s, "orders.") })
	aDead := count(func(s string) bool { return s == dead+"."+a })
	onBFeedback := 0
	mu.Lock()
	for _, m := range got[feedback+"."+b] {
		if !slices.Contains(bAcked, queryOf(m.Data)) {
			onBFeedback++ // an answer to a report of A's
		}
	}
	mu.Unlock()
	r.load = bLate.summary("B's reports answered beside A's flood of " + fmt.Sprint(flood) + ": publish to feedback")
	r.note("A's reports naming B's subjects (and an inbox, an application's subject, the JetStream API) as Triage-Reply-To: %d answers reached B's subjects, %d others; %d dead letters of A's; A published %d of B's Nats-Msg-Id values first: %d of B's reports with them JetStream took for duplicates, %d acknowledged reports of B's never recorded",
		onB+onBFeedback, stray, aDead, ids, duplicates, r.lost)
	if onB+onBFeedback+stray > 0 {
		r.fail("%d of A's answers reached another's subject", onB+onBFeedback+stray)
	}
	if aDead < len(replies) {
		r.fail("%d dead letters for A's %d reports with a forbidden Triage-Reply-To", aDead, len(replies))
	}
	if bLate.bad > 0 {
		r.fail("B's reports beside A's flood: %s", bLate.first)
	}
	return r
}

// missing returns the queries of want no feedback in msgs answers.
func missing(msgs []*nats.Msg, want []string) []string {
	seen := map[string]bool{}
	for _, m := range msgs {
		seen[queryOf(m.Data)] = true
	}
	var out []string
	for _, q := range want {
		if !seen[q] {
			out = append(out, q)
		}
	}
	return out
}

// queryOf is a feedback's query_id.
func queryOf(feedback []byte) string {
	var fb struct {
		QueryID string `json:"query_id"`
	}
	_ = json.Unmarshal(feedback, &fb)
	return fb.QueryID
}

// recordedQueries lists the query ids of the tenant's records.
func recordedQueries(ctx context.Context, base, key string) map[string]bool {
	out := map[string]bool{}
	a := do(ctx, "GET", base+"/v1/errors?limit=500", key, nil, nil)
	var page struct {
		Records []struct {
			QueryID string `json:"query_id"`
		} `json:"records"`
	}
	if json.Unmarshal(a.body, &page) == nil {
		for _, rec := range page.Records {
			out[rec.QueryID] = true
		}
	}
	return out
}

// waitFor polls cond every 20 ms until it holds or within has passed.
func waitFor(ctx context.Context, within time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// deleteStreams deletes the streams named prefix, prefix-…, prefix_….
func deleteStreams(js jetstream.JetStream, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	names, ours := js.StreamNames(ctx), []string{}
	for s := range names.Name() {
		if s == prefix || strings.HasPrefix(s, prefix+"-") || strings.HasPrefix(s, prefix+"_") {
			ours = append(ours, s)
		}
	}
	for _, s := range ours {
		if err := js.DeleteStream(ctx, s); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
			fmt.Fprintf(os.Stderr, "campaign: deleting the stream %s: %v\n", s, err)
		}
	}
}
