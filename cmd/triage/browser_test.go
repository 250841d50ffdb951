package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestDashboardInBrowser builds the triage binary and runs the dashboard's
// browser tests (web/e2e, `node --test`) against `triage serve` on
// loopback: Chromium, driven by playwright-core (pinned in
// web/package.json), loads the dashboard with no console error, CSP
// violation or request outside the service; sees errors posted through
// the API appear live, filters and pages them, and resumes the live
// stream with Last-Event-ID after the service restarts; opens a record
// with its report, root cause, actions, occurrences and jobs; runs the
// playground's agents through HttpAgent, a RATE_LIMITED run showing the
// kit's toast and countdown before Retry; with API keys, asks for one
// and shows a wrong key's 403 problem; holds every page to axe-core
// (no serious or critical violation, light and dark, 390 and 1280 px),
// keyboard focus (the key dialog's trap, the h1 on navigation) and
// widths (no sideways page scroll at 390 to 1920 px); and, from a page
// on another loopback origin, calls the API and streams an AG-UI run
// with CORS on (--cors-origins) and is refused by the browser with it
// off. Node's output is streamed into the test log.
//
// The browser is Debian's Chromium (Playwright's own download is not
// used): TRIAGE_TEST_CHROMIUM names it, else /usr/bin/chromium. The
// screenshots go to TRIAGE_SCREENSHOTS when set (docs/img refreshes the
// documentation's), else to a temporary directory. It needs Node.js and
//
//	npm ci --prefix web
//	apt-get install -y chromium
//
// and skips, saying which is missing, without them (CI installs them: see
// .ci/run, where nothing may skip).
func TestDashboardInBrowser(t *testing.T) {
	const install = "npm ci --prefix web"
	chromium := os.Getenv("TRIAGE_TEST_CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := exec.LookPath(chromium); err != nil {
		t.Skipf("no Chromium at %s, so the dashboard is not tested in a browser; install it (apt-get install -y chromium) or set TRIAGE_TEST_CHROMIUM to a Chromium binary, and run this test again (%v)", chromium, err)
	}
	shots := os.Getenv("TRIAGE_SCREENSHOTS")
	if shots == "" {
		shots = filepath.Join(t.TempDir(), "screenshots")
	} else if abs, err := filepath.Abs(shots); err == nil {
		shots = abs
	}
	runNodeSuite(t, nodeSuite{
		dir:      "../../web",
		tests:    "e2e/*.test.js",
		install:  install,
		checks:   "the dashboard is not tested in a browser",
		requires: []string{"playwright-core", "axe-core", "@ag-ui/client", "react", "sonner"},
		env:      []string{"TRIAGE_TEST_CHROMIUM=" + chromium, "TRIAGE_SCREENSHOTS=" + shots},
		// Each file starts its services and its browser: a few at once.
		concurrency: 3,
	})
}
