//go:build !riverui

package cli

import (
	"errors"
	"log/slog"

	"github.com/riverqueue/river"
	"github.com/triage-go/triage/server"
)

// riverUIBuilt says this build has River's web UI (--riverui): it has
// not, as it was built without -tags riverui, and carries none of
// riverqueue.com/riverui.
const riverUIBuilt = false

// newRiverUI is never reached in this build: runServe refuses --riverui
// first (riverUIBuilt).
func newRiverUI[TTx any](*river.Client[TTx], *slog.Logger) (server.JobsUI, error) {
	return nil, errors.New("River's web UI is not built in: " + rebuildHint("riverui"))
}
