-- checkpoints: the latest checkpoint of each graph run (graph.Checkpoint,
-- saved by store.Checkpointer), one per tenant and run, replaced at every
-- step: state is the state's JSON document, branches a JSON object of the
-- completed branches' results by name (NULL: none), path a JSON array of
-- the nodes completed (NULL: none). Expire deletes them by done and
-- saved_at.
CREATE TABLE checkpoints (
	tenant TEXT NOT NULL,
	run_id TEXT NOT NULL,
	step BIGINT NOT NULL,
	node TEXT NOT NULL,
	at_exit BOOLEAN NOT NULL,
	done BOOLEAN NOT NULL,
	error TEXT NOT NULL,
	state TEXT NOT NULL,
	branches TEXT,
	path TEXT,
	saved_at BIGINT NOT NULL,
	PRIMARY KEY (tenant, run_id)
);
CREATE INDEX checkpoints_by_save ON checkpoints (done, saved_at);
