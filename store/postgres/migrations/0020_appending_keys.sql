-- Issue 28: fewer index entries per report, and the storage parameters of
-- the tables a report changes in place.
--
-- Expire finds the old hourly counts through each tenant's range of
-- record_counts_by_hour (sqlstore.ExpireCountsSQL): the index on the hour
-- alone cost every new record an entry, and a page to write back.
DROP INDEX record_counts_by_age;

-- A record's count of the hour is updated by each of its occurrences in
-- that hour, and no index holds n: the update is HOT (no index entry, no
-- new page) when the row's page has room for the new version. Rows are
-- appended to the table's last page, which new records fill meanwhile;
-- 10 % left free keeps the updates of a page's rows on it.
ALTER TABLE record_counts SET (fillfactor = 90);

-- history: every first delivery inserts a failure and deletes those that
-- left its window, so the table's dead rows grow by one a report while
-- its live rows stay few. By default autovacuum waits for dead rows to
-- reach a fifth of the table; a fixed threshold vacuums it every 10,000,
-- before its index fills with dead entries that every count of a window
-- walks. (Autovacuum must be on: a table's parameters do not turn it on
-- where the server turned it off.)
ALTER TABLE history SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000);
