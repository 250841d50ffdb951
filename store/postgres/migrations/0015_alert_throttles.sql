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
	sent_at BIGINT NOT NULL,
	job_id BIGINT NOT NULL,
	sent_held BIGINT NOT NULL,
	sent_held_since BIGINT NOT NULL,
	held BIGINT NOT NULL,
	held_since BIGINT NOT NULL,
	PRIMARY KEY (tenant, rule, subject)
);
CREATE INDEX alert_throttles_by_sent ON alert_throttles (sent_at);
