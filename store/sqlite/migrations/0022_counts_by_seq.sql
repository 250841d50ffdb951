-- Issue 28: keys that append. record_counts was keyed by the record's
-- error ID (a hash): each new record's hourly count landed on a random
-- leaf of the table, and its entry in record_counts_by_hour (the hour,
-- then the table's key) on a random leaf of the hour's range: two leaves
-- of their own per report once the table outgrew a commit's reports
-- (TestLeavesPerReport). Keyed by the record's seq instead, which grows
-- with each new record, a new record's count goes at the end of the table
-- and at the end of its hour's range, the last of the index: the pages
-- the commit's other reports write too. A record's series finds its seq
-- by its error ID (the records' unique index, one look-up); a range of
-- every record's groups by seq and looks each record up by its key.
DROP TRIGGER record_counts_insert;
DROP TRIGGER record_counts_update;

CREATE TABLE record_counts_by_seq (
	tenant TEXT NOT NULL,
	seq INTEGER NOT NULL,
	hour INTEGER NOT NULL,
	agent_id TEXT NOT NULL,
	code TEXT NOT NULL,
	n INTEGER NOT NULL,
	PRIMARY KEY (tenant, seq, hour)
) WITHOUT ROWID;

-- The counts of records that are gone (none: Expire deletes them with
-- their record) are not carried over.
INSERT INTO record_counts_by_seq (tenant, seq, hour, agent_id, code, n)
SELECT c.tenant, r.seq, c.hour, c.agent_id, c.code, c.n
FROM record_counts AS c JOIN records AS r ON r.tenant = c.tenant AND r.error_id = c.error_id
ORDER BY c.tenant, r.seq, c.hour;

DROP TABLE record_counts;
ALTER TABLE record_counts_by_seq RENAME TO record_counts;
CREATE INDEX record_counts_by_hour ON record_counts (tenant, hour);

-- As before (0016), by the record's seq.
CREATE TRIGGER record_counts_insert AFTER INSERT ON records BEGIN
	INSERT INTO record_counts (tenant, seq, hour, agent_id, code, n)
	VALUES (NEW.tenant, NEW.seq, NEW.last_seen / 3600000000000, NEW.agent_id, NEW.code, NEW.occurrence_count)
	ON CONFLICT (tenant, seq, hour) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER record_counts_update AFTER UPDATE OF occurrence_count ON records
WHEN NEW.occurrence_count > OLD.occurrence_count BEGIN
	INSERT INTO record_counts (tenant, seq, hour, agent_id, code, n)
	VALUES (NEW.tenant, NEW.seq, NEW.last_seen / 3600000000000, NEW.agent_id, NEW.code,
		NEW.occurrence_count - OLD.occurrence_count)
	ON CONFLICT (tenant, seq, hour) DO UPDATE SET n = n + excluded.n;
END;
