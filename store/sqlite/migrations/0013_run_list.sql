-- GET /v1/runs lists a tenant's runs, the latest started first, filtered
-- by agent, outcome and fault code. code is a failed run's fault code
-- (NULL for the other outcomes), kept as a column so that the filter is
-- an index's range rather than a parse of every fault. The indexes give
-- each tenant, and each agent of a tenant, its runs in the order listed;
-- run_id breaks ties of started_at, so the cursor is both.
ALTER TABLE runs ADD COLUMN code TEXT;
UPDATE runs SET code = json_extract(fault, '$.code') WHERE fault IS NOT NULL AND json_valid(fault);
CREATE INDEX runs_by_tenant_start ON runs (tenant, started_at, run_id);
CREATE INDEX runs_by_agent_start ON runs (tenant, agent_id, started_at, run_id);
