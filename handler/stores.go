package handler

import (
	"context"
	"slices"
	"sync"
	"time"
)

// The handler keeps its state behind these small interfaces. The Memory*
// implementations here keep it in the process; the service's store keeps
// it durably and shared between instances.

// Attempts counts the reports of one failure (by query and error code)
// across reports.
type Attempts interface {
	// Next records one more attempt under key and returns how many there
	// have been, this one included.
	Next(ctx context.Context, key string) (int, error)
}

// History remembers recent failures, to tell a persistent failure from a
// transient one.
type History interface {
	// Record notes a failure of agent with code at the given time and
	// returns how many such failures there have been since at-window, this
	// one included.
	Record(ctx context.Context, agent, code string, at time.Time, window time.Duration) (int, error)
}

// Deliveries remembers the feedback given for each delivery of a report, so
// that a duplicate gets the same feedback and runs no action again.
type Deliveries interface {
	// Claim records that key is being handled. It reports false, with the
	// feedback given before (nil while the first delivery is still being
	// handled), when key was claimed already.
	Claim(ctx context.Context, key string) (prior *Feedback, first bool, err error)
	// Complete stores the feedback for a claimed key.
	Complete(ctx context.Context, key string, fb *Feedback) error
	// Release forgets a claim whose handling failed, so a retry is not
	// taken for a duplicate.
	Release(ctx context.Context, key string) error
}

// Starter is a Deliveries that can also count a first delivery's attempt
// and record its failure in the write that claims it: a database's, to
// which each write is a round trip and, for SQLite, a commit. The handler
// starts a report with Start, rather than Claim, Attempts.Next and
// History.Record, when its Deliveries is a Starter and its Attempts and
// History are that same store.
type Starter interface {
	Deliveries
	Attempts
	History
	// Start claims the delivery req.Key as Claim does. When it is the
	// first delivery, it also counts the attempt under req.AttemptKey as
	// Attempts.Next does and records the failure as History.Record does,
	// all in one write: either all of them happen or none does.
	Start(ctx context.Context, req StartRequest) (StartResult, error)
}

// StartRequest is what Starter.Start claims, counts and records.
type StartRequest struct {
	Key        string // the delivery key, as for Claim
	AttemptKey string // as for Attempts.Next
	// Agent, Code, At and Window are History.Record's arguments.
	Agent, Code string
	At          time.Time
	Window      time.Duration
}

// StartResult is what Starter.Start found and counted.
type StartResult struct {
	// Prior and First are Claim's results.
	Prior *Feedback
	First bool
	// Attempt and Recent are the results of Attempts.Next and
	// History.Record; zero when First is false (nothing was counted).
	Attempt, Recent int
}

// Synonyms is the schema inventory: the fields of each data source and the
// synonyms a missing field may have been renamed to.
type Synonyms interface {
	// Lookup returns the field of source that field is a known synonym of
	// ("product_id" → "sku_id"), if there is one.
	Lookup(ctx context.Context, source, field string) (string, bool, error)
	// Fields lists the fields of source.
	Fields(ctx context.Context, source string) ([]string, error)
}

// Cache holds the last good result of each query, for use_cache.
type Cache interface {
	Get(ctx context.Context, queryID string) (CachedResult, bool, error)
}

// CachedResult is a query's last good result, as the cache keeps it.
type CachedResult struct {
	StoredAt time.Time      `json:"stored_at"`
	Summary  string         `json:"summary,omitempty"`
	Data     map[string]any `json:"data,omitempty"`
}

// MemoryKeep is how many queries MemoryAttempts, and how many deliveries
// MemoryDeliveries, remember by default: the oldest are forgotten first,
// so that a long-running process does not grow without bound.
const MemoryKeep = 100_000

// bounded is a map that forgets its oldest keys beyond max entries.
type bounded[V any] struct {
	m     map[string]V
	order []string // insertion order; a ring once full
	next  int
}

func (b *bounded[V]) get(k string) (V, bool) {
	v, ok := b.m[k]
	return v, ok
}

func (b *bounded[V]) put(k string, v V, max int) {
	if b.m == nil {
		b.m = map[string]V{}
	}
	if _, ok := b.m[k]; ok {
		b.m[k] = v
		return
	}
	if max <= 0 {
		max = MemoryKeep
	}
	if len(b.order) < max {
		b.order = append(b.order, k)
	} else {
		delete(b.m, b.order[b.next])
		b.order[b.next] = k
		b.next = (b.next + 1) % len(b.order)
	}
	b.m[k] = v
}

func (b *bounded[V]) remove(k string) { delete(b.m, k) } // its slot is reused in turn

// MemoryAttempts is an in-memory Attempts; the zero value is ready. It
// remembers the last Max keys (default MemoryKeep).
type MemoryAttempts struct {
	Max int
	mu  sync.Mutex
	n   bounded[int]
}

// Next records one more attempt under key.
func (m *MemoryAttempts) Next(_ context.Context, key string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, _ := m.n.get(key)
	m.n.put(key, n+1, m.Max)
	return n + 1, nil
}

// MemoryHistory is an in-memory History; the zero value is ready. It keeps,
// per agent and code, the times within the longest window asked for, at
// most MaxKept of them (the latest): a count beyond that is MaxKept.
type MemoryHistory struct {
	mu     sync.Mutex
	events map[string][]time.Time // sorted
}

// MaxKept bounds the failures MemoryHistory keeps per agent and code.
const MaxKept = 256

// Record notes a failure and counts those within the window.
func (m *MemoryHistory) Record(_ context.Context, agent, code string, at time.Time, window time.Duration) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.events == nil {
		m.events = map[string][]time.Time{}
	}
	key := agent + "\x00" + code
	ev := m.events[key]
	i, _ := slices.BinarySearchFunc(ev, at, time.Time.Compare)
	ev = slices.Insert(ev, i, at)
	// Drop what is older than the window before the latest failure, and
	// beyond MaxKept.
	latest := ev[len(ev)-1]
	from, _ := slices.BinarySearchFunc(ev, latest.Add(-window), time.Time.Compare)
	from = max(from, len(ev)-MaxKept)
	if from > 0 {
		ev = append(ev[:0], ev[from:]...)
	}
	m.events[key] = ev
	// Count the failures within the window before this one.
	since, _ := slices.BinarySearchFunc(ev, at.Add(-window), time.Time.Compare)
	until, _ := slices.BinarySearchFunc(ev, at, func(a, b time.Time) int {
		if a.After(b) {
			return 1
		}
		return -1
	})
	return until - since, nil
}

// MemoryDeliveries is an in-memory Deliveries; the zero value is ready. It
// remembers the last Max deliveries (default MemoryKeep): a duplicate that
// comes later than that is handled as a new report.
type MemoryDeliveries struct {
	Max  int
	mu   sync.Mutex
	seen bounded[*Feedback] // nil while in flight
}

// Claim records that key is being handled.
func (m *MemoryDeliveries) Claim(_ context.Context, key string) (*Feedback, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if fb, ok := m.seen.get(key); ok {
		return fb, false, nil
	}
	m.seen.put(key, nil, m.Max)
	return nil, true, nil
}

// Complete stores the feedback for key.
func (m *MemoryDeliveries) Complete(_ context.Context, key string, fb *Feedback) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen.put(key, fb, m.Max)
	return nil
}

// Release forgets a claim.
func (m *MemoryDeliveries) Release(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen.remove(key)
	return nil
}

// MemorySynonyms is an in-memory Synonyms: per source, its fields and, per
// missing field, the field it maps to. It is safe for concurrent use once
// filled; Set may be called concurrently too.
type MemorySynonyms struct {
	mu      sync.RWMutex
	sources map[string]SchemaInfo
}

// SchemaInfo is one data source's schema inventory.
type SchemaInfo struct {
	Fields   []string          `json:"fields"`
	Synonyms map[string]string `json:"synonyms"` // missing name → field
}

// Set replaces the inventory of source.
func (m *MemorySynonyms) Set(source string, info SchemaInfo) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sources == nil {
		m.sources = map[string]SchemaInfo{}
	}
	m.sources[source] = info
}

// Lookup returns the field field maps to in source.
func (m *MemorySynonyms) Lookup(_ context.Context, source, field string) (string, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	to, ok := m.sources[source].Synonyms[field]
	return to, ok, nil
}

// Fields lists the fields of source.
func (m *MemorySynonyms) Fields(_ context.Context, source string) ([]string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return slices.Clone(m.sources[source].Fields), nil
}

// MemoryCache is an in-memory Cache; the zero value is ready.
type MemoryCache struct {
	mu      sync.RWMutex
	results map[string]CachedResult
}

// Put stores a query's result.
func (m *MemoryCache) Put(queryID string, r CachedResult) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.results == nil {
		m.results = map[string]CachedResult{}
	}
	m.results[queryID] = r
}

// Get returns a query's result.
func (m *MemoryCache) Get(_ context.Context, queryID string) (CachedResult, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	r, ok := m.results[queryID]
	return r, ok, nil
}
