-- A delivery saved as an occurrence points at it instead of keeping a
-- second copy of its feedback: a claim is in flight while both feedback
-- and occurrence_id are NULL (claims completed before keep their copy).
ALTER TABLE deliveries ADD COLUMN occurrence_id INTEGER;
