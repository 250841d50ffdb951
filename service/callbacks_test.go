package service

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestPrivateAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1": true, "127.8.9.10": true, "::1": true, "10.0.0.1": true, "172.16.0.1": true, "192.168.1.1": true,
		"169.254.169.254": true, "fe80::1": true, "fe80::1%eth0": true, "fd00:ec2::254": true, "0.0.0.0": true, "::": true,
		"224.0.0.1": true, "ff02::1": true, "100.100.100.200": true, "255.255.255.255": true, "::ffff:10.0.0.1": true,
		"64:ff9b::a9fe:a9fe": true, "8.8.8.8": false, "93.184.215.14": false, "2001:4860:4860::8888": false, "64:ff9b::808:808": false, "172.32.0.1": false,
	} {
		if got := privateAddr(netip.MustParseAddr(addr)); got != want {
			t.Errorf("privateAddr(%s) = %v", addr, got)
		}
	}
}

// TestGuardedClient: the copy keeps the client's timeout and its
// transport's TLS settings, drops the proxy, and leaves the original
// alone; a RoundTripper that is not an *http.Transport is kept, with a
// warning.
func TestGuardedClient(t *testing.T) {
	proxy := http.ProxyURL(&url.URL{Scheme: "http", Host: "proxy.example:3128"})
	tr := &http.Transport{Proxy: proxy, TLSHandshakeTimeout: 7 * time.Second}
	c := &http.Client{Timeout: 3 * time.Second, Transport: tr}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	g := guardedClient(c, log)
	gt, ok := g.Transport.(*http.Transport)
	if !ok || gt == tr || g.Timeout != 3*time.Second || gt.Proxy != nil || gt.DialContext == nil || gt.TLSHandshakeTimeout != 7*time.Second {
		t.Errorf("the guarded client: %+v", g)
	}
	if c.Transport != tr || tr.Proxy == nil || tr.DialContext != nil {
		t.Errorf("the original changed")
	}
	if d := guardedClient(&http.Client{}, log); d.Transport == nil || d.Transport == http.DefaultTransport {
		t.Errorf("a nil Transport: %v", d.Transport)
	}
	type otherRT struct{ http.RoundTripper }
	o := &http.Client{Transport: otherRT{tr}}
	if guardedClient(o, log) != o || !strings.Contains(logs.String(), "not an *http.Transport") {
		t.Errorf("another RoundTripper: %s", logs.String())
	}
}

// TestPrivateHost: the hosts a callback URL may not name, and
// RefusesCallback's answer with and without PrivateCallbacks.
func TestPrivateHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LocalHost.": true, "api.localhost": true, "127.0.0.1": true, "::1": true,
		"169.254.169.254": true, "agents.example": false, "8.8.8.8": false, "localhost.example": false,
	} {
		if got := privateHost(host); got != want {
			t.Errorf("privateHost(%q) = %v", host, got)
		}
	}
	guarded := &Service{worker: newWorker(Jobs{}, nil)}
	open := &Service{worker: newWorker(Jobs{PrivateCallbacks: true}, nil)}
	for cb, want := range map[string]bool{"http://[::1]:8080/retry": true, "http://10.0.0.7/": true,
		"https://agents.example/retry": false, "http://a b/": false} {
		if got := guarded.RefusesCallback(cb); got != want {
			t.Errorf("RefusesCallback(%q) = %v", cb, got)
		}
		if open.RefusesCallback(cb) {
			t.Errorf("with PrivateCallbacks, RefusesCallback(%q)", cb)
		}
	}
}
