-- The event streams read a tenant's occurrences and ended runs from a
-- position on. By the positions' own indexes they went through every
-- tenant's rows from there, skipping the others': a stream resuming from
-- an old position (Last-Event-ID: 0) read the whole table when its tenant
-- had few rows and another many, and each poll read every tenant's rows
-- of the last second. These indexes give each tenant its own range. An
-- occurrence's ID is its rowid, which every index ends with: the index on
-- the tenant alone is ordered by (tenant, id).
CREATE INDEX occurrences_by_tenant ON occurrences (tenant);
CREATE INDEX runs_by_tenant_end ON runs (tenant, ended_pos) WHERE ended_pos IS NOT NULL;
