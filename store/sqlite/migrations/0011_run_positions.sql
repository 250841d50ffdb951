-- ended_pos: the position of a run's end in the event streams, the next
-- number when FinishRun records it (the writes are one at a time, so the
-- numbers grow in the order the ends are committed), NULL while it runs.
-- Every instance's streams read the runs ended after their position
-- (Runs.RunsEndedAfter), as they read the feedback.
ALTER TABLE runs ADD COLUMN ended_pos INTEGER;
CREATE UNIQUE INDEX runs_by_end ON runs (ended_pos) WHERE ended_pos IS NOT NULL;
