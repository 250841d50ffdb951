-- Issue 28: the handler's history (the window of failures its decision
-- counts) as one B-tree. It was three: history (by rowid), its index
-- history_by_key, and history_counts (the key's total, kept by three
-- triggers), ~3.45 pages of the ~30 a report committed alone writes
-- (TestLeavesPerReport).
--
-- Now history is keyed by (tenant, agent, code, at), WITHOUT ROWID: a
-- row per key and time, n the failures at that time (sqlstore's
-- keepFailure upserts it), and the key's total in the row at the
-- greatest time (9223372036854775807) of the same key, which no failure
-- takes (a failure's time is kept at most one less). A key's new failure
-- lands beside its total, on the same leaf as a rule, and the window's
-- count is the total less the failures after the window: one range of
-- the same B-tree (and the failures before it, forgotten as the key
-- records: an empty range as a rule).
--
-- The rows move over exactly: the failures of one key and time become
-- one row counting them, and each key's total is the count history_counts
-- held (its triggers kept it equal to the key's rows).
CREATE TABLE history_keyed (
	tenant TEXT NOT NULL,
	agent TEXT NOT NULL,
	code TEXT NOT NULL,
	at INTEGER NOT NULL,
	n INTEGER NOT NULL,
	PRIMARY KEY (tenant, agent, code, at)
) WITHOUT ROWID;

INSERT INTO history_keyed (tenant, agent, code, at, n)
	SELECT tenant, agent, code, min(at, 9223372036854775806) AS t, count(*) FROM history
	GROUP BY tenant, agent, code, t;

INSERT INTO history_keyed (tenant, agent, code, at, n)
	SELECT tenant, agent, code, 9223372036854775807, n FROM history_counts WHERE n <> 0;

DROP TRIGGER history_count_insert;
DROP TRIGGER history_count_delete;
DROP TRIGGER history_count_update;
DROP TABLE history_counts;
DROP TABLE history;
ALTER TABLE history_keyed RENAME TO history;
