-- GET /v1/errors?session_id= of a recorded MCP session reads the tenant's
-- occurrences received while the session was open (sqlstore's
-- sessionRecordsSQL): a range of this index, from the session's opening
-- on, rather than the tenant's latest 10,000 occurrences whatever the
-- session's age. Its key appends within each tenant (received_at is when
-- the service took the report): a commit's reports of one tenant share
-- its right-most leaf (TestLeavesPerReport).
CREATE INDEX occurrences_by_received ON occurrences (tenant, received_at);
