package memory

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/triage-go/triage"
)

// DefaultMax is how many queries Attempts, and how many deliveries
// Deliveries, remember by default: the oldest are forgotten first, so that
// a long-running process does not grow without bound.
const DefaultMax = 100_000

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
		max = DefaultMax
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

// Attempts is an in-memory Attempts; the zero value is ready. It
// remembers the last Max keys (default DefaultMax).
type Attempts struct {
	Max int
	mu  sync.Mutex
	n   bounded[int]
}

// Next records one more attempt under key.
func (m *Attempts) Next(_ context.Context, key string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, _ := m.n.get(key)
	m.n.put(key, n+1, m.Max)
	return n + 1, nil
}

// History is an in-memory History; the zero value is ready. It keeps,
// per agent and code, the times within the longest window asked for, at
// most triage.MaxKept of them (the latest): a count beyond that is triage.MaxKept.
type History struct {
	mu     sync.Mutex
	events map[string][]time.Time // sorted
}

// Record notes a failure and counts those within the window.
func (m *History) Record(_ context.Context, agent, code string, at time.Time, window time.Duration) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.events == nil {
		m.events = map[string][]time.Time{}
	}
	key := agent + "\x00" + code
	ev := m.events[key]
	i, _ := slices.BinarySearchFunc(ev, at, time.Time.Compare)
	ev = slices.Insert(ev, i, at)
	// Count the failures within the window before this one, this one
	// included, before the oldest are dropped: a failure reported late may
	// be older than what is kept.
	since, _ := slices.BinarySearchFunc(ev, at.Add(-window), time.Time.Compare)
	until, _ := slices.BinarySearchFunc(ev, at, func(a, b time.Time) int {
		if a.After(b) {
			return 1
		}
		return -1
	})
	// Drop what is older than the window before the latest failure, and
	// beyond triage.MaxKept.
	latest := ev[len(ev)-1]
	from, _ := slices.BinarySearchFunc(ev, latest.Add(-window), time.Time.Compare)
	from = max(from, len(ev)-triage.MaxKept)
	if from > 0 {
		ev = append(ev[:0], ev[from:]...)
	}
	m.events[key] = ev
	return min(until-since, triage.MaxKept), nil
}

// Deliveries is an in-memory Deliveries; the zero value is ready. It
// remembers the last Max deliveries (default DefaultMax): a duplicate that
// comes later than that is handled as a new report.
type Deliveries struct {
	Max  int
	mu   sync.Mutex
	seen bounded[*triage.Feedback] // nil while in flight
}

// Claim records that key is being handled.
func (m *Deliveries) Claim(_ context.Context, key string) (*triage.Feedback, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if fb, ok := m.seen.get(key); ok {
		return fb, false, nil
	}
	m.seen.put(key, nil, m.Max)
	return nil, true, nil
}

// Complete stores the feedback for key.
func (m *Deliveries) Complete(_ context.Context, key string, fb *triage.Feedback) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen.put(key, fb, m.Max)
	return nil
}

// Release forgets a claim.
func (m *Deliveries) Release(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen.remove(key)
	return nil
}

// Synonyms is an in-memory Synonyms: per source, its fields and, per
// missing field, the field it maps to. It is safe for concurrent use once
// filled; Set may be called concurrently too.
type Synonyms struct {
	mu      sync.RWMutex
	sources map[string]triage.SchemaInfo
}

// Set replaces the inventory of source.
func (m *Synonyms) Set(source string, info triage.SchemaInfo) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sources == nil {
		m.sources = map[string]triage.SchemaInfo{}
	}
	m.sources[source] = info
}

// Lookup returns the field field maps to in source.
func (m *Synonyms) Lookup(_ context.Context, source, field string) (string, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	to, ok := m.sources[source].Synonyms[field]
	return to, ok, nil
}

// Fields lists the fields of source.
func (m *Synonyms) Fields(_ context.Context, source string) ([]string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return slices.Clone(m.sources[source].Fields), nil
}

// Cache is an in-memory Cache; the zero value is ready.
type Cache struct {
	mu      sync.RWMutex
	results map[string]triage.CachedResult
}

// Put stores a query's result.
func (m *Cache) Put(queryID string, r triage.CachedResult) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.results == nil {
		m.results = map[string]triage.CachedResult{}
	}
	m.results[queryID] = r
}

// Get returns a query's result.
func (m *Cache) Get(_ context.Context, queryID string) (triage.CachedResult, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	r, ok := m.results[queryID]
	return r, ok, nil
}

// recorder keeps what it is given, for Notifier; it is safe
// for concurrent use.
type recorder[T any] struct {
	mu    sync.Mutex
	items []T
}

func (r *recorder[T]) add(v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.items = append(r.items, v)
}

func (r *recorder[T]) all() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.items)
}

// Notifier records the escalations; it is safe for concurrent use.
type Notifier struct{ escalations recorder[triage.Escalation] }

// Notify records e.
func (m *Notifier) Notify(_ context.Context, e triage.Escalation) error {
	m.escalations.add(e)
	return nil
}

// Escalations returns the escalations so far.
func (m *Notifier) Escalations() []triage.Escalation { return m.escalations.all() }

// State is an in-memory triage.State: its Attempts, History and
// Deliveries, which Start uses one after the other under one lock, so that
// it claims, counts and records at once. The zero value is ready.
type State struct {
	Attempts
	History
	Deliveries
	mu sync.Mutex // held by Start, so that Start is atomic
}

// Start claims req.Key and, for a first delivery, counts its attempt and
// records its failure.
func (s *State) Start(ctx context.Context, req triage.StartRequest) (triage.StartResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	prior, first, err := s.Claim(ctx, req.Key)
	if err != nil || !first {
		return triage.StartResult{Prior: prior}, err
	}
	res := triage.StartResult{First: true}
	res.Attempt, _ = s.Next(ctx, req.AttemptKey)
	res.Recent, _ = s.Record(ctx, req.Agent, req.Code, req.At, req.Window)
	return res, nil
}

var _ triage.State = (*State)(nil)
