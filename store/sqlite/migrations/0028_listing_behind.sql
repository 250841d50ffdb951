-- The listing's indexes written behind the reports (issue 28), with the
-- search index (0027): a new record enters records_by_agent, _status,
-- _last_seen, _count and _query when the writer catches up, not in the
-- commit of its report.
--
-- Each of the five held every record, so each new record's report wrote
-- a leaf of each (~6 of the ~36 pages a report committed alone wrote,
-- TestLeavesPerReport). Now each holds only the records listed (a partial
-- index): listed is 0 for a new record, and the writer's catch-up sets it
-- for the records above records_fts_behind's mark as it indexes their
-- words and moves the mark (store/sqlite's writer: catchUp). So a record
-- is listed exactly when its seq is at or below the mark. A listing reads
-- the listed records through the indexes, as before, and the records
-- above the mark (a range of seq, at most a catch-up's worth) through
-- the table, and merges them (sqlstore's Dialect.Listed): it returns what
-- it returned. A repeat of a listed record moves its entries as before.
ALTER TABLE records ADD COLUMN listed INTEGER NOT NULL DEFAULT 0;

DROP INDEX records_by_agent;
DROP INDEX records_by_status;
DROP INDEX records_by_last_seen;
DROP INDEX records_by_count;
DROP INDEX records_by_query;

UPDATE records SET listed = 1 WHERE seq <= (SELECT seq FROM records_fts_behind);

CREATE INDEX records_by_agent ON records (tenant, agent_id, seq) WHERE listed = 1;
CREATE INDEX records_by_status ON records (tenant, status, seq) WHERE listed = 1;
CREATE INDEX records_by_last_seen ON records (tenant, last_seen, seq) WHERE listed = 1;
CREATE INDEX records_by_count ON records (tenant, occurrence_count, seq) WHERE listed = 1;
CREATE INDEX records_by_query ON records (tenant, query_id, seq) WHERE listed = 1;
