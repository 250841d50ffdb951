-- A record's workflow (issue 25): its status, as a column for the
-- listing's filter and its index, with wake_at (an ignore's until, in
-- nanoseconds; 0 for none) so that an ignored record whose time passed
-- lists as unresolved, and assignee; the whole triage.Workflow (status,
-- resolution, ignore condition, assignee, when it changed) as JSON in
-- workflow, NULL for a record nobody changed (unresolved). The record
-- keeps the first and the last release it was seen in, and the last
-- environment ('' for none).
ALTER TABLE records ADD COLUMN status TEXT NOT NULL DEFAULT 'unresolved';
ALTER TABLE records ADD COLUMN wake_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE records ADD COLUMN assignee TEXT NOT NULL DEFAULT '';
ALTER TABLE records ADD COLUMN workflow TEXT;
ALTER TABLE records ADD COLUMN first_release TEXT NOT NULL DEFAULT '';
ALTER TABLE records ADD COLUMN last_release TEXT NOT NULL DEFAULT '';
ALTER TABLE records ADD COLUMN last_environment TEXT NOT NULL DEFAULT '';
CREATE INDEX records_by_status ON records (tenant, status, seq);

-- record_transitions: a record's history, one row per change of its
-- workflow (triage.Transition as JSON in doc), in the order made (id).
CREATE TABLE record_transitions (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	tenant TEXT NOT NULL,
	error_id TEXT NOT NULL,
	at INTEGER NOT NULL,
	doc TEXT NOT NULL
);
CREATE INDEX record_transitions_by_error ON record_transitions (tenant, error_id, id);

-- releases: a tenant's releases in the order first reported (id), which
-- is how a resolution "in release X" or "in the next release" compares
-- them (triage.Releases).
CREATE TABLE releases (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	tenant TEXT NOT NULL,
	name TEXT NOT NULL,
	first_seen INTEGER NOT NULL,
	UNIQUE (tenant, name)
);
CREATE INDEX releases_by_tenant ON releases (tenant, id);
