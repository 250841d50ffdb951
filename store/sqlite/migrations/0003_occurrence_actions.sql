-- The outcome of each recovery action of an occurrence (handler.Outcome
-- as JSON): what ran, its status, its detail and error.
ALTER TABLE occurrences ADD COLUMN actions TEXT;
