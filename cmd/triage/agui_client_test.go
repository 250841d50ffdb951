package main

import "testing"

// TestAGUIClient builds the triage binary and runs testdata/agui-client's
// tests (`node --test`) against `triage serve`: the official AG-UI client
// (@ag-ui/client and @ag-ui/core 1.0.0, pinned in package.json and
// package-lock.json) points its HttpAgent at POST /v1/agents/{agent_id}/runs and
// checks what its subscriber callbacks receive: a streamed answer, runs
// failing before and after text (RUN_ERROR with code, retryability and
// retry delay), the client aborting a run (the server stops it), inputs and
// runs refused before the stream (problem+json), runs in progress when
// serve is sent SIGTERM (RUN_ERROR SERVICE_UNAVAILABLE), the API keys, and that
// the client's own verifier and enforcement accept every stream without a
// warning. Node's output is streamed into the test log.
//
// It needs Node.js 20 or later and the packages installed:
//
//	npm ci --prefix cmd/triage/testdata/agui-client
//
// and skips, saying which is missing, without them (CI installs them: see
// .ci/run, where nothing may skip).
func TestAGUIClient(t *testing.T) {
	runNodeSuite(t, nodeSuite{
		dir:      "testdata/agui-client",
		checks:   "the AG-UI run endpoint is not checked with the official @ag-ui/client",
		requires: []string{"@ag-ui/client", "@ag-ui/core"},
		// All at once: heartbeat.test.js waits 16s for a keep-alive.
	})
}
