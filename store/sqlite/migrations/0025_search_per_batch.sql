-- records_fts indexed once per transaction of the writer, not once per
-- record (issue 28).
--
-- FTS5 keeps the words of the rows inserted in a transaction in memory and
-- writes them as one segment at the commit, but flushes them first at the
-- start of every statement of the transaction that opens a statement
-- journal (an upsert with triggers, an insert into a table with unique
-- indexes): a statement is a savepoint to FTS5. The writer's transaction
-- runs a batch of reports, each of such statements, so every new record's
-- words became a segment of their own, then merged with the others: a
-- tenth of the service's CPU, and records_fts_data's pages in every
-- commit. Now a new record's seq is queued in records_fts_pending (a
-- table keyed by the seq, which appends), and the writer indexes what is
-- queued with one statement just before it commits (store/sqlite's
-- writer: indexPending), so that FTS5 flushes once per transaction. A
-- search reads committed rows only: every record it can see is indexed.
CREATE TABLE records_fts_pending (seq INTEGER PRIMARY KEY);

DROP TRIGGER records_fts_insert;
CREATE TRIGGER records_fts_insert AFTER INSERT ON records BEGIN
	INSERT INTO records_fts_pending (seq) VALUES (NEW.seq);
END;

-- A record queued is not in the index yet: its delete and its change of
-- words leave the index alone (the queue reads the record's words when it
-- is indexed), and a deleted record leaves the queue.
DROP TRIGGER records_fts_delete;
CREATE TRIGGER records_fts_delete AFTER DELETE ON records BEGIN
	INSERT INTO records_fts (records_fts, rowid, title, code, agent_id, query_id)
	SELECT 'delete', OLD.seq, OLD.title, OLD.code, OLD.agent_id, OLD.query_id
	WHERE NOT EXISTS (SELECT 1 FROM records_fts_pending WHERE seq = OLD.seq);
	DELETE FROM records_fts_pending WHERE seq = OLD.seq;
END;

DROP TRIGGER records_fts_update;
CREATE TRIGGER records_fts_update AFTER UPDATE OF title, code, agent_id, query_id ON records
WHEN (NEW.title IS NOT OLD.title OR NEW.code IS NOT OLD.code
	OR NEW.agent_id IS NOT OLD.agent_id OR NEW.query_id IS NOT OLD.query_id)
	AND NOT EXISTS (SELECT 1 FROM records_fts_pending WHERE seq = OLD.seq) BEGIN
	INSERT INTO records_fts (records_fts, rowid, title, code, agent_id, query_id)
	VALUES ('delete', OLD.seq, OLD.title, OLD.code, OLD.agent_id, OLD.query_id);
	INSERT INTO records_fts (rowid, title, code, agent_id, query_id)
	VALUES (NEW.seq, NEW.title, NEW.code, NEW.agent_id, NEW.query_id);
END;
