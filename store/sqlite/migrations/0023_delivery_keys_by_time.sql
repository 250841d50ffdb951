-- Issue 28: keys that append. A delivery key was the report's fingerprint
-- (a hash), "@" and its time in RFC 3339 with nanoseconds (trailing zeros
-- dropped): each new delivery's row in deliveries and its occurrence's
-- entry in the unique index on (tenant, delivery_key) landed on a random
-- leaf, the two largest of a report (TestServicePagesPerReport). The key
-- is now the time first, fixed width ("20060102T150405.000000000Z"), "/"
-- and the fingerprint (triage.DeliveryKey): reports arrive roughly in
-- their timestamps' order, so a new key goes at the end of each index.
-- The keys stored already are rewritten to the new form, so that a report
-- delivered before this migration and again after it is still a repeat
-- (its feedback, its one occurrence). Keys of another form (a store's
-- caller may choose its own) are left as they are.

-- old: the keys of the former form, with a, the position of their "@";
-- the time after it is YYYY-MM-DDTHH:MM:SS, then Z or a fraction of 1 to
-- 9 digits and Z.
CREATE TEMP TABLE delivery_keys_0023 (tenant TEXT NOT NULL, old TEXT NOT NULL, new TEXT NOT NULL, PRIMARY KEY (tenant, old));

INSERT INTO delivery_keys_0023 (tenant, old, new)
SELECT tenant, k,
	substr(k, a + 1, 4) || substr(k, a + 6, 2) || substr(k, a + 9, 2) || 'T' ||
	substr(k, a + 12, 2) || substr(k, a + 15, 2) || substr(k, a + 18, 2) || '.' ||
	substr(CASE WHEN substr(k, a + 20, 1) = '.' THEN substr(k, a + 21, length(k) - a - 21) ELSE '' END || '000000000', 1, 9) ||
	'Z/' || substr(k, 1, a - 1)
FROM (
	SELECT tenant, delivery_key AS k, instr(delivery_key, '@') AS a FROM deliveries
	UNION
	SELECT tenant, delivery_key, instr(delivery_key, '@') FROM occurrences WHERE delivery_key IS NOT NULL
)
WHERE k GLOB 'v[0-9]*:[0-9a-f]*@[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]*Z'
	AND substr(k, 1, a - 1) NOT GLOB 'v*:*[^0-9a-f]*'
	AND (length(k) = a + 20 OR (substr(k, a + 20, 1) = '.' AND length(k) BETWEEN a + 22 AND a + 30
		AND substr(k, a + 21, length(k) - a - 21) NOT GLOB '*[^0-9]*'));

UPDATE deliveries SET delivery_key = (SELECT m.new FROM delivery_keys_0023 AS m
	WHERE m.tenant = deliveries.tenant AND m.old = deliveries.delivery_key)
WHERE (tenant, delivery_key) IN (SELECT tenant, old FROM delivery_keys_0023);

UPDATE occurrences SET delivery_key = (SELECT m.new FROM delivery_keys_0023 AS m
	WHERE m.tenant = occurrences.tenant AND m.old = occurrences.delivery_key)
WHERE (tenant, delivery_key) IN (SELECT tenant, old FROM delivery_keys_0023);

DROP TABLE delivery_keys_0023;
