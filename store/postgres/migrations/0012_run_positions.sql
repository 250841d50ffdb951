-- ended_xid: the position of a run's end in the event streams, the ID of
-- the transaction in which FinishRun recorded it (read, as occurrences'
-- xid, once every older transaction has ended), NULL while it runs. Every
-- instance's streams read the runs ended after their position
-- (Runs.RunsEndedAfter), as they read the feedback.
ALTER TABLE runs ADD COLUMN ended_xid xid8;
CREATE INDEX runs_by_end ON runs (tenant, ended_xid) WHERE ended_xid IS NOT NULL;
