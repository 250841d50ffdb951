-- The event stream reads a tenant's occurrences after an ID (Last-Event-ID,
-- and each wake-up). IDs grow, so each insert appends to the tenant's end
-- of this index.
CREATE INDEX occurrences_by_tenant ON occurrences (tenant, id);
