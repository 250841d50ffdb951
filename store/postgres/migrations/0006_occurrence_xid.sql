-- The event streams read occurrences in the order of the transactions
-- that saved them, by xid, and only those of transactions older than any
-- still running (below the snapshot's xmin): an ID is taken at insert,
-- and a transaction may commit after one that took a later ID, so a
-- stream reading by ID could pass over an occurrence not yet committed.
-- Each occurrence is saved by a transaction of its own. Occurrences saved
-- before have no xid and are not streamed.
ALTER TABLE occurrences ADD COLUMN xid xid8;
ALTER TABLE occurrences ALTER COLUMN xid SET DEFAULT pg_current_xact_id();
CREATE UNIQUE INDEX occurrences_by_xid ON occurrences (xid);
