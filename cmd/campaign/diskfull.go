package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// diskSize is the tmpfs's size: small, yet room for the database and
// SQLite's 8 MiB margin (sqlite.MinFree), under which /readyz says the
// disk is full.
const diskSize = "40m"

// diskFull puts the database on a 40 MiB tmpfs (mounting one needs root,
// or CAP_SYS_ADMIN: the scenario is skipped with the reason otherwise),
// fills the file system, and checks that /readyz answers 503, that
// reports are answered 201 or 503 (never 500) and the 503s not recorded;
// then frees the space and checks that /readyz answers 200 again, that
// each refused report's retry is 201 (not 409), and that every report
// acknowledged is there.
func diskFull(ctx context.Context, c config) (r row) {
	mnt := filepath.Join(c.dir, "disk")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		r.fail("%v", err)
		return r
	}
	if out, err := exec.CommandContext(ctx, "mount", "-t", "tmpfs", "-o", "size="+diskSize, "tmpfs", mnt).CombinedOutput(); err != nil {
		r.skipped = fmt.Sprintf("cannot mount a %s tmpfs (needs root or CAP_SYS_ADMIN): %v %s", diskSize, err, strings.TrimSpace(string(out)))
		return r
	}
	defer func() { _ = exec.Command("umount", "-l", mnt).Run() }()
	p, err := start(ctx, c, filepath.Join(mnt, "triage.db"), filepath.Join(c.dir, "diskfull.log"))
	if err != nil {
		r.fail("%v", err)
		return r
	}
	defer p.stop()
	ready := func() int { return do(ctx, "GET", p.base+"/readyz", "", nil, nil).status }
	waitReady := func(want int, within time.Duration) (time.Duration, bool) {
		t0 := time.Now()
		for time.Since(t0) < within {
			if ready() == want {
				return time.Since(t0), true
			}
			time.Sleep(200 * time.Millisecond)
		}
		return time.Since(t0), false
	}
	acked := map[string]string{} // query id → error id
	n := 0
	send := func(body []byte, qid string) answer {
		a := do(ctx, "POST", p.base+"/v1/errors", keyB, body, nil)
		if a.status == http.StatusCreated || a.status == http.StatusOK {
			var fb struct {
				ErrorID string `json:"error_id"`
			}
			_ = json.Unmarshal(a.body, &fb)
			acked[qid] = fb.ErrorID
		}
		return a
	}
	body := func(i int) ([]byte, string) {
		n++
		qid := fmt.Sprintf("q_disk_%d_%d", runID, i)
		return report(qid, ampContext(fmt.Sprint(i), 50)), qid
	}
	for i := range 5 {
		b, q := body(i)
		if a := send(b, q); a.status != http.StatusCreated {
			r.fail("before the disk filled: %d %v %.200s", a.status, a.err, a.body)
			return r
		}
	}
	if _, ok := waitReady(200, 10*time.Second); !ok {
		r.fail("/readyz was not 200 before the disk filled: %.300s", do(ctx, "GET", p.base+"/readyz", "", nil, nil).body)
	}

	filler := filepath.Join(mnt, "filler")
	if err := fill(filler); err != nil {
		r.fail("filling the disk: %v", err)
		return r
	}
	took, ok := waitReady(http.StatusServiceUnavailable, 15*time.Second)
	if !ok {
		r.fail("/readyz did not answer 503 on a full disk within %v", took.Round(100*time.Millisecond))
	}
	type refusal struct {
		qid  string
		body []byte
	}
	var refused []refusal
	statuses := map[int]int{}
	for i := range c.n(20, 5) {
		b, q := body(100 + i)
		a := send(b, q)
		statuses[a.status]++
		switch {
		case a.err != nil:
			r.fail("a report on a full disk: %v", a.err)
		case a.status == http.StatusServiceUnavailable:
			refused = append(refused, refusal{q, b})
		case a.status == http.StatusCreated:
		default:
			r.fail("a report on a full disk: %d %.200s", a.status, a.body)
		}
	}
	if len(refused) == 0 {
		r.fail("no report was refused on a full disk: %v", statuses)
	}
	_ = os.Remove(filler)
	back, ok := waitReady(http.StatusOK, 20*time.Second)
	if !ok {
		r.fail("/readyz did not answer 200 again within %v: %.300s", back.Round(100*time.Millisecond), do(ctx, "GET", p.base+"/readyz", "", nil, nil).body)
	} else {
		r.faults++
	}
	retried := map[int]int{}
	for _, f := range refused {
		a := send(f.body, f.qid)
		retried[a.status]++
		if a.status != http.StatusCreated {
			r.fail("a refused report's retry: %d %.200s", a.status, a.body)
		}
	}
	for q, id := range acked {
		if a := do(ctx, "GET", p.base+"/v1/errors/"+id, keyB, nil, nil); a.status != http.StatusOK {
			r.lost++
			r.note("lost %s (%s): %d", q, id, a.status)
		}
	}
	r.load = fmt.Sprintf("/readyz 503 %v after the disk filled, 200 %v after it was freed", took.Round(100*time.Millisecond), back.Round(100*time.Millisecond))
	r.note("%s tmpfs; %d reports of ~50 KB; on the full disk answered %v, the 503s retried once freed: %v; %d acknowledged, %d lost", diskSize, n, statuses, retried, len(acked), r.lost)
	return r
}

// fill writes a file until the file system is full.
func fill(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return nil
			}
			return err
		}
	}
}
