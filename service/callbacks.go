package service

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// errPrivateAddress is a callback's connection refused by refusePrivate.
var errPrivateAddress = errors.New("a loopback, private or link-local address, which callbacks may not reach")

// refusedPrefixes are the address blocks callbacks may not reach besides
// those netip.Addr's methods name (loopback, RFC 1918 and fc00::/7,
// link-local, unspecified, multicast): "this network" (0.0.0.0 reaches the
// host itself), shared address space (carrier-grade NAT, some clouds'
// metadata services), IETF protocol assignments, benchmarking, and the
// reserved 240.0.0.0/4 with the broadcast address.
var refusedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
}

// nat64 is the well-known NAT64 prefix, whose addresses reach the IPv4
// address in their last 32 bits.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// privateAddr tells whether ip is an address callbacks may not reach
// unless Jobs.PrivateCallbacks.
func privateAddr(ip netip.Addr) bool {
	ip = ip.Unmap().WithZone("")
	if nat64.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte(b[12:]))
	}
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return true
	}
	for _, p := range refusedPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// privateHost tells whether a URL's host (url.URL.Hostname) is one
// RefusesCallback (PUT /v1/callbacks) refuses as a callback's:
// "localhost" (or a name under
// it) or a literal IP address privateAddr refuses. A name that resolves
// to such an address is refused when the callback connects.
func privateHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && privateAddr(ip)
}

// refusePrivate is a net.Dialer's Control: it refuses to connect to an
// address privateAddr refuses. It sees the address the name resolved to,
// just before connecting, so that a name resolving to another address by
// now (DNS rebinding) does not get past.
func refusePrivate(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || privateAddr(ap.Addr()) {
		return errPrivateAddress
	}
	return nil
}

// guardedClient returns a copy of c whose connections refusePrivate
// checks: its Transport, an *http.Transport (http.DefaultTransport when
// nil), cloned with a dialer of its own, no DialTLS or DialTLSContext
// (which would dial unchecked) and no Proxy (the proxy's address would be
// the one checked). Its timeout, redirects policy and TLS settings stay.
// A Transport of another type is kept, unchecked, with a warning (on log,
// unless nil).
func guardedClient(c *http.Client, log *slog.Logger) *http.Client {
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	base, ok := rt.(*http.Transport)
	if !ok {
		if log == nil {
			return c
		}
		log.Warn("Jobs.HTTPClient's Transport is not an *http.Transport: callbacks to loopback, private and link-local addresses are not refused, unless it refuses them itself",
			slog.String("transport", fmt.Sprintf("%T", rt)))
		return c
	}
	t := base.Clone()
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: refusePrivate}
	t.DialContext = d.DialContext
	t.DialTLSContext = nil
	//lint:ignore SA1019 the deprecated hook, if set, would dial unchecked (Dial gives way to DialContext)
	t.DialTLS = nil
	t.Proxy = nil
	cc := *c
	cc.Transport = t
	return &cc
}
