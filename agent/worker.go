package agent

import (
	"context"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/triage-go/triage/agent/acp"
	"github.com/triage-go/triage/fault"
)

// workerBackend runs an acp agent: a pool of worker processes speaking the
// Agent Client Protocol over stdio (package agent/acp). The pool's faults
// follow seed 002's WorkerExecutor table and pass through the Manager.
type workerBackend struct {
	cfg acp.Config

	mu   sync.Mutex
	pool *acp.Pool
}

func newWorker(c Config, opts BuildOptions) Backend {
	env := make([]string, 0, len(c.Env))
	for k, v := range c.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return &workerBackend{cfg: acp.Config{
		Command: c.Command, Env: env, Dir: c.Dir, Workers: c.Workers,
		RequestTimeout: c.RequestTimeout,
		// The Manager bounds each prompt itself (and says "Worker {id}
		// timed out"); the pool's own bound is only a backstop.
		PromptTimeout: 24 * time.Hour,
		Source:        c.ID,
		Logger:        opts.Logger.With(slog.String("agent", c.ID)),
	}}
}

func (b *workerBackend) Start(ctx context.Context) error {
	p, err := acp.Start(ctx, b.cfg)
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.pool = p
	b.mu.Unlock()
	return nil
}

func (b *workerBackend) get() (*acp.Pool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pool == nil {
		return nil, fault.New(fault.InternalError, "Executor not started",
			fault.WithCategory(fault.CategoryInternal), fault.WithSource(b.cfg.Source))
	}
	return b.pool, nil
}

func (b *workerBackend) NewSession(ctx context.Context) (string, error) {
	p, err := b.get()
	if err != nil {
		return "", err
	}
	return p.NewSession(ctx)
}

func (b *workerBackend) Prompt(ctx context.Context, session, text string, emit func(Chunk)) (Result, error) {
	p, err := b.get()
	if err != nil {
		return Result{}, err
	}
	var (
		mu  sync.Mutex
		out []byte
	)
	stop, err := p.Prompt(ctx, session, text, func(s string) {
		mu.Lock()
		out = append(out, s...)
		mu.Unlock()
		emit(Chunk{Text: s})
	})
	mu.Lock()
	defer mu.Unlock()
	res := Result{Text: string(out), StopReason: stop}
	if err == nil && stop == "refusal" {
		// ACP's "refusal": the agent declined to go on. Not a success.
		return res, fault.New(fault.ContentRefused, "", fault.WithSource(b.cfg.Source),
			fault.WithDetail("stopReason", stop))
	}
	return res, err
}

func (b *workerBackend) Cancel(ctx context.Context, session string) error {
	p, err := b.get()
	if err != nil {
		return err
	}
	return p.Cancel(ctx, session)
}

func (b *workerBackend) CloseSession(session string) {
	if p, err := b.get(); err == nil {
		p.Forget(session)
	}
}

func (b *workerBackend) Close() error {
	b.mu.Lock()
	p := b.pool
	b.mu.Unlock()
	if p == nil {
		return nil
	}
	return p.Close()
}

// Healthy counts the pool's live workers.
func (b *workerBackend) Healthy() (alive, total int) {
	b.mu.Lock()
	p := b.pool
	b.mu.Unlock()
	if p == nil {
		return 0, 0
	}
	return p.Healthy()
}

// StrayLines counts the lines the pool's workers wrote that are not JSON.
func (b *workerBackend) StrayLines() int64 {
	b.mu.Lock()
	p := b.pool
	b.mu.Unlock()
	return p.Stats().StrayLines
}
