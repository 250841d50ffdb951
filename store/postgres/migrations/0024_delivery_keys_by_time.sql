-- Issue 28: keys that append. A delivery key was the report's fingerprint
-- (a hash), "@" and its time in RFC 3339 with nanoseconds (trailing zeros
-- dropped): each new delivery's entry in deliveries' primary key and in
-- occurrences' unique index on (tenant, delivery_key) landed on a random
-- leaf (after a checkpoint, a full-page image each). The key is now the
-- time first, fixed width ("20060102T150405.000000000Z"), "/" and the
-- fingerprint (triage.DeliveryKey): reports arrive roughly in their
-- timestamps' order, so a new key goes at the end of each index. The keys
-- stored already are rewritten to the new form, so that a report
-- delivered before this migration and again after it is still a repeat
-- (its feedback, its one occurrence). Keys of another form (a store's
-- caller may choose its own) are left as they are.
CREATE TEMPORARY TABLE delivery_keys_0024 (tenant TEXT NOT NULL, old TEXT NOT NULL, new TEXT NOT NULL,
	PRIMARY KEY (tenant, old));

INSERT INTO delivery_keys_0024 (tenant, old, new)
SELECT tenant, k, m[2] || m[3] || m[4] || 'T' || m[5] || m[6] || m[7] || '.' || rpad(COALESCE(m[8], ''), 9, '0') || 'Z/' || m[1]
FROM (
	SELECT tenant, k, regexp_match(k,
		'^(v[0-9]+:[0-9a-f]+)@([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?Z$') AS m
	FROM (
		SELECT tenant, delivery_key AS k FROM deliveries
		UNION
		SELECT tenant, delivery_key FROM occurrences WHERE delivery_key IS NOT NULL
	) AS keys
) AS parsed
WHERE m IS NOT NULL;

UPDATE deliveries AS d SET delivery_key = m.new
FROM delivery_keys_0024 AS m
WHERE d.tenant = m.tenant AND d.delivery_key = m.old;

UPDATE occurrences AS o SET delivery_key = m.new
FROM delivery_keys_0024 AS m
WHERE o.tenant = m.tenant AND o.delivery_key = m.old;

DROP TABLE delivery_keys_0024;
