-- The first schema. Times are BIGINT nanoseconds since the Unix epoch
-- (UTC), JSON documents TEXT (kept as given, byte for byte). Every table
-- has a tenant column, first in every key and index.

-- records: one per error (fingerprint); seq orders the listing (the most
-- recently first seen first) and makes its cursor.
CREATE TABLE records (
	seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	tenant TEXT NOT NULL,
	error_id TEXT NOT NULL,
	query_id TEXT NOT NULL,
	agent_id TEXT NOT NULL,
	error_type TEXT NOT NULL,
	severity TEXT NOT NULL,
	first_seen BIGINT NOT NULL,
	last_seen BIGINT NOT NULL,
	occurrence_count BIGINT NOT NULL,
	report TEXT,
	feedback TEXT,
	UNIQUE (tenant, error_id)
);
CREATE INDEX records_by_seq ON records (tenant, seq);
CREATE INDEX records_by_query ON records (tenant, query_id, seq);
CREATE INDEX records_by_agent ON records (tenant, agent_id, seq);

-- occurrences: one per handled delivery; a NULL delivery_key is never a
-- duplicate.
CREATE TABLE occurrences (
	id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	tenant TEXT NOT NULL,
	delivery_key TEXT,
	error_id TEXT NOT NULL,
	query_id TEXT NOT NULL,
	agent_id TEXT NOT NULL,
	error_type TEXT NOT NULL,
	severity TEXT NOT NULL,
	next_action TEXT NOT NULL,
	attempt BIGINT NOT NULL,
	reported_at BIGINT NOT NULL,
	received_at BIGINT NOT NULL,
	report TEXT,
	feedback TEXT,
	UNIQUE (tenant, delivery_key),
	FOREIGN KEY (tenant, error_id) REFERENCES records (tenant, error_id) DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX occurrences_by_error ON occurrences (tenant, error_id, received_at, id);

-- The handler's state.
CREATE TABLE attempts (
	tenant TEXT NOT NULL,
	attempt_key TEXT NOT NULL,
	n BIGINT NOT NULL,
	updated_at BIGINT NOT NULL,
	PRIMARY KEY (tenant, attempt_key)
);

CREATE TABLE history (
	id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	tenant TEXT NOT NULL,
	agent TEXT NOT NULL,
	code TEXT NOT NULL,
	at BIGINT NOT NULL
);
CREATE INDEX history_by_key ON history (tenant, agent, code, at);

-- deliveries: a NULL feedback is a claim in flight since claimed_at.
CREATE TABLE deliveries (
	tenant TEXT NOT NULL,
	delivery_key TEXT NOT NULL,
	claimed_at BIGINT NOT NULL,
	feedback TEXT,
	PRIMARY KEY (tenant, delivery_key)
);

CREATE TABLE schemas (
	tenant TEXT NOT NULL,
	source TEXT NOT NULL,
	info TEXT NOT NULL,
	updated_at BIGINT NOT NULL,
	PRIMARY KEY (tenant, source)
);

CREATE TABLE cache (
	tenant TEXT NOT NULL,
	query_id TEXT NOT NULL,
	stored_at BIGINT NOT NULL,
	summary TEXT NOT NULL,
	data TEXT,
	PRIMARY KEY (tenant, query_id)
);

CREATE TABLE agents (
	tenant TEXT NOT NULL,
	agent_id TEXT NOT NULL,
	callback_url TEXT NOT NULL,
	updated_at BIGINT NOT NULL,
	PRIMARY KEY (tenant, agent_id)
);

-- idempotency: one per Idempotency-Key; state is in_flight (since
-- started_at) or done (with the response).
CREATE TABLE idempotency (
	tenant TEXT NOT NULL,
	idem_key TEXT NOT NULL,
	payload_hash TEXT NOT NULL,
	state TEXT NOT NULL CHECK (state IN ('in_flight', 'done')),
	started_at BIGINT NOT NULL,
	finished_at BIGINT,
	status BIGINT,
	content_type TEXT,
	body BYTEA,
	PRIMARY KEY (tenant, idem_key)
);

-- jobs: the durable queue, shared by the tenants. A running job is leased
-- until lease_until.
CREATE TABLE jobs (
	id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	tenant TEXT NOT NULL,
	kind TEXT NOT NULL,
	error_id TEXT NOT NULL,
	payload TEXT,
	state TEXT NOT NULL CHECK (state IN ('available', 'running', 'succeeded', 'failed')),
	run_at BIGINT NOT NULL,
	attempt BIGINT NOT NULL,
	max_attempts BIGINT NOT NULL,
	claimed_at BIGINT,
	lease_until BIGINT,
	created_at BIGINT NOT NULL
);
CREATE INDEX jobs_available ON jobs (run_at) WHERE state = 'available';
CREATE INDEX jobs_running ON jobs (lease_until) WHERE state = 'running';
CREATE INDEX jobs_by_error ON jobs (tenant, error_id, id);

CREATE TABLE job_attempts (
	id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	tenant TEXT NOT NULL,
	job_id BIGINT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
	attempt BIGINT NOT NULL,
	at BIGINT NOT NULL,
	duration_ns BIGINT NOT NULL,
	error TEXT NOT NULL
);
CREATE INDEX job_attempts_by_job ON job_attempts (job_id, id);
