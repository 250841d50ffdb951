-- Issue 28: history without its id. No statement reads it: a failure is
-- inserted, counted and forgotten by its key and time, through
-- history_by_key (tenant, agent, code, at), which stays. The id's
-- primary key (history_pkey) was a B-tree of its own that every report's
-- failure wrote an entry in, and every forgotten one left a dead entry
-- in, for no lookup. Dropping the column drops the key and the identity's
-- sequence; the rows keep their other columns as they are.
ALTER TABLE history DROP COLUMN id;
