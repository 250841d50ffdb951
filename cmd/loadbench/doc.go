// Command loadbench measures POST /v1/errors on loopback, side by side
// with a bare net/http handler that decodes and encodes the same JSON, in
// one run on one machine: requests per second, p50 and p99 latency, and
// the service's throughput as a share of the bare handler's.
//
// Two floors run between them: the bare handler with each request
// committed to SQLite (one row, group commit, synchronous=FULL) before
// the answer, and the Error Handler with its state in memory and the
// report with its feedback committed as one such row. They bound what any
// design that answers only once a report is durable can reach here.
//
//	go run ./cmd/loadbench [-requests 4000] [-concurrency 16] [-serial 1000] [-duration 20s] [-postgres URL] [-records N] [-repeat P] [-sqlite=false] [-vacuum]
//
// Each request is a new report (its own query_id), so every one is fully
// handled and committed (201); with -repeat P, P % of them resend an
// earlier request's report instead (its query_id, so its record, with a
// time and so a delivery of their own: a new occurrence of a recorded
// error and a new attempt at its query, see repeat.go). The count and the time are bounded. After
// each target's load from -concurrency clients, -serial requests are sent
// from one client at a time (0: none), and a second table puts their p50
// side by side: each service's (and its store floor's) as a multiple of
// its floor's (floor 2's on SQLite, the PostgreSQL floor's) and of the
// bare handler's, so that the one-client ratio is measured in one run. With
// -postgres, a PostgreSQL floor (the bare handler and one durable
// PostgreSQL insert per request) runs before the service on PostgreSQL.
//
// For each target it reports the bytes written to disk per request: this
// process's write_bytes (/proc/self/io) for the in-process SQLite targets,
// the PostgreSQL server processes' for the PostgreSQL ones (readable as
// root or the postgres user; the postmaster left out, whose count holds
// every backend it reaped, of whichever session), with, for those,
// PostgreSQL's own count: its WAL and the pages it wrote (pg_stat_io, or
// pg_stat_bgwriter before 16). Each PostgreSQL target's counts are read
// after a CHECKPOINT, before and after its load, where the role may: a
// load is charged its WAL and every page it dirtied, written once, and
// none of the pages of the pre-fill or an earlier load, which the
// checkpointer would otherwise write during a later one (an upper bound:
// a server's own checkpoints, minutes apart, write a page dirtied again
// and again once). The operating system's count of the server's writes
// is several times PostgreSQL's own (a WAL page is written again at each
// commit that flushes it). -records N stores N
// reports in each service's store, untimed, before its load, so that the
// cost of a report can be read against the size of the store (on
// PostgreSQL a CHECKPOINT follows, where the role may, so that the fill's
// pages are not written during the load); after each service's load,
// as many GET /v1/errors?query_id=… of the reports it posted are timed,
// then 500 more from one client at a time, with this process's CPU time
// per lookup (client and service: the figure a loaded machine moves
// least).
// On PostgreSQL it also runs two instances of the service on the same
// database, the clients taking turns, and prints PostgreSQL's own work
// per request: its processes' CPU time and the WAL it wrote.
//
// After each service's load, a store floor runs on the same store: the
// read and the one write the service makes of each report (PeekReport,
// then Report with its jobs; shapes sampled from the service's own; before
// issue 28 it was two writes, Start then SaveOccurrence), from as many
// goroutines, without HTTP or the handler. The service's rate as a share
// of it says how much of the service's cost is its store's. -sqlite=false
// skips the SQLite targets; -vacuum runs VACUUM ANALYZE on the PostgreSQL
// store after its pre-fill, as autovacuum would on a server that has it.
//
// The in-process services run as `triage serve` runs them (server.Serve:
// the job worker on, the log at INFO written to a file); what they leave
// out is the MCP bridge's agents, the dashboard and tracing, which a
// report does not touch, and a process and loopback of their own.
//
//	go run ./cmd/loadbench -ablate 'none/listing/search/counts/streams/expiry/all/detail' [-records N] [-postgres URL]
//
// measures what each part of the store costs a report: for each
// configuration (separated by "/"; each a comma-separated list of parts,
// "all" or "none") the whole run above is made again, its floors
// included, with those parts removed from the new store's schema after
// its migrations and before its pre-fill (see ablate.go): listing (the
// records' indexes of the listing's filters and sorts, and GET
// ?query_id's, whose lookups are then skipped), search (SQLite: the
// triggers that queue records for the full-text index; PostgreSQL: the
// search column and its GIN index), counts (SQLite: record_counts'
// triggers and index; PostgreSQL, whose report statement writes the
// counts itself: the index only), streams (the occurrences' indexes of the feedback stream and of
// an MCP session's records), expiry (the claims' and attempts' indexes by
// time) and detail (occurrences_by_record: a record's occurrences and,
// measured, the write path's too, so not in all). Each part removed
// breaks the feature it serves (the output's footnotes say which), not
// the write path: what all leaves is what the guarantees need (the
// record unique by error, the delivery key unique, the attempts' key,
// the handler's history (and its totals), the occurrences' foreign key to
// their record and its child index). After the SQLite loads, with
// -serial > 0, the WAL frames (pages of 2 KB) per report at batch 1 are
// counted, for the store alone and for the service, each from one
// client over 200 reports, with a read transaction held so that no
// checkpoint restarts the WAL meanwhile. A configuration whose run fails
// is said and the next one measured. The last tables put the
// configurations side by side: each service's and store's share of the
// same run's floor, the one-client p50 as a multiple of its floor's, the
// bytes written and the pages per report, and the CPU per report (this
// process's for the SQLite targets, PostgreSQL's processes' for its).
//
//	go run ./cmd/loadbench -real [-requests 4000] [-serial 1000] [-idle 30s] [-records N] [-postgres URL] [-bin triage]
//
// measures the real thing instead: `triage serve` built from ./cmd/triage
// (or -bin) and run as a child process on a loopback port, on a fresh
// SQLite file and, with -postgres, a scratch schema, with its defaults but
// --rate-limit -1 (its log at INFO to a file, its job worker on), beside a
// bare child process (this program again, -bare-child: decode and encode
// over HTTP), so that both pay a process and loopback alike. Each is
// loaded from -concurrency clients, then from one client at a time, and
// so is floor 2 in a child process of its own (this program again,
// -floor2-child: the handler and one durable SQLite row, as in process),
// whose req/s and p50 each row is also given a share and a multiple of.
// Each child's CPU time per request is read from /proc/PID/stat, its
// log's bytes per request, the jobs left in its store, and its CPU time
// at rest over -idle after the loads (see real.go).
//
//	go run ./cmd/loadbench -amplify [-postgres URL]
//
// measures instead the process's peak RSS while clients fetch the worst
// pages of error records (see amplify.go).
package main
