package service

import "sync"

// Shares bounds what each tenant holds at once, out of a bound shared by
// all of them (request slots, event streams, job workers), so that one
// tenant cannot take it all. A tenant's entry goes when it holds nothing,
// so the map holds only the tenants holding something. Safe for
// concurrent use.
type Shares struct {
	mu    sync.Mutex
	max   int
	inUse map[string]int
}

// NewShares returns Shares that let a tenant hold max at once.
func NewShares(max int) *Shares {
	return &Shares{max: max, inUse: map[string]int{}}
}

// Acquire takes one of tenant's shares, or reports that it holds them all.
func (t *Shares) Acquire(tenant string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.inUse[tenant] >= t.max {
		return false
	}
	t.inUse[tenant]++
	return true
}

// Release gives back one of tenant's shares.
func (t *Shares) Release(tenant string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.inUse[tenant] <= 1 {
		delete(t.inUse, tenant)
		return
	}
	t.inUse[tenant]--
}

// Held returns how many shares tenant holds.
func (t *Shares) Held(tenant string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.inUse[tenant]
}
