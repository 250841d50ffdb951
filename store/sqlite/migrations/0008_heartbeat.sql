-- heartbeat: the row Store.Ready's probe writes, one for the database,
-- updated in place (at: when, in nanoseconds): a write that commits,
-- without growing the database.
CREATE TABLE heartbeat (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	at INTEGER NOT NULL
);
