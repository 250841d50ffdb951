-- Search, sorts and trends of the records (issue 25).

-- A record's title (its latest report's code and message, triage's
-- Report.Title) and code, set by the record's upsert. A record saved
-- before has none until its next occurrence: it reads its error type.
ALTER TABLE records ADD COLUMN code TEXT NOT NULL DEFAULT '',
	ADD COLUMN title TEXT NOT NULL DEFAULT '';

-- search: the words of the title, code, agent and query, kept by
-- PostgreSQL as the row is written, with a GIN index. Words are the runs
-- of letters and digits (every other character made a space first, so
-- that the words are those SQLite's unicode61 tokenizer makes and
-- store.ParseSearch asks for), lower-cased, not stemmed ('simple': titles
-- are in any language, and codes and ids are not words of one).
ALTER TABLE records ADD COLUMN search tsvector GENERATED ALWAYS AS (
	to_tsvector('simple'::regconfig, regexp_replace(title || ' ' || code || ' ' || agent_id || ' ' || query_id,
		'[^[:alnum:]]+', ' ', 'g'))
) STORED;
CREATE INDEX records_search ON records USING gin (search);

-- The sorts, each an index walk in its order (first_seen walks
-- records_by_seq). Each report moves its record's entries in both: see
-- docs/service.md for what that costs.
CREATE INDEX records_by_last_seen ON records (tenant, last_seen, seq);
CREATE INDEX records_by_count ON records (tenant, occurrence_count, seq);

-- record_counts: a record's occurrences per hour (hours since the Unix
-- epoch, UTC), with its agent and code (a record's fingerprint holds
-- both, so they do not change), counted by the trigger below as the
-- record's upsert counts an occurrence. One row per record and hour, not
-- per agent or code: the row a report moves is its own record's, which
-- its save locks anyway, so that reports of one agent do not serialise on
-- a shared row; by agent or code is a sum over the range's rows. No index
-- holds n: a count is a HOT update.
CREATE TABLE record_counts (
	tenant TEXT NOT NULL,
	error_id TEXT NOT NULL,
	hour BIGINT NOT NULL,
	agent_id TEXT NOT NULL,
	code TEXT NOT NULL,
	n BIGINT NOT NULL,
	PRIMARY KEY (tenant, error_id, hour)
);
CREATE INDEX record_counts_by_hour ON record_counts (tenant, hour) INCLUDE (agent_id, code, error_id);
CREATE INDEX record_counts_by_age ON record_counts (hour);

-- The hour is the record's last_seen's: the occurrence's received_at, but
-- for an occurrence that arrives after a later one (instances whose
-- clocks differ), counted in the later one's hour.
CREATE FUNCTION record_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO record_counts (tenant, error_id, hour, agent_id, code, n)
	VALUES (NEW.tenant, NEW.error_id, NEW.last_seen / 3600000000000, NEW.agent_id, NEW.code,
		NEW.occurrence_count - CASE WHEN TG_OP = 'UPDATE' THEN OLD.occurrence_count ELSE 0 END)
	ON CONFLICT (tenant, error_id, hour) DO UPDATE SET n = record_counts.n + excluded.n;
	RETURN NULL;
END
$$;
CREATE TRIGGER record_counts_insert AFTER INSERT ON records
	FOR EACH ROW EXECUTE FUNCTION record_counts_add();
CREATE TRIGGER record_counts_update AFTER UPDATE OF occurrence_count ON records
	FOR EACH ROW WHEN (NEW.occurrence_count > OLD.occurrence_count) EXECUTE FUNCTION record_counts_add();
