-- heartbeat: the row Store.Ready's probe writes, one for the database
-- (the instances sharing it write the same row), updated in place (at:
-- when, in nanoseconds): a write that commits, without growing the
-- database.
CREATE TABLE heartbeat (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	at BIGINT NOT NULL
);
