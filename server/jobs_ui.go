package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"time"

	"github.com/triage-go/triage/fault"
)

// JobsUIPath is where Config.JobsUI is served: the page at JobsUIPath +
// "/", its API under JobsUIPath + "/api/". Build the UI with this prefix.
const JobsUIPath = "/riverui"

// JobsUI is River's web UI for the store's job queue, as adapter/riverui
// builds it: the server routes JobsUIPath + "/" to it, behind the
// operator key, and Serve starts it.
type JobsUI interface {
	http.Handler
	// Start runs the UI's background services until ctx ends.
	Start(ctx context.Context) error
}

// operatorRealm is the realm of the Basic challenge a browser answers
// with the operator key.
const operatorRealm = `Basic realm="triage operators", charset="UTF-8"`

// setupJobsUI checks Config.OperatorKey and, when Config.JobsUI is set,
// that the operator key guards it.
func (s *Server) setupJobsUI() error {
	cfg := s.cfg
	if cfg.OperatorKey != "" {
		if len(cfg.OperatorKey) < 16 {
			return errors.New("server: Config.OperatorKey has at least 16 characters")
		}
		if _, taken := cfg.APIKeys[cfg.OperatorKey]; taken {
			return errors.New("server: Config.OperatorKey must not be a tenant's API key")
		}
		fault.RegisterSecret(cfg.OperatorKey)
		sum := sha256.Sum256([]byte(cfg.OperatorKey))
		s.operator = &sum
	}
	if s.operator == nil && !s.keys.empty() {
		s.log.Warn("/metrics is open and counts every reporting agent as \"(other)\": its IDs are the tenants'; set TRIAGE_OPERATOR_KEY to put /metrics behind it and name them")
	}
	if cfg.JobsUI == nil {
		return nil
	}
	if s.operator == nil && !s.keys.empty() {
		return errors.New("server: Config.JobsUI needs an OperatorKey when APIKeys are set: River's UI shows and changes every tenant's jobs")
	}
	s.jobsUI = cfg.JobsUI
	s.crossOrigin = http.NewCrossOriginProtection()
	if s.operator == nil {
		s.log.Warn("River's UI at " + JobsUIPath + "/ is open to anyone who reaches the service: no API keys and no operator key configured")
	}
	return nil
}

// jobsUIHandler serves River's web UI: the operator key (401, 403; 429
// for an address whose failed authentications are over their limit), no
// change from another origin (403: a browser sends the Basic credentials
// it was given to any page's requests), a slot of the requests in
// progress (503), then riverui, its pages never framed.
func (s *Server) jobsUIHandler(w http.ResponseWriter, r *http.Request) error {
	start := time.Now()
	refuse := func(err error) error {
		if r.Body != nil && r.Body != http.NoBody {
			w.Header().Set("Connection", "close")
		}
		return err
	}
	if s.operator != nil {
		if err := s.authenticateOperator(w, r); err != nil {
			return refuse(err)
		}
	}
	if err := s.crossOrigin.Check(r); err != nil {
		return refuse(fault.New(fault.TenantUnauthorized, "River's UI takes no change from another origin."))
	}
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	default:
		return refuse(fault.New(fault.ServiceUnavailable, "The service is busy. Please retry shortly.", fault.WithRetryAfter(time.Second)))
	}
	h := w.Header()
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
		guardBody(w, r, s.body, start)
	}
	s.jobsUI.ServeHTTP(w, r)
	return nil
}

// authenticateOperator checks the request's operator key, sent as the
// password of HTTP Basic authentication (what a browser sends once asked)
// or as an API key is. A request without it, or with a wrong Basic
// password, is asked for it (401, so that a browser prompts again); a
// wrong key sent otherwise is a 403. Failures are charged to the client's
// address, as the API's are.
func (s *Server) authenticateOperator(w http.ResponseWriter, r *http.Request) error {
	_, key, basic := r.BasicAuth()
	if !basic {
		key = requestKey(r)
	}
	if key != "" {
		sum := sha256.Sum256([]byte(key))
		if subtle.ConstantTimeCompare(sum[:], s.operator[:]) == 1 {
			return nil
		}
	}
	if wait, limited := s.authFails.charge(clientAddr(r), s.cfg.Now()); limited {
		return fault.New(fault.RateLimited, "Too many failed authentications from this address. Please retry later.",
			fault.WithRetryAfter(wait))
	}
	if key == "" || basic {
		w.Header().Set("WWW-Authenticate", operatorRealm)
		return fault.New(fault.TenantRequired, "This is the operators': send the operator key (TRIAGE_OPERATOR_KEY) as the password of HTTP Basic authentication, in the X-API-Key header, or in the Authorization header with the scheme Bearer; a tenant's API key does not open it.")
	}
	return fault.New(fault.TenantUnauthorized, "The key is not the operator key.")
}
