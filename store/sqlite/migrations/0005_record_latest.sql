-- A record points at its latest occurrence instead of keeping a second copy
-- of its report and feedback (records written before keep theirs).
ALTER TABLE records ADD COLUMN latest_id INTEGER;
