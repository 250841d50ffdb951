package jobsui

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"riverqueue.com/riverui"
	"riverqueue.com/riverui/uiendpoints"
)

// Handler is River's web UI: an http.Handler for the paths under its
// prefix, with background services that Start runs until its ctx ends.
type Handler interface {
	http.Handler
	Start(ctx context.Context) error
}

// New returns River's web UI for client, a store's River client
// (store.Jobs.Client), serving the paths under prefix ("/riverui": the
// page at /riverui/, its API under /riverui/api/). log receives the UI's
// own logs.
func New(client any, prefix string, log *slog.Logger) (Handler, error) {
	var endpoints uiendpoints.Bundle
	switch c := client.(type) {
	case *river.Client[pgx.Tx]:
		endpoints = riverui.NewEndpoints(c, nil)
	case *river.Client[*sql.Tx]:
		endpoints = riverui.NewEndpoints(c, nil)
	default:
		return nil, fmt.Errorf("jobsui: the store's job queue has no River client this UI knows (%T)", client)
	}
	h, err := riverui.NewHandler(&riverui.HandlerOpts{Endpoints: endpoints, Logger: log, Prefix: prefix})
	if err != nil {
		return nil, fmt.Errorf("jobsui: %w", err)
	}
	return h, nil
}
