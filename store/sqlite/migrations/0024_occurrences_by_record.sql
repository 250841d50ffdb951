-- Issue 28: keys that append. An error's occurrences were found through
-- occurrences_by_error (tenant, error_id, received_at, id), whose error ID
-- is a hash: each new record's first occurrence landed on a random leaf
-- of it (~1 WAL frame per report, TestServicePagesPerReport). They are
-- found through the record's seq instead, which grows with each new
-- record: a new record's occurrences go at the end of the tenant's range
-- of occurrences_by_record (tenant, record_seq, received_at, id), the page
-- the commit's other reports write too. A read by error ID looks the
-- record's seq up first (the records' unique index, one look-up).
--
-- The table is rebuilt: its deferred foreign key on (tenant, error_id)
-- would have SQLite look a deleted record's occurrences up by error ID,
-- with no index left for it, a scan of the table per record Expire
-- deletes. The key is on (tenant, record_seq) now, to the records'
-- (tenant, seq), which records_by_seq, made unique, holds (seq is unique
-- alone already); occurrences_by_record serves its look-ups.
DROP INDEX records_by_seq;
CREATE UNIQUE INDEX records_by_seq ON records (tenant, seq);

CREATE TABLE occurrences_by_seq (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	tenant TEXT NOT NULL,
	delivery_key TEXT,
	error_id TEXT NOT NULL,
	record_seq INTEGER NOT NULL,
	query_id TEXT NOT NULL,
	agent_id TEXT NOT NULL,
	error_type TEXT NOT NULL,
	severity TEXT NOT NULL,
	next_action TEXT NOT NULL,
	attempt INTEGER NOT NULL,
	reported_at INTEGER NOT NULL,
	received_at INTEGER NOT NULL,
	report TEXT,
	feedback TEXT,
	actions TEXT,
	UNIQUE (tenant, delivery_key),
	FOREIGN KEY (tenant, record_seq) REFERENCES records (tenant, seq) DEFERRABLE INITIALLY DEFERRED
);

-- Every occurrence has its record (the old foreign key held it).
INSERT INTO occurrences_by_seq (id, tenant, delivery_key, error_id, record_seq, query_id, agent_id, error_type,
	severity, next_action, attempt, reported_at, received_at, report, feedback, actions)
SELECT o.id, o.tenant, o.delivery_key, o.error_id, r.seq, o.query_id, o.agent_id, o.error_type,
	o.severity, o.next_action, o.attempt, o.reported_at, o.received_at, o.report, o.feedback, o.actions
FROM occurrences AS o JOIN records AS r ON r.tenant = o.tenant AND r.error_id = o.error_id
ORDER BY o.id;

-- The IDs go on from the old table's largest ever (an occurrence's ID is
-- its position in the event streams: one deleted is never reused).
DELETE FROM sqlite_sequence WHERE name = 'occurrences_by_seq';
INSERT INTO sqlite_sequence (name, seq) SELECT 'occurrences_by_seq', seq FROM sqlite_sequence WHERE name = 'occurrences';

DROP TABLE occurrences;
ALTER TABLE occurrences_by_seq RENAME TO occurrences;
CREATE INDEX occurrences_by_record ON occurrences (tenant, record_seq, received_at, id);
-- As 0012 made it.
CREATE INDEX occurrences_by_tenant ON occurrences (tenant);
