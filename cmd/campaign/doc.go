// Command campaign runs the hostile-tenant campaign of issue 12 against a
// real `triage serve`, built from this module and started as a
// subprocess on 127.0.0.1 with its database in a temporary directory:
//
//	go run ./cmd/campaign [-scale 1] [-only slow-body,kill-9] [-bin PATH]
//
// Each scenario has a file of its own and is bounded in time (the whole
// campaign takes ~4 minutes at -scale 1; -scale 0.1 is the test's tiny
// run, larger scales hold each load longer and send more):
//
//   - slow-body: tenant A holds many POSTs whose body comes at 1 byte/s
//     while tenant B posts reports (slowbody.go);
//   - amplification: A fills big records through the API, and clients
//     fetch the worst pages at once while B posts (amplify.go);
//   - bad-bytes: hostile requests, each answered by a problem or one of
//     net/http's documented plain answers, never 500 (badbytes.go);
//   - secret-canary: secrets in data.context and data.message, looked for
//     in every answer, the event stream and the log (canary.go);
//   - disk-full: a 40 MiB tmpfs filled up, then freed (diskfull.go);
//   - kill-9: the process killed under load and restarted, three times,
//     and every acknowledged report looked for (kill9.go);
//   - stream-hog: A opens as many event streams and MCP sessions as it
//     can while B posts (streamhog.go);
//   - mcp-batch: A sends JSON-RPC batches of 20,000 tools/list to /mcp
//     and hoards MCP sessions while B's MCP clients work (mcpbatch.go);
//   - pg-pool-hog: on PostgreSQL (TRIAGE_TEST_POSTGRES, else skipped), 64
//     of A's clients read a 4 MB record at once, slowly, while B posts
//     and reads (pghog.go);
//   - nats-cross-tenant: on NATS (TRIAGE_TEST_NATS, else skipped), A's
//     reports name B's subjects as Triage-Reply-To, take B's Nats-Msg-Id
//     values first, and flood A's subject while B publishes
//     (natstenant.go);
//   - job-tarpit: A's retries go to a callback that answers after 120 s
//     while B's retries are due (jobtarpit.go).
//
// -bin attacks a binary built elsewhere (another commit's) instead.
//
// It prints one table and exits 1 when a report acknowledged was lost, a
// canary leaked or a scenario's check failed.
package main
