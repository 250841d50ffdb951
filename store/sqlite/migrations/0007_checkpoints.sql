-- checkpoints: the latest checkpoint of each graph run (graph.Checkpoint,
-- saved by store.Checkpointer), one per tenant and run, replaced at every
-- step: state is the state's JSON document, branches a JSON object of the
-- completed branches' results by name (NULL: none), path a JSON array of
-- the nodes completed (NULL: none). at_exit and done are 0 or 1. Expire
-- deletes them by done and saved_at.
CREATE TABLE checkpoints (
	tenant TEXT NOT NULL,
	run_id TEXT NOT NULL,
	step INTEGER NOT NULL,
	node TEXT NOT NULL,
	at_exit INTEGER NOT NULL,
	done INTEGER NOT NULL,
	error TEXT NOT NULL,
	state TEXT NOT NULL,
	branches TEXT,
	path TEXT,
	saved_at INTEGER NOT NULL,
	PRIMARY KEY (tenant, run_id)
);
CREATE INDEX checkpoints_by_save ON checkpoints (done, saved_at);
