-- A failed run becomes an occurrence of an error record (a job the run's
-- end enqueues submits its report): error_id is that record's, set once
-- the report is saved; NULL before, and for the runs that recorded none.
-- Adding a nullable column without a default rewrites nothing.
ALTER TABLE runs ADD COLUMN error_id TEXT;
