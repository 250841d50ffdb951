-- Expire deletes bookkeeping by age.
CREATE INDEX deliveries_by_claim ON deliveries (claimed_at);
CREATE INDEX idempotency_by_start ON idempotency (started_at);
CREATE INDEX attempts_by_update ON attempts (updated_at);
