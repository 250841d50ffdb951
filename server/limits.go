package server

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// authLimits throttles failed authentication by client address: each
// address has a token bucket that every 401 and 403 takes from; once it is
// empty the address is answered 429 instead, until a token is back. A
// request with a valid key is never charged nor refused. The addresses
// tracked are bounded: an address whose bucket is full again is forgotten
// (it is the same as a new one), and past maxAddrs the addresses not
// tracked share one bucket.
type authLimits struct {
	mu       sync.Mutex
	limit    rate.Limit
	burst    int
	idle     time.Duration // how long a bucket takes to fill again
	maxAddrs int
	addrs    map[string]*authAddr
	overflow *rate.Limiter
	swept    time.Time
}

type authAddr struct {
	lim  *rate.Limiter
	last time.Time // of the last failure charged
}

// maxAuthAddrs is how many client addresses authLimits tracks (each entry
// is ~200 bytes).
const maxAuthAddrs = 10_000

func newAuthLimits(perSecond float64, burst int) *authLimits {
	if perSecond < 0 {
		return nil
	}
	return &authLimits{
		limit:    rate.Limit(perSecond),
		burst:    burst,
		idle:     time.Duration(float64(burst) / perSecond * float64(time.Second)),
		maxAddrs: maxAuthAddrs,
		addrs:    map[string]*authAddr{},
		overflow: rate.NewLimiter(rate.Limit(perSecond), burst),
	}
}

// charge takes a token of addr's bucket for a failed authentication, or,
// when it is empty, tells how long until one is back.
func (l *authLimits) charge(addr string, now time.Time) (time.Duration, bool) {
	if l == nil {
		return 0, false
	}
	l.mu.Lock()
	lim := l.limiter(addr, now)
	l.mu.Unlock()
	res := lim.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return d, true
	}
	return 0, false
}

// limiter returns addr's bucket; l.mu is held.
func (l *authLimits) limiter(addr string, now time.Time) *rate.Limiter {
	if a := l.addrs[addr]; a != nil {
		a.last = now
		return a.lim
	}
	if len(l.addrs) >= l.maxAddrs && now.Sub(l.swept) >= time.Second {
		l.swept = now
		for k, a := range l.addrs {
			if now.Sub(a.last) >= l.idle {
				delete(l.addrs, k)
			}
		}
	}
	if len(l.addrs) >= l.maxAddrs {
		return l.overflow
	}
	a := &authAddr{lim: rate.NewLimiter(l.limit, l.burst), last: now}
	l.addrs[addr] = a
	return a.lim
}

// tracked returns how many addresses l tracks.
func (l *authLimits) tracked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.addrs)
}

// clientAddr is the address a request's failed authentication is charged
// to: the connection's peer (never X-Forwarded-For, which any client can
// write), an IPv6 peer by its /64, since one host commonly holds a whole
// /64 to pick from.
func clientAddr(r *http.Request) string {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
			return host
		}
		return r.RemoteAddr
	}
	addr := ap.Addr().Unmap()
	if addr.Is6() {
		return netip.PrefixFrom(addr, 64).Masked().String()
	}
	return addr.String()
}

// errBodyTooSlow is the error of a request body that did not arrive within
// the body timeout, or arrived more slowly than the minimum rate.
var errBodyTooSlow = errors.New("the request body arrived too slowly")

// bodyLimits are the time and rate a request body must arrive within.
type bodyLimits struct {
	timeout time.Duration // from the request's start
	rate    float64       // bytes a second, on average, after grace; 0: none
	grace   time.Duration
}

// guardBody makes r's body arrive within the limits: it moves the
// connection's read deadline as the bytes come, to the earlier of the
// body's deadline and the moment the average rate would fall under the
// minimum, and sets none once the body is read (net/http then clears it,
// so that the connection's background read, which cancels the request's
// context when it fails, does not time out while the request is handled;
// the read that ends the body clears it too). A read
// past the deadline fails with errBodyTooSlow, which readBody answers with
// a problem. Where the connection takes no deadline (an in-process
// ResponseRecorder), the body is left as it is.
func guardBody(w http.ResponseWriter, r *http.Request, lim bodyLimits, start time.Time) {
	if r.Body == nil || r.Body == http.NoBody || lim.timeout <= 0 {
		return
	}
	r.Body = &slowBody{ReadCloser: r.Body, rc: http.NewResponseController(w), lim: lim, start: start, length: r.ContentLength}
}

type slowBody struct {
	io.ReadCloser
	rc     *http.ResponseController
	lim    bodyLimits
	start  time.Time
	length int64 // the Content-Length, or -1
	n      int64 // bytes read
	off    bool  // the connection takes no deadline, or the body is read
}

func (b *slowBody) Read(p []byte) (int, error) {
	if b.off || (b.length >= 0 && b.n >= b.length) {
		// Every byte is in: net/http's read of the next request, begun
		// at the body's end, must not take the body's deadline.
		return b.ReadCloser.Read(p)
	}
	if err := b.rc.SetReadDeadline(b.deadline()); err != nil {
		b.off = true
		return b.ReadCloser.Read(p)
	}
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	switch {
	case err == nil:
	case isTimeout(err):
		b.off = true
		return n, errBodyTooSlow
	default: // io.EOF, or the client went away
		b.off = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// deadline is when the next bytes must have arrived by.
func (b *slowBody) deadline() time.Time {
	d := b.start.Add(b.lim.timeout)
	if b.lim.rate > 0 {
		byRate := b.start.Add(b.lim.grace + time.Duration(float64(b.n)/b.lim.rate*float64(time.Second)))
		if byRate.Before(d) {
			d = byRate
		}
	}
	return d
}

func isTimeout(err error) bool {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
