-- Search, sorts and trends of the records (issue 25).

-- A record's title (its latest report's code and message, triage's
-- Report.Title) and code, set by the record's upsert. A record saved
-- before has none until its next occurrence: it reads its error type.
ALTER TABLE records ADD COLUMN code TEXT NOT NULL DEFAULT '';
ALTER TABLE records ADD COLUMN title TEXT NOT NULL DEFAULT '';

-- The sorts, each an index walk in its order (first_seen walks
-- records_by_seq). Each report moves its record's entries in both: see
-- docs/service.md for what that costs.
CREATE INDEX records_by_last_seen ON records (tenant, last_seen, seq);
CREATE INDEX records_by_count ON records (tenant, occurrence_count, seq);

-- records_fts: the full-text index of the records' title, code, agent and
-- query, its content the records' own rows (rowid = seq), kept by the
-- triggers below in the transaction that writes the record. Words are the
-- runs of letters and digits (unicode61), case-folded, accents kept (as
-- PostgreSQL's simple configuration keeps them). No prefix index: a
-- search's prefix query merges the words' lists, and indexing prefixes
-- of 2 and 3 characters cost a new record 5 to 30 % more (BenchmarkReport).
CREATE VIRTUAL TABLE records_fts USING fts5(
	title, code, agent_id, query_id,
	content = 'records', content_rowid = 'seq',
	tokenize = 'unicode61 remove_diacritics 0'
);
INSERT INTO records_fts (records_fts) VALUES ('rebuild');

CREATE TRIGGER records_fts_insert AFTER INSERT ON records BEGIN
	INSERT INTO records_fts (rowid, title, code, agent_id, query_id)
	VALUES (NEW.seq, NEW.title, NEW.code, NEW.agent_id, NEW.query_id);
END;

CREATE TRIGGER records_fts_delete AFTER DELETE ON records BEGIN
	INSERT INTO records_fts (records_fts, rowid, title, code, agent_id, query_id)
	VALUES ('delete', OLD.seq, OLD.title, OLD.code, OLD.agent_id, OLD.query_id);
END;

-- Most reports of an error leave its words as they were: only a change
-- rewrites its entry.
CREATE TRIGGER records_fts_update AFTER UPDATE OF title, code, agent_id, query_id ON records
WHEN NEW.title IS NOT OLD.title OR NEW.code IS NOT OLD.code
	OR NEW.agent_id IS NOT OLD.agent_id OR NEW.query_id IS NOT OLD.query_id BEGIN
	INSERT INTO records_fts (records_fts, rowid, title, code, agent_id, query_id)
	VALUES ('delete', OLD.seq, OLD.title, OLD.code, OLD.agent_id, OLD.query_id);
	INSERT INTO records_fts (rowid, title, code, agent_id, query_id)
	VALUES (NEW.seq, NEW.title, NEW.code, NEW.agent_id, NEW.query_id);
END;

-- record_counts: a record's occurrences per hour (hours since the Unix
-- epoch, UTC), with its agent and code (a record's fingerprint holds
-- both, so they do not change), counted by the triggers below as the
-- record's upsert counts an occurrence: by agent or code is a sum over a
-- range of hours. Clustered by record, the range a record's series (and
-- the dashboard's sparklines) read; record_counts_by_hour serves a range
-- of every record's. Its entries, and record_counts_by_age's (Expire's),
-- are written once per record and hour: a count moves no index entry.
CREATE TABLE record_counts (
	tenant TEXT NOT NULL,
	error_id TEXT NOT NULL,
	hour INTEGER NOT NULL,
	agent_id TEXT NOT NULL,
	code TEXT NOT NULL,
	n INTEGER NOT NULL,
	PRIMARY KEY (tenant, error_id, hour)
) WITHOUT ROWID;
CREATE INDEX record_counts_by_hour ON record_counts (tenant, hour);
CREATE INDEX record_counts_by_age ON record_counts (hour);

-- The hour is the record's last_seen's: the occurrence's received_at, but
-- for an occurrence that arrives after a later one (instances whose
-- clocks differ), counted in the later one's hour.
CREATE TRIGGER record_counts_insert AFTER INSERT ON records BEGIN
	INSERT INTO record_counts (tenant, error_id, hour, agent_id, code, n)
	VALUES (NEW.tenant, NEW.error_id, NEW.last_seen / 3600000000000, NEW.agent_id, NEW.code, NEW.occurrence_count)
	ON CONFLICT (tenant, error_id, hour) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER record_counts_update AFTER UPDATE OF occurrence_count ON records
WHEN NEW.occurrence_count > OLD.occurrence_count BEGIN
	INSERT INTO record_counts (tenant, error_id, hour, agent_id, code, n)
	VALUES (NEW.tenant, NEW.error_id, NEW.last_seen / 3600000000000, NEW.agent_id, NEW.code,
		NEW.occurrence_count - OLD.occurrence_count)
	ON CONFLICT (tenant, error_id, hour) DO UPDATE SET n = n + excluded.n;
END;
