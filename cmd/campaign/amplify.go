package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ampMembers members of ~1,000 bytes each make a report's context of
// ~0.9 MB, within the 1 MiB body: the handler cuts each string past 1 KiB,
// so a big report is made of many members.
const ampMembers = 900

// ampContext is a context of members members of ~1,000 bytes.
func ampContext(seed string, members int) string {
	var b strings.Builder
	b.WriteString(`,"context":{`)
	v := strings.Repeat("<", 990) // json.Marshal writes each as six bytes
	for i := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"m%d_%s":"%s"`, i, seed, v)
	}
	b.WriteString("}")
	return b.String()
}

// amplification: tenant A fills records of ~1 MB reports and one record
// of many such occurrences, through the API; then 8 clients fetch the
// worst list page, that record and every page of its occurrences, again
// and again; tenant B posts reports throughout. The serve process's peak RSS
// (VmHWM, reset before the reads) is the figure.
func amplification(ctx context.Context, c config) (r row) {
	p, err := start(ctx, c, filepath.Join(c.dir, "amplify.db"), filepath.Join(c.dir, "amplify.log"))
	if err != nil {
		r.fail("%v", err)
		return r
	}
	defer p.stop()
	// Each ~0.9 MB report costs the handler ~3 s of CPU here (it redacts
	// every string): the tiny run's reports are a tenth of that.
	records, occurrences, members := c.n(6, 2), c.n(8, 3), min(c.n(ampMembers, 90), ampMembers)
	// B posts from the start: through A's filling (each big report costs
	// the handler seconds of CPU) and A's reads.
	bctx, bcancel := context.WithCancel(ctx)
	defer bcancel()
	b := tenantLoad(bctx, p.base, 4, "amp")
	t0 := time.Now()
	post := func(queryID, ts string) (string, error) {
		a := do(ctx, "POST", p.base+"/v1/errors", keyA, []byte(strings.Replace(string(report(queryID, ampContext(ts, members))),
			"2025-08-08T12:20:05Z", ts, 1)), nil)
		if a.err != nil || (a.status != http.StatusCreated && a.status != http.StatusOK) {
			return "", fmt.Errorf("filling: %d %v %.300s", a.status, a.err, a.body)
		}
		var fb struct {
			ErrorID string `json:"error_id"`
		}
		return fb.ErrorID, json.Unmarshal(a.body, &fb)
	}
	// Two posters: one record's occurrences, then the other records.
	var many string
	var fillErr error
	var fillMu sync.Mutex
	var fwg sync.WaitGroup
	fwg.Go(func() {
		for i := range occurrences {
			id, err := post(fmt.Sprintf("q_amp_many_%d", runID), fmt.Sprintf("2025-08-08T13:%02d:%02dZ", i/60, i%60))
			fillMu.Lock()
			many, fillErr = id, cmp.Or(fillErr, err)
			fillMu.Unlock()
		}
	})
	fwg.Go(func() {
		for i := range records {
			_, err := post(fmt.Sprintf("q_amp_%d_%d", runID, i), fmt.Sprintf("2025-08-08T12:00:%02dZ", i%60))
			fillMu.Lock()
			fillErr = cmp.Or(fillErr, err)
			fillMu.Unlock()
		}
	})
	fwg.Wait()
	if fillErr != nil {
		r.fail("%v", fillErr)
		return r
	}
	fill := time.Since(t0)
	rest := p.procStatus("VmRSS:")
	reset := p.resetPeak()

	lctx, cancel := context.WithTimeout(ctx, c.dur(15*time.Second))
	defer cancel()
	var reads, failed atomic.Int64
	var largest atomic.Int64
	var firstFail atomic.Value
	get := func(target string) (cursor string) {
		a := do(context.WithoutCancel(lctx), "GET", target, keyA, nil, nil)
		if a.err != nil || a.status != http.StatusOK || !json.Valid(a.body) {
			failed.Add(1)
			firstFail.CompareAndSwap(nil, fmt.Sprintf("GET %s: %d %v %.200s", target, a.status, a.err, a.body))
			return ""
		}
		reads.Add(1)
		for n := int64(len(a.body)); ; {
			m := largest.Load()
			if n <= m || largest.CompareAndSwap(m, n) {
				break
			}
		}
		var page struct {
			Next string `json:"next_cursor"`
		}
		_ = json.Unmarshal(a.body, &page)
		return page.Next
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for lctx.Err() == nil {
				get(p.base + "/v1/errors?limit=500")
				get(p.base + "/v1/errors/" + many)
				target := p.base + "/v1/errors/" + many + "/occurrences?limit=100"
				for cur, pages := get(target), 0; cur != "" && pages < occurrences && lctx.Err() == nil; pages++ {
					cur = get(target + "&cursor=" + url.QueryEscape(cur))
				}
			}
		})
	}
	wg.Wait()
	bcancel()
	b.wait()
	peak := p.procStatus("VmHWM:")
	since := ""
	if !reset {
		since = " (since start: the peak could not be reset)"
	}
	r.load = fmt.Sprintf("%s; peak RSS %s%s", b.summary("B"), mib(peak), since)
	r.note("B served from the start, through A's filling and reads; A filled %d records of reports of %d KB and one of %d occurrences in %v; RSS at rest %s; 8 clients read the worst list page, record and occurrence pages %d times (largest answer %s)",
		records, members, occurrences, fill.Round(100*time.Millisecond), mib(rest), reads.Load(), mib(largest.Load()))
	if failed.Load() > 0 {
		r.fail("%d reads failed: %v", failed.Load(), firstFail.Load())
	}
	if b.bad > 0 || b.ok == 0 {
		r.fail("B was not served throughout: %s", b.first)
	}
	return r
}

// mib writes a size in MiB (in KiB below 1 MiB).
func mib(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
