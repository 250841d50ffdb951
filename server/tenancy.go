package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

// ParseAPIKeys reads TRIAGE_API_KEYS: "tenantA=keyA,tenantB=keyB". It
// returns the map from key to tenant. Errors never quote a key.
func ParseAPIKeys(spec string) (map[string]string, error) {
	keys := map[string]string{}
	for i, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		tenant, key, ok := strings.Cut(part, "=")
		tenant, key = strings.TrimSpace(tenant), strings.TrimSpace(key)
		switch {
		case !ok || tenant == "" || key == "":
			return nil, fmt.Errorf("API keys: entry %d is not tenant=key", i+1)
		case !triage.IsIdentifier(tenant):
			return nil, fmt.Errorf("API keys: entry %d: tenant %q is not an identifier", i+1, tenant)
		case len(key) < 16:
			return nil, fmt.Errorf("API keys: entry %d (tenant %s): a key has at least 16 characters", i+1, tenant)
		}
		if _, dup := keys[key]; dup {
			return nil, fmt.Errorf("API keys: entry %d (tenant %s) repeats another entry's key", i+1, tenant)
		}
		keys[key] = tenant
	}
	return keys, nil
}

// keyring finds the tenant of an API key in constant time: every key is
// compared (as its SHA-256, so lengths do not leak), whatever matches.
type keyring struct {
	hashes  [][32]byte
	tenants []string
}

func newKeyring(keys map[string]string) (*keyring, error) {
	k := &keyring{}
	for key, tenant := range keys {
		if key == "" || !triage.IsIdentifier(tenant) {
			return nil, fmt.Errorf("server: API keys: tenant %q or its key is invalid", tenant)
		}
		fault.RegisterSecret(key) // never in a log or a problem
		k.hashes = append(k.hashes, sha256.Sum256([]byte(key)))
		k.tenants = append(k.tenants, tenant)
	}
	return k, nil
}

func (k *keyring) empty() bool { return len(k.hashes) == 0 }

func (k *keyring) tenant(key string) (string, bool) {
	sum := sha256.Sum256([]byte(key))
	found := -1
	for i := range k.hashes {
		if subtle.ConstantTimeCompare(sum[:], k.hashes[i][:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return "", false
	}
	return k.tenants[found], true
}

// requestKey is the API key a request presents: Authorization: Bearer, or
// X-API-Key.
func requestKey(r *http.Request) string {
	if auth := r.Header.Get("Authorization"); auth != "" {
		if scheme, token, ok := strings.Cut(auth, " "); ok && strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(token)
		}
		return "\x00invalid" // an Authorization the service does not take
	}
	return r.Header.Get("X-API-Key")
}

// api wraps a tenant-scoped route: the API key (401, 403; 429 for an
// address whose failed authentications are over their limit), then, for a
// bounded route, the tenant's share of the requests in progress (429) and
// the global bound (503) — not for event streams, which would hold their
// slot for hours — then the tenant's rate limit (429) and the time and
// rate its body must arrive within (408, see guardBody). A slot is taken
// only once the key is known: a client without a valid key holds none.
func (s *Server) api(h apiFunc, bounded bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		start := time.Now()
		// A request refused here leaves its body unread: net/http would
		// read what is left of it (up to 256 KiB) before answering, at
		// the client's pace, so the connection is closed instead.
		refuse := func(err error) error {
			if r.Body != nil && r.Body != http.NoBody {
				w.Header().Set("Connection", "close")
			}
			return err
		}
		tenant := DefaultTenant
		if !s.keys.empty() {
			t, err := s.authenticate(w, r)
			if err != nil {
				return refuse(err)
			}
			tenant = t
		}
		if bounded {
			if !s.inProgress.Acquire(tenant) {
				return refuse(fault.New(fault.RateLimited, "Too many requests of this tenant are in progress. Please retry shortly.",
					fault.WithRetryAfter(time.Second), fault.WithDetail("max_in_progress", s.cfg.TenantConcurrent)))
			}
			defer s.inProgress.Release(tenant)
			select {
			case s.slots <- struct{}{}:
				defer func() { <-s.slots }()
			default:
				return refuse(fault.New(fault.ServiceUnavailable, "The service is busy. Please retry shortly.",
					fault.WithRetryAfter(time.Second)))
			}
		}
		if wait, limited := s.limits.take(tenant, s.cfg.Now()); limited {
			setRateLimitHeaders(w.Header(), s.cfg.RateLimit, s.cfg.RateBurst, wait)
			return refuse(fault.New(fault.RateLimited, "Too many requests. Please retry later.", fault.WithRetryAfter(wait)))
		}
		guardBody(w, r, s.body, start)
		traceTenant(r.Context(), tenant)
		return h(w, r, tenant)
	}
}

// authenticate returns the tenant of the request's API key. A request
// without a valid key is charged to its client address (see authLimits):
// 401 or 403 while the address is within its limit, 429 beyond. A valid
// key is never refused here, whatever its address did.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (string, error) {
	key := requestKey(r)
	if key != "" {
		if t, ok := s.keys.tenant(key); ok {
			return t, nil
		}
	}
	if wait, limited := s.authFails.charge(clientAddr(r), s.cfg.Now()); limited {
		return "", fault.New(fault.RateLimited, "Too many failed authentications from this address. Please retry later.",
			fault.WithRetryAfter(wait))
	}
	if key == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="triage"`)
		return "", fault.New(fault.TenantRequired, "An API key is required: send it in the X-API-Key header, or in the Authorization header with the scheme Bearer.")
	}
	return "", fault.New(fault.TenantUnauthorized, "The API key is not valid.")
}

// tenantLimits is a token bucket per tenant.
type tenantLimits struct {
	mu      sync.Mutex
	limit   rate.Limit
	burst   int
	buckets map[string]*rate.Limiter
}

func newTenantLimits(perSecond float64, burst int) *tenantLimits {
	if perSecond < 0 {
		return nil
	}
	return &tenantLimits{limit: rate.Limit(perSecond), burst: burst, buckets: map[string]*rate.Limiter{}}
}

// take takes a token of tenant's bucket, or tells how long until one.
func (l *tenantLimits) take(tenant string, now time.Time) (time.Duration, bool) {
	return l.takeN(tenant, now, 1)
}

// takeN takes n tokens of tenant's bucket at once, or none and tells how
// long until n are there (a JSON-RPC batch of n messages is n requests).
// n beyond the burst can never be taken: it waits a whole burst's time.
func (l *tenantLimits) takeN(tenant string, now time.Time, n int) (time.Duration, bool) {
	if l == nil || n <= 0 {
		return 0, false
	}
	l.mu.Lock()
	b := l.buckets[tenant]
	if b == nil {
		b = rate.NewLimiter(l.limit, l.burst)
		l.buckets[tenant] = b
	}
	l.mu.Unlock()
	res := b.ReserveN(now, n)
	if !res.OK() {
		return time.Duration(float64(l.burst) / float64(l.limit) * float64(time.Second)), true
	}
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return d, true
	}
	return 0, false
}

// setRateLimitHeaders writes the RateLimit header fields of the IETF
// draft (draft-ietf-httpapi-ratelimit-headers): the policy (quota per
// window) and the current state (none remaining, the seconds until a
// token is back).
func setRateLimitHeaders(h http.Header, perSecond float64, burst int, wait time.Duration) {
	window := int(math.Ceil(float64(burst) / perSecond))
	h.Set("RateLimit-Policy", `"tenant";q=`+strconv.Itoa(burst)+`;w=`+strconv.Itoa(window))
	h.Set("RateLimit", `"tenant";r=0;t=`+strconv.FormatInt(fault.Seconds(wait), 10))
}
