package server

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/rs/cors"
)

// CORSAllOrigins, alone in Config.CORSOrigins, lets a page on any origin
// call the API (Access-Control-Allow-Origin: *). It needs API keys: with
// none, every page a user of the service's network opens could read and
// change the records.
const CORSAllOrigins = "*"

// CORSMaxAge is how long, in seconds, a browser may keep a preflight's
// answer (Chromium keeps one at most 2 hours, Firefox 24).
const CORSMaxAge = 7200

// The CORS rules of the API (/v1/…, the AG-UI run endpoint among it).
var (
	// corsMethods are the API's methods (HEAD is GET's).
	corsMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}
	// corsHeaders are the request headers the API reads: the API key (two
	// ways), the body's type, the report's idempotency key, an event
	// stream's resumption point, and the caller's W3C trace context.
	corsHeaders = []string{"Accept", "Authorization", "X-API-Key", "Content-Type", "Idempotency-Key", "Last-Event-ID",
		"Traceparent", "Tracestate", "Baggage"}
	// corsExposed are the response headers, beyond the CORS-safelisted
	// ones (Content-Type among them), that the API sets and a client
	// reads: a retry's delay and the rate limit, a duplicate report's
	// replay, the authentication scheme asked for, and a deprecated
	// path's successor.
	corsExposed = []string{"Retry-After", "RateLimit", "RateLimit-Policy", "Idempotent-Replayed", "WWW-Authenticate",
		"Deprecation", "Link"}
)

// corsPrefix is the part of the service CORS applies to: the API. Not
// /mcp, which refuses every browser on another origin (the MCP transport
// requires it), nor the dashboard, the River UI or /metrics.
const corsPrefix = "/v1/"

// newCORS returns the CORS handler for origins (Config.CORSOrigins), or
// nil when there are none. It never allows credentials (cookies, HTTP
// authentication, TLS client certificates): the API's credential is an
// API key a page sends in a header it sets itself, and the service sets
// no cookie. So Access-Control-Allow-Credentials is never sent, and the
// wildcard is never answered to a credentialed request (the Fetch
// standard forbids it).
func newCORS(origins []string, keys bool) (*cors.Cors, error) {
	if len(origins) == 0 {
		return nil, nil
	}
	if err := checkCORSOrigins(origins); err != nil {
		return nil, fmt.Errorf("server: Config.CORSOrigins: %w", err)
	}
	if origins[0] == CORSAllOrigins && !keys {
		return nil, errors.New(`server: Config.CORSOrigins: "*" needs API keys: without them every web page could read and change the records`)
	}
	allowed := make([]string, len(origins))
	for i, o := range origins {
		allowed[i] = strings.ToLower(o)
	}
	return cors.New(cors.Options{
		AllowedOrigins:   allowed,
		AllowedMethods:   corsMethods,
		AllowedHeaders:   corsHeaders,
		ExposedHeaders:   corsExposed,
		MaxAge:           CORSMaxAge,
		AllowCredentials: false,
	}), nil
}

// ParseCORSOrigins reads a comma-separated list of origins, as `triage
// serve --cors-origins` and TRIAGE_CORS_ORIGINS take it (spaces around an
// origin ignored, empty items skipped), and checks each as New does
// Config.CORSOrigins; New also refuses "*" without API keys.
func ParseCORSOrigins(spec string) ([]string, error) {
	var out []string
	for o := range strings.SplitSeq(spec, ",") {
		if o = strings.TrimSpace(o); o != "" {
			out = append(out, o)
		}
	}
	if err := checkCORSOrigins(out); err != nil {
		return nil, err
	}
	return out, nil
}

// checkCORSOrigins checks each origin, and that "*" is alone.
func checkCORSOrigins(origins []string) error {
	for _, o := range origins {
		if o == CORSAllOrigins {
			if len(origins) > 1 {
				return errors.New(`"*" allows every origin; it must be alone`)
			}
			continue
		}
		if err := checkCORSOrigin(o); err != nil {
			return err
		}
	}
	return nil
}

// checkCORSOrigin accepts an origin as a browser serializes it in its Origin
// header: http or https, a host, a port unless it is the scheme's
// default, nothing else. "null" (sandboxed frames, file: pages, some
// redirects) is refused: any page can make itself null.
func checkCORSOrigin(o string) error {
	if o == "null" {
		return errors.New(`"null" is the origin of any sandboxed frame or local file: it cannot be allowed`)
	}
	if strings.Contains(o, "*") {
		return fmt.Errorf("%q: an origin has no wildcard (list each origin, or \"*\" alone for every one)", o)
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.Opaque != "" {
		return fmt.Errorf("%q is not an origin: scheme://host[:port], as https://app.example.com", o)
	}
	if u.Path != "" {
		return fmt.Errorf("%q is not an origin: it has no path, not even /: %s://%s", o, u.Scheme, u.Host)
	}
	if p := u.Port(); (u.Scheme == "http" && p == "80") || (u.Scheme == "https" && p == "443") {
		return fmt.Errorf("%q: a browser sends the origin without its scheme's default port: %s://%s", o, u.Scheme, u.Hostname())
	}
	return nil
}

// inCORS reports whether a request path is the API's, as ServeMux reads
// it: "/v1/../mcp" is /mcp's (ServeMux redirects it there), not the API's.
func inCORS(p string) bool {
	return strings.HasPrefix(path.Clean(p), corsPrefix)
}

// isPreflight reports whether r is a CORS preflight request.
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
}
