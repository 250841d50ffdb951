-- events: an outline of an ended run's AG-UI stream (each event's type,
-- time, step, tool or custom name and ids; never its content), as a JSON
-- document {"events": [...], "omitted": N}, written with the run's end in
-- the statement that records it; NULL for a run that kept none (a CAP
-- stream, a run still running, a run ended before this migration).
ALTER TABLE runs ADD COLUMN events TEXT;
