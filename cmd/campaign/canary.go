package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The canaries: a secret of each kind (server/badbytes_test.go has the
// same), each of which must reach no one.
var canaries = []string{
	"sk-proj-Canary0123456789abcdefXYZ",        // an OpenAI-style key
	"eyJhbGciOiJIUzI1NiJ9",                     // a JWT's header…
	"eyJzdWIiOiJjYW5hcnkifQ",                   // …and claims
	"hunter2hunter2",                           // password=
	"AKIAIOSFODNN7CANARY0",                     // an AWS access key id
	"/srv/app/main.go",                         // a stack trace's file path
	"correct-horse-battery-staple-canary",      // a value under a secret's name
	"ghp_CanaryCanaryCanaryCanaryCanary012345", // a GitHub token, in a member's name
	"sk-ant-MessageCanary0123456789",           // a key in data.message
	"AKIAMESSAGECANARY012",                     // an AWS key in data.message
}

const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjYW5hcnkifQ.c2lnbmF0dXJlLWNhbmFyeQ"

// canaryContext holds every canary, at several depths, with members that
// are not secret.
const canaryContext = `,"context":{` +
	`"checkpoint_id":"run_7f3a","row_count":48000000,` +
	`"note":"upstream said: Authorization: Bearer ` + jwt + `",` +
	`"config":{"provider":"openai","api_key":"sk-proj-Canary0123456789abcdefXYZ","key_hint":"sk-proj-Canary0123456789abcdefXYZ"},` +
	`"dsn_log":"connect failed: password=hunter2hunter2 host=db",` +
	`"aws":["AKIAIOSFODNN7CANARY0",{"id":"AKIAIOSFODNN7CANARY0"}],` +
	`"trace":"panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/srv/app/main.go:42 +0x1d\n",` +
	`"frames":{"deep":[{"where":"main.run()\n\t/srv/app/main.go:42 +0x1d"}]},` +
	`"password":"correct-horse-battery-staple-canary",` +
	`"headers":{"Authorization":"Bearer ` + jwt + `"},` +
	`"seen":{"ghp_CanaryCanaryCanaryCanaryCanary012345":true}}`

// canaryMessage is a message carrying secrets.
const canaryMessage = "Query timed out after 30s (client sk-ant-MessageCanary0123456789, " +
	"aws AKIAMESSAGECANARY012, password=hunter2hunter2, Authorization: Bearer " + jwt + ")"

// secretCanary posts reports with the canaries in data.context and
// data.message (new ones, retries, replays under an Idempotency-Key, and
// refused ones) while a subscriber of the tenant's event stream listens,
// then looks for every canary in the answers, the stream, the record,
// the list, the process's log and the database's files.
func secretCanary(ctx context.Context, c config) (r row) {
	db := filepath.Join(c.dir, "canary.db")
	logFile := filepath.Join(c.dir, "canary.log")
	p, err := start(ctx, c, db, logFile)
	if err != nil {
		r.fail("%v", err)
		return r
	}
	stopped := false
	defer func() {
		if !stopped {
			p.stop()
		}
	}()
	closeEvents := listen(ctx, p.base+"/v1/events", keyA)
	time.Sleep(300 * time.Millisecond) // the subscription is in place

	surfaces := map[string]*bytes.Buffer{}
	seen := func(where string, b []byte) {
		if surfaces[where] == nil {
			surfaces[where] = &bytes.Buffer{}
		}
		surfaces[where].Write(b)
	}
	n := c.n(20, 3)
	var ids []string
	for i := range n {
		body := []byte(strings.Replace(string(report(fmt.Sprintf("q_canary_%d_%d", runID, i), canaryContext)),
			"Query timed out after 30s", canaryMessage, 1))
		key := map[string]string{"Idempotency-Key": fmt.Sprint("canary-", runID, "-", i)}
		a := do(ctx, "POST", p.base+"/v1/errors", keyA, body, key)
		if a.status != http.StatusCreated {
			r.fail("a canary report: %d %v %.200s", a.status, a.err, a.body)
			continue
		}
		seen("POST answers", a.body)
		var fb struct {
			ErrorID string `json:"error_id"`
		}
		_ = json.Unmarshal(a.body, &fb)
		ids = append(ids, fb.ErrorID)
		seen("POST answers", do(ctx, "POST", p.base+"/v1/errors", keyA, body, key).body) // a replay
		seen("POST answers", do(ctx, "POST", p.base+"/v1/errors", keyA, body, nil).body) // a duplicate
		// Refused: a bad timestamp, and invalid UTF-8 beside the secrets.
		seen("POST answers", do(ctx, "POST", p.base+"/v1/errors", keyA,
			bytes.Replace(body, []byte("2025-08-08T12:20:05Z"), []byte("not a time"), 1), nil).body)
		seen("POST answers", do(ctx, "POST", p.base+"/v1/errors", keyA,
			bytes.Replace(body, []byte(`"row_count"`), []byte("\"row\xff\""), 1), nil).body)
	}
	time.Sleep(500 * time.Millisecond)
	seen("SSE /v1/events", closeEvents())
	if !bytes.Contains(surfaces["SSE /v1/events"].Bytes(), []byte("feedback")) {
		r.fail("the event stream carried no feedback: %.300s", surfaces["SSE /v1/events"].Bytes())
	}
	for _, id := range ids {
		a := do(ctx, "GET", p.base+"/v1/errors/"+id, keyA, nil, nil)
		if a.status != http.StatusOK {
			r.fail("GET /v1/errors/%s: %d", id, a.status)
		}
		seen("GET record", a.body)
		seen("GET occurrences", do(ctx, "GET", p.base+"/v1/errors/"+id+"/occurrences", keyA, nil, nil).body)
	}
	seen("GET list", do(ctx, "GET", p.base+"/v1/errors?limit=500", keyA, nil, nil).body)
	p.stop()
	stopped = true
	logText, _ := os.ReadFile(logFile)
	seen("serve's log", logText)
	for _, suffix := range []string{"", "-wal"} {
		b, _ := os.ReadFile(db + suffix)
		seen("database files", b)
	}

	var where []string
	for name, b := range surfaces {
		for _, cn := range canaries {
			if bytes.Contains(b.Bytes(), []byte(cn)) {
				r.leaked++
				where = append(where, fmt.Sprintf("%s in %s", cn, name))
			}
		}
	}
	r.bad = 5 * n
	r.note("%d canaries × %d surfaces (POST answers incl. replays, duplicates and refusals; SSE; record; occurrences; list; log; database files), %d reports", len(canaries), len(surfaces), n)
	if len(where) > 0 {
		r.note("LEAKED: %s", strings.Join(where, ", "))
	}
	return r
}

// listen subscribes to an event stream; the function it returns ends the
// subscription and returns what was received.
func listen(ctx context.Context, target, key string) func() []byte {
	lctx, cancel := context.WithCancel(ctx)
	var mu sync.Mutex
	var buf bytes.Buffer
	done := make(chan struct{})
	req, _ := http.NewRequestWithContext(lctx, "GET", target, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	go func() {
		defer close(done)
		res, err := (&http.Client{}).Do(req)
		if err != nil {
			return
		}
		defer res.Body.Close()
		chunk := make([]byte, 32<<10)
		for {
			n, err := res.Body.Read(chunk)
			mu.Lock()
			buf.Write(chunk[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return func() []byte {
		cancel()
		<-done
		mu.Lock()
		defer mu.Unlock()
		return buf.Bytes()
	}
}
