-- alert_throttles: one row per tenant, alert rule and subject (a record's
-- error_id, or an agent): when the rule last notified (sent_at, 0 for
-- never) and by which job (job_id, so that the job's next attempt posts
-- again), what that notification stood for (sent_held, sent_held_since),
-- and the firings held back since (held, held_since). Times in
-- nanoseconds. Expire deletes the rows that hold nothing back and last
-- notified more than a week ago (the longest throttle).
CREATE TABLE alert_throttles (
	tenant TEXT NOT NULL,
	rule TEXT NOT NULL,
	subject TEXT NOT NULL,
	sent_at INTEGER NOT NULL,
	job_id INTEGER NOT NULL,
	sent_held INTEGER NOT NULL,
	sent_held_since INTEGER NOT NULL,
	held INTEGER NOT NULL,
	held_since INTEGER NOT NULL,
	PRIMARY KEY (tenant, rule, subject)
);
CREATE INDEX alert_throttles_by_sent ON alert_throttles (sent_at);
