// Package store is the durable storage of the Error Handler service
// (triage serve): error records, the handler's state (attempt counts,
// failure history, delivered feedback, the schema inventory, cached
// results), idempotency keys, agents' callback addresses, durable jobs,
// the checkpoints of graph runs and the records of AG-UI agent runs.
//
// # Jobs
//
// The durable jobs (the retries the handler schedules, the escalations
// it sends) run on River (github.com/riverqueue/river) in the store's own
// database, on both stores. A job saved with an occurrence
// (Occurrence.Jobs) is inserted in the occurrence's transaction: a 201
// means its jobs are committed. Jobs.Work runs them with a JobWorker: a
// failed attempt runs again after WorkOptions.Backoff (never sooner than
// the failure's Retry-After), an error wrapping ErrPermanent cancels the
// job, exhausted attempts discard it; a job whose instance died while it
// ran is rescued after WorkOptions.RescueAfter and runs again (at least
// once); a job enqueued twice through Enqueuer.Enqueue with the same kind,
// tenant, error and payload runs once (River's unique jobs), and a job
// repeated in one Occurrence.Jobs goes in once. A record lists its latest
// RecordJobs jobs with River's states and attempts, and ErrorJobs pages
// through all of them, the latest first. River keeps finished
// jobs for a week (discarded ones a month), then deletes them.
//
// Store is the interface; store/sqlite (modernc.org/sqlite, WAL, the
// embedded default) and store/postgres (pgx, for many instances sharing one
// database) implement it, and both pass one conformance suite,
// store/storetest.
//
// Every read and write goes through a Tenant view: a tenant never sees
// another's records. A Tenant implements the handler's store interfaces
// (triage.Attempts, History, Deliveries, Synonyms, Cache), so that a
// handler.Handler built on it keeps its state across restarts and shares
// it between instances.
//
// Tenant is the composition of small interfaces, one idea each, and a
// user takes the smallest it needs: triage.State (the handler's per-report
// state), Knowledge (the schema inventory and cached results, with their
// writes), Agents (the callback URLs), OccurrenceSaver (the report path's
// commit), Reporter (the report path in one write: PeekReport reads what
// triage.State.Start would find, Report claims, counts, records and saves
// in one transaction when what the decision was made on still holds, else
// writes nothing and returns ErrReportMoved), Records (the reads of records and occurrences), Feed (the
// feedback in stream order, for event streams), Requests (the
// Idempotency-Key requests), Enqueuer (a job on its own), Checkpoints
// (graph runs), Runs (AG-UI runs), Throttles and Trends (the occurrences
// counted per record and hour).
//
// # Search, sorts and trends
//
// Records.ErrorRecords lists a tenant's records in a Filter's Sort
// (SortLastSeen by default, SortFirstSeen, SortCount, or SortCount in a
// Window), each walking an index, with the Total the filter selects
// (counted up to TotalCap); a Filter's Search keeps the records whose
// title (triage.Report.Title, saved with the occurrence's Code and Title),
// code, agent or query have a word beginning with each of its terms
// (ParseSearch), on the store's full-text index (SQLite's FTS5,
// PostgreSQL's tsvector). Trends reads the occurrences per record and
// hour that triggers count as each occurrence is saved, by record, agent
// or code, in hour or day buckets; Store.Expire deletes them after 30
// days (Retention's Counts).
//
// # Graph checkpoints
//
// checkpoint.New (package store/checkpoint) is the durable
// graph.Checkpointer: on a Tenant, it keeps one
// checkpoint per run of a graph (the latest; each Save replaces it), keyed
// by the tenant and the run id, so that graph.Runnable.Resume continues a
// failed run after a restart, or on another instance sharing the database,
// and one tenant never loads another's run:
//
//	r, err := g.Compile(&graph.Config[State]{Checkpointer: checkpoint.New[State](st.Tenant("acme"))})
//	…
//	out, err := r.Resume(ctx, runID) // after a restart, on the store opened anew
//
// The state and the branches' results are stored as JSON documents
// (encoding/json: S must round-trip through it), the node, the path and
// the failure's message beside them (Checkpoint, Checkpoints.SaveCheckpoint). A
// checkpoint is at most MaxCheckpointSize (4 MiB) encoded: a larger one
// fails the Save with ErrCheckpointTooLarge, and so the run. Store.Expire
// deletes a finished run's checkpoint a day after it was saved and an
// unfinished one's a week after it was last saved (Retention's
// FinishedCheckpoints and Checkpoints).
//
// # Run records
//
// A Tenant's Runs keep one record per AG-UI agent run and run id: StartRun
// records it running (a second start of the id is ErrRunExists, until the
// record expires), FinishRun its outcome, once (ErrRunEnded after), with
// a failed run's fault as JSON; GetRun reads it. A record holds ids, times,
// the outcome, the fault (at most MaxRunFaultBytes) and the answer's
// length: no prompt, answer or state. Store.Expire deletes it a week after
// the run started (Retention's Runs).
package store
