-- Jobs move to River (river_job, created by River's own migrations, which
-- run before these). The jobs still to run move over with their attempts
-- made so far (a running one's lease is forgotten: it runs again); the
-- history of finished jobs and their attempts does not. River keeps times
-- as text, 'YYYY-MM-DD HH:MM:SS.SSS' in UTC.
INSERT INTO river_job (args, attempt, kind, max_attempts, state, scheduled_at)
SELECT jsonb(CASE WHEN payload IS NULL THEN json_object('tenant', tenant, 'error_id', error_id)
		ELSE json_object('tenant', tenant, 'error_id', error_id, 'payload', json(payload)) END),
	min(attempt, max_attempts - 1), kind, max_attempts, 'available',
	strftime('%Y-%m-%d %H:%M:%f', run_at / 1e9, 'unixepoch')
FROM jobs WHERE state IN ('available', 'running') ORDER BY id;

DROP TABLE job_attempts;
DROP TABLE jobs;

-- A record's jobs, by tenant and error (the record's view, and the expiry
-- of records, which keeps a record with a job still to run).
CREATE INDEX river_job_by_error ON river_job (args->>'tenant', args->>'error_id', id);
