package riverui

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/riverqueue/river"
	"riverqueue.com/riverui"
)

// Handler is River's web UI: an http.Handler for the paths under its
// prefix, with background services that Start runs until its ctx ends.
type Handler interface {
	http.Handler
	Start(ctx context.Context) error
}

// New returns River's web UI for client, the River client of a store's
// job queue (sqlite.Store.RiverClient, postgres.Store.RiverClient),
// serving the paths under prefix ("/riverui": the page at /riverui/, its
// API under /riverui/api/). log receives the UI's own logs.
func New[TTx any](client *river.Client[TTx], prefix string, log *slog.Logger) (Handler, error) {
	if client == nil {
		return nil, fmt.Errorf("riverui: no River client")
	}
	h, err := riverui.NewHandler(&riverui.HandlerOpts{Endpoints: riverui.NewEndpoints(client, nil), Logger: log, Prefix: prefix})
	if err != nil {
		return nil, fmt.Errorf("riverui: %w", err)
	}
	return h, nil
}
