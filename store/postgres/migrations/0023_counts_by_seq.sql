-- Issue 28: keys that append. record_counts was keyed by the record's
-- error ID (a hash): each new record's hourly count put an entry on a
-- random leaf of the primary key (record_counts_by_hour orders equal keys
-- by the row's position, so its entry went at the index's end already).
-- Keyed by the record's seq instead, which grows with each new record, a
-- new record's entry goes at the end of the primary key too. A record's
-- series finds its seq by its error ID (the records' unique index, one
-- look-up); a range of every record's groups by seq and looks each record
-- up by its key.
ALTER TABLE record_counts ADD COLUMN seq BIGINT;
UPDATE record_counts AS c SET seq = r.seq FROM records AS r WHERE r.tenant = c.tenant AND r.error_id = c.error_id;
-- The counts of records that are gone (none: Expire deletes them with
-- their record) are not carried over.
DELETE FROM record_counts WHERE seq IS NULL;
ALTER TABLE record_counts ALTER COLUMN seq SET NOT NULL;

DROP INDEX record_counts_by_hour;
ALTER TABLE record_counts DROP CONSTRAINT record_counts_pkey;
ALTER TABLE record_counts DROP COLUMN error_id;
ALTER TABLE record_counts ADD PRIMARY KEY (tenant, seq, hour);
-- Without the columns 0017 included (no read of the index was served by
-- them alone: every read of the counts sums n, which no index holds so
-- that a count stays a HOT update): an entry of (tenant, seq, hour) is
-- smaller than one with them, and the planner read the whole of the
-- tenant's primary key for a range of hours rather than this index.
CREATE INDEX record_counts_by_hour ON record_counts (tenant, hour);

-- As before (0017), by the record's seq.
CREATE OR REPLACE FUNCTION record_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO record_counts (tenant, seq, hour, agent_id, code, n)
	VALUES (NEW.tenant, NEW.seq, NEW.last_seen / 3600000000000, NEW.agent_id, NEW.code,
		NEW.occurrence_count - CASE WHEN TG_OP = 'UPDATE' THEN OLD.occurrence_count ELSE 0 END)
	ON CONFLICT (tenant, seq, hour) DO UPDATE SET n = record_counts.n + excluded.n;
	RETURN NULL;
END
$$;
