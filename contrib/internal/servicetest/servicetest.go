package servicetest

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"

	triageserver "github.com/triage-go/triage/server"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
)

// Service is a running service.
type Service struct {
	// URL is its base URL, for client.New.
	URL string

	dir string
	st  store.Store
	srv *triageserver.Server
	hs  *httptest.Server
}

// Start runs the service with apiKeys (API key → tenant; nil for an open
// service), its store a fresh SQLite file, its jobs not polled.
func Start(apiKeys map[string]string) (*Service, error) {
	dir, err := os.MkdirTemp("", "triage-contrib")
	if err != nil {
		return nil, err
	}
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "triage.db"), store.Config{})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	srv, err := triageserver.New(triageserver.Config{Store: st, APIKeys: apiKeys, JobPoll: -1,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		st.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	hs := httptest.NewServer(srv)
	return &Service{URL: hs.URL, dir: dir, st: st, srv: srv, hs: hs}, nil
}

// Close stops the service and removes its files.
func (s *Service) Close() {
	s.hs.Close()
	s.srv.Close()
	s.st.Close()
	os.RemoveAll(s.dir)
}
