package main

import (
	"os"
	"os/exec"
	"testing"
)

// TestPackagesInstall packs the web workspace's packages (npm pack
// @triage/kit and @triage/client) and installs them as their users would
// (web/install/packages.test.js): the kit into a fresh create-vite React +
// TypeScript app (web/testdata/create-vite-react-ts, the pinned template
// with its lockfile), whose `npm run build` (tsc -b, vite build) must pass
// under the template's defaults and whose build, in Chromium, shows a
// failing run of triage serve's echo agent with the kit and reports it
// with the client from the browser; and the client
// into an empty Node project, where a type-checked script reports an error
// to triage serve and reads it back. It prints the tarballs' sizes and the
// gzip bytes the kit and the client add to the app's bundle (docs/kit.md
// quotes them).
//
// It needs Node.js, `npm ci --prefix web`, Chromium (as
// TestDashboardInBrowser) and the npm registry or npm's cache (the app's
// installs), and skips, saying which is missing, without the first three.
func TestPackagesInstall(t *testing.T) {
	const install = "npm ci --prefix web"
	chromium := os.Getenv("TRIAGE_TEST_CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := exec.LookPath(chromium); err != nil {
		t.Skipf("no Chromium at %s, so the packages are not installed into fresh apps; install it (apt-get install -y chromium) or set TRIAGE_TEST_CHROMIUM to a Chromium binary, and run this test again (%v)", chromium, err)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skipf("npm is not on PATH, so the packages are not packed nor installed into fresh apps; install npm, run `%s`, and run this test again", install)
	}
	runNodeSuite(t, nodeSuite{
		dir:      "../../web",
		tests:    "install/*.test.js",
		install:  install,
		checks:   "the packages are not installed into fresh apps",
		requires: []string{"playwright-core", "typescript", "@ag-ui/client", "@ag-ui/core"},
		env:      []string{"TRIAGE_TEST_CHROMIUM=" + chromium},
	})
}
