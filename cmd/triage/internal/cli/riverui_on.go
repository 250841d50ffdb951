//go:build riverui

package cli

import (
	"log/slog"

	"github.com/riverqueue/river"
	"github.com/triage-go/triage/adapter/riverui"
	"github.com/triage-go/triage/server"
)

// riverUIBuilt says this build has River's web UI (--riverui): built in
// with -tags riverui.
const riverUIBuilt = true

// newRiverUI builds River's web UI for a store's River client.
func newRiverUI[TTx any](client *river.Client[TTx], log *slog.Logger) (server.JobsUI, error) {
	return riverui.New(client, server.JobsUIPath, log)
}
