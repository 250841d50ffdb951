-- runs: the record of each AG-UI agent run (POST /v1/runs/{agent_id}), one
-- per tenant and run id (the RunAgentInput's runId): a second run with the
-- id is refused while the row exists. outcome is running, finished, failed
-- or disconnected; fault the failed run's fault as a JSON object (without
-- debug output), NULL otherwise; answer_bytes the length of a finished
-- run's answer. started_at and finished_at (0 while running) are in
-- nanoseconds. Expire deletes them by started_at.
CREATE TABLE runs (
	tenant TEXT NOT NULL,
	run_id TEXT NOT NULL,
	thread_id TEXT NOT NULL,
	agent_id TEXT NOT NULL,
	outcome TEXT NOT NULL,
	started_at BIGINT NOT NULL,
	finished_at BIGINT NOT NULL,
	fault TEXT,
	answer_bytes BIGINT NOT NULL,
	PRIMARY KEY (tenant, run_id)
);
CREATE INDEX runs_by_start ON runs (started_at);
