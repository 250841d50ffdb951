-- Issue 28: fewer index entries on random keys per report. Each new
-- record's hourly count wrote an entry in record_counts_by_age (hour,
-- then the table's key: tenant and error ID), a leaf of its own per
-- report once the index outgrew a commit's reports (TestLeavesPerReport).
-- Expire finds the old hours through each tenant's range of
-- record_counts_by_hour instead (sqlstore.ExpireCountsSQL).
DROP INDEX record_counts_by_age;
