-- Issue 28: keys that append. An error's occurrences were found through
-- occurrences_by_error (tenant, error_id, received_at, id), whose error ID
-- is a hash: each new record's first occurrence put an entry on a random
-- leaf of it. They are found through the record's seq instead, which
-- grows with each new record: a new record's occurrences go at the end of
-- the tenant's range of occurrences_by_record (tenant, record_seq,
-- received_at, id). A read by error ID looks the record's seq up first
-- (the records' unique index, one look-up). The one statement that saves
-- a report upserts the record first (its seq), then inserts the
-- occurrence (saveCTE, reportCTE).
ALTER TABLE occurrences ADD COLUMN record_seq BIGINT;
UPDATE occurrences AS o SET record_seq = r.seq FROM records AS r WHERE r.tenant = o.tenant AND r.error_id = o.error_id;
-- An occurrence of no record (none: Expire deletes a record with its
-- occurrences) could not be read: it is not carried over.
DELETE FROM occurrences WHERE record_seq IS NULL;
ALTER TABLE occurrences ALTER COLUMN record_seq SET NOT NULL;
CREATE INDEX occurrences_by_record ON occurrences (tenant, record_seq, received_at, id);
DROP INDEX occurrences_by_error;
