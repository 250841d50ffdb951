-- alert_rules: a tenant's alert rules and the targets they notify, as
-- JSON arrays (triage.AlertRule, triage.AlertTarget: the targets'
-- credentials included, which the API never returns). One row per tenant:
-- a change is checked whole (a rule names targets that exist) and written
-- in one statement, and saving a report reads it by its key.
CREATE TABLE alert_rules (
	tenant TEXT PRIMARY KEY,
	rules TEXT NOT NULL,
	targets TEXT NOT NULL,
	updated_at BIGINT NOT NULL
);
