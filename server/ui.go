package server

import (
	"net/http"

	"github.com/triage-go/triage/fault"
)

// dashboard serves Config.UI at GET / and GET /assets/…. What the UI does
// not have (it answers 404) is the API's 404 problem instead of the UI's
// own answer, so that an unknown path reads the same wherever it is.
func (s *Server) dashboard(w http.ResponseWriter, r *http.Request) error {
	uw := &uiWriter{ResponseWriter: w, before: make(map[string]bool, len(w.Header()))}
	for k := range w.Header() {
		uw.before[k] = true
	}
	s.cfg.UI.ServeHTTP(uw, r)
	if !uw.notFound {
		return nil
	}
	// The headers the UI set for its 404 (a text/plain content type, say)
	// are not the problem's.
	for k := range w.Header() {
		if !uw.before[k] {
			w.Header().Del(k)
		}
	}
	return fault.New(fault.NotFound, "No such endpoint.", fault.WithDetail("path", r.URL.Path))
}

// uiWriter passes the UI's answer through, unless it is a 404: that one
// it swallows, and says so.
type uiWriter struct {
	http.ResponseWriter
	before   map[string]bool // the headers set before the UI ran
	wrote    bool
	notFound bool
}

func (u *uiWriter) WriteHeader(status int) {
	if u.wrote {
		return
	}
	u.wrote = true
	if status == http.StatusNotFound {
		u.notFound = true
		return
	}
	u.ResponseWriter.WriteHeader(status)
}

func (u *uiWriter) Write(p []byte) (int, error) {
	if !u.wrote {
		u.WriteHeader(http.StatusOK)
	}
	if u.notFound {
		return len(p), nil
	}
	return u.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection.
func (u *uiWriter) Unwrap() http.ResponseWriter { return u.ResponseWriter }
