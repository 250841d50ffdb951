-- Issue 28: a record's hourly count is written by the statement that
-- counts the occurrence into the record (sqlstore's countHourSQL, a CTE
-- of the report's and the save's one statement), not by a trigger: the
-- trigger (a PL/pgSQL function running its own INSERT … ON CONFLICT
-- through SPI after each row) cost 0.06–0.21 ms of a report's ~0.5–0.7
-- ms statement, a CTE of the statement less. Every statement that counts
-- an occurrence into a record on PostgreSQL is one of those two, so the
-- counts stay exact. The counts written so far are kept as they are; the
-- next occurrence of a record counts into the same rows.
--
-- An instance of an older build still running when this applies saves
-- its reports without counting them by hour (their records count them):
-- upgrade the instances together, as for any migration.
DROP TRIGGER record_counts_insert ON records;
DROP TRIGGER record_counts_update ON records;
DROP FUNCTION record_counts_add();
