package sqlstore

import (
	"cmp"
	"context"
	"slices"

	"github.com/triage-go/triage/store"
)

// RunTotalsSQL is RunTotals' query of tenant's runs started from since to
// until (in nanoseconds, both included): the latest started, at most $4,
// read in runs_by_tenant_start's order (run_id in the ORDER BY makes it
// that index's, never runs_by_start's, which holds every tenant's),
// grouped by agent, outcome and code. The LIMIT in the subquery is what
// bounds the cost.
const RunTotalsSQL = `SELECT agent_id, outcome, COALESCE(code, ''), COUNT(*) FROM (
		SELECT agent_id, outcome, code FROM runs
		WHERE tenant = $1 AND started_at >= $2 AND started_at <= $3
		ORDER BY started_at DESC, run_id DESC LIMIT $4
	) AS latest GROUP BY agent_id, outcome, code`

// runTotalsStartSQL is, after a count that read as many runs as it may,
// the start of the earliest it read and of the next, if there is one
// (then the count is capped).
const runTotalsStartSQL = `SELECT started_at FROM runs
	WHERE tenant = $1 AND started_at >= $2 AND started_at <= $3
	ORDER BY started_at DESC, run_id DESC LIMIT 2 OFFSET $4`

// RunTotals counts the tenant's runs started in f's range.
func (t *tenant) RunTotals(ctx context.Context, f store.RunTotalsFilter) (store.RunTotals, error) {
	since, until, err := f.Range(t.s.now())
	if err != nil {
		return store.RunTotals{}, t.s.errorf("total runs", err)
	}
	atMost := int64(store.MaxRunsTotalled)
	if f.AtMost > 0 && f.AtMost < store.MaxRunsTotalled {
		atMost = int64(f.AtMost)
	}
	c := store.RunTotals{Since: since, Until: until, Agents: []store.AgentRuns{}, Codes: []store.CodeRuns{}}
	agents := map[string]*store.AgentRuns{}
	codes := map[string]int64{}
	err = t.read(ctx, func(q Querier) error {
		rows, err := q.Query(ctx, RunTotalsSQL, t.id, nanos(since), nanos(until), atMost)
		err = scanAll(rows, err, func(row Row) error {
			var (
				agent, outcome, code string
				n                    int64
			)
			if err := row.Scan(&agent, &outcome, &code, &n); err != nil {
				return err
			}
			a := agents[agent]
			if a == nil {
				a = &store.AgentRuns{AgentID: agent}
				agents[agent] = a
			}
			a.Runs += n
			switch outcome {
			case store.RunRunning:
				a.Running += n
			case store.RunFinished:
				a.Finished += n
			case store.RunFailed:
				a.Failed += n
				if code != "" {
					codes[code] += n
				}
			case store.RunDisconnected:
				a.Disconnected += n
			case store.RunShutdown:
				a.Shutdown += n
			}
			c.Runs += n
			return nil
		})
		if err != nil || c.Runs < atMost {
			return err
		}
		// As many runs as a count reads: when the range holds another,
		// the count is capped, and starts at the earliest it read.
		starts := []int64{}
		rows, err = q.Query(ctx, runTotalsStartSQL, t.id, nanos(since), nanos(until), atMost-1)
		err = scanAll(rows, err, func(row Row) error {
			var at int64
			err := row.Scan(&at)
			starts = append(starts, at)
			return err
		})
		if err != nil || len(starts) < 2 {
			return err
		}
		c.Capped, c.Since = true, fromNanos(starts[0])
		return nil
	})
	if err != nil {
		return store.RunTotals{}, t.s.errorf("total runs", err)
	}
	limit := countLimit(f.Limit)
	for _, a := range agents {
		c.Agents = append(c.Agents, *a)
	}
	slices.SortFunc(c.Agents, func(a, b store.AgentRuns) int {
		return cmp.Or(cmp.Compare(b.Failed, a.Failed), cmp.Compare(b.Runs, a.Runs), cmp.Compare(a.AgentID, b.AgentID))
	})
	for code, n := range codes {
		c.Codes = append(c.Codes, store.CodeRuns{Code: code, Failed: n})
	}
	slices.SortFunc(c.Codes, func(a, b store.CodeRuns) int {
		return cmp.Or(cmp.Compare(b.Failed, a.Failed), cmp.Compare(a.Code, b.Code))
	})
	c.Agents, c.Codes = c.Agents[:min(len(c.Agents), limit)], c.Codes[:min(len(c.Codes), limit)]
	return c, nil
}
