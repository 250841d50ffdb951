-- records_fts written behind the reports (issue 28): not in every
-- transaction of the writer, but in batches of many records, and before
-- any search reads.
--
-- Since 0025 each new record's seq was queued in records_fts_pending by
-- the records' insert trigger, and the writer indexed the queue before
-- every commit: the queue's leaf and one FTS5 segment (its data, idx and
-- docsize pages) in every commit, ~6 of the ~41 pages a report committed
-- alone writes. Now nothing is queued: the records' seq is the queue. A
-- record whose seq is above records_fts_behind.seq is not indexed yet
-- (seq only grows: AUTOINCREMENT), one at or below it is. The writer
-- indexes the records above it with one INSERT … SELECT and moves it
-- (store/sqlite's writer: catchUp) when enough are behind, when it has
-- been idle a while, before a search reads (the search asks it to, then
-- reads: it sees every record committed before it began), at Open and at
-- Close. FTS5 writes one segment per catch-up: fewer, bigger segments.
CREATE TABLE records_fts_behind (
	one INTEGER PRIMARY KEY CHECK (one = 1),
	seq INTEGER NOT NULL
);

-- The queue is empty between transactions (each drained it); index what
-- it holds all the same, then every record there is is indexed.
INSERT INTO records_fts (rowid, title, code, agent_id, query_id)
SELECT r.seq, r.title, r.code, r.agent_id, r.query_id
FROM records_fts_pending p JOIN records r ON r.seq = p.seq;
INSERT INTO records_fts_behind (one, seq)
VALUES (1, COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'records'), 0));

DROP TRIGGER records_fts_insert;
DROP TRIGGER records_fts_delete;
DROP TRIGGER records_fts_update;
DROP TABLE records_fts_pending;

-- A record not indexed yet is not in the index: its delete and its change
-- of words leave the index alone (its words are read when it is indexed).
CREATE TRIGGER records_fts_delete AFTER DELETE ON records
WHEN OLD.seq <= (SELECT seq FROM records_fts_behind) BEGIN
	INSERT INTO records_fts (records_fts, rowid, title, code, agent_id, query_id)
	VALUES ('delete', OLD.seq, OLD.title, OLD.code, OLD.agent_id, OLD.query_id);
END;

CREATE TRIGGER records_fts_update AFTER UPDATE OF title, code, agent_id, query_id ON records
WHEN (NEW.title IS NOT OLD.title OR NEW.code IS NOT OLD.code
	OR NEW.agent_id IS NOT OLD.agent_id OR NEW.query_id IS NOT OLD.query_id)
	AND OLD.seq <= (SELECT seq FROM records_fts_behind) BEGIN
	INSERT INTO records_fts (records_fts, rowid, title, code, agent_id, query_id)
	VALUES ('delete', OLD.seq, OLD.title, OLD.code, OLD.agent_id, OLD.query_id);
	INSERT INTO records_fts (rowid, title, code, agent_id, query_id)
	VALUES (NEW.seq, NEW.title, NEW.code, NEW.agent_id, NEW.query_id);
END;
