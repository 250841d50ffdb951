-- The event streams read a tenant's occurrences from a position on. By
-- occurrences_by_xid they went through every tenant's occurrences from
-- there, skipping the others': a stream resuming from an old position
-- (Last-Event-ID: 0) read the whole table when its tenant had few rows and
-- another many, and each poll read every tenant's occurrences of the last
-- second. This index gives each tenant its own range (runs have had theirs
-- since 0012). occurrences_by_xid stays: Open clears foreign positions by
-- it. Building the index holds the table's writes: upgrade a large
-- database in a quiet moment.
CREATE INDEX occurrences_by_tenant ON occurrences (tenant, xid);
