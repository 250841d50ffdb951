-- Issue 28: the storage parameters of the tables a report writes, so that
-- what a deployment's PostgreSQL writes per report does not grow with the
-- store (docs/service.md, "PostgreSQL's storage parameters"). No data
-- changes: each parameter applies to the pages written from now on.

-- Tables whose rows are updated in place. An update that changes no
-- indexed column is HOT (no index entry, no other page) only when the
-- row's page has room for the new version; one that does change one (a
-- record's last_seen and count, an attempt's updated_at) still writes its
-- new version on the row's own page when it has room, so it dirties one
-- heap page rather than two. Rows are appended to a table's last page:
-- 10 % of each page kept free holds the updates of its rows.
--   records: every repeat of an error (count, last seen, latest), and the
--     workflow's changes (assignee and workflow are in no index: HOT);
--   deliveries: a claim completed, taken over or released (HOT: no index
--     holds feedback or occurrence_id);
--   attempts: every retry of a query counted.
-- (record_counts has kept 10 % free since 0020.)
ALTER TABLE records SET (fillfactor = 90);
ALTER TABLE deliveries SET (fillfactor = 90);
ALTER TABLE attempts SET (fillfactor = 90);

-- Autovacuum on the tables a report writes, sooner than its defaults (a
-- fifth of the table dead, or inserted, before it acts): at a million
-- records that was 200,000 dead versions of a record, each with an entry
-- in the nine indexes of records, before any was reclaimed, and the
-- search index's pending list (records_search, a GIN index) was merged by
-- whichever report filled it. A record's repeats and workflow changes,
-- a count's updates and the expiry's deletes leave dead rows: these are
-- vacuumed at 2 % of the table (plus 1,000), and analysed at 5 %, so that
-- the plans of the listings and the peek follow the tables' growth.
-- Tables only appended to (occurrences; deliveries and attempts but for
-- retries and the expiry) are vacuumed every 2 % inserted too (which sets
-- their pages all-visible and freezes them in small steps rather than
-- in one anti-wraparound pass over the whole table). Autovacuum must be
-- on: a table's parameters do not turn it on where the server turned it
-- off.
ALTER TABLE records SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 1000,
	autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.05);
ALTER TABLE record_counts SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 1000,
	autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.05);
ALTER TABLE deliveries SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 1000,
	autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.05);
ALTER TABLE attempts SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 1000,
	autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.05);
ALTER TABLE occurrences SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 1000,
	autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.05);
