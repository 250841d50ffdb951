-- history_counts: how many failures history holds for each tenant, agent
-- and code, kept by triggers in the transaction that changes history, so
-- that History.Record counts a window's failures without reading every
-- one of them (a flood of failures made each Record read them all).

CREATE TABLE history_counts (
	tenant TEXT NOT NULL,
	agent TEXT NOT NULL,
	code TEXT NOT NULL,
	n INTEGER NOT NULL,
	PRIMARY KEY (tenant, agent, code)
) WITHOUT ROWID;

INSERT INTO history_counts (tenant, agent, code, n)
	SELECT tenant, agent, code, count(*) FROM history GROUP BY tenant, agent, code;

CREATE TRIGGER history_count_insert AFTER INSERT ON history BEGIN
	INSERT INTO history_counts (tenant, agent, code, n) VALUES (NEW.tenant, NEW.agent, NEW.code, 1)
	ON CONFLICT (tenant, agent, code) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER history_count_delete AFTER DELETE ON history BEGIN
	UPDATE history_counts SET n = n - 1
	WHERE tenant = OLD.tenant AND agent = OLD.agent AND code = OLD.code;
END;

CREATE TRIGGER history_count_update AFTER UPDATE OF tenant, agent, code ON history BEGIN
	UPDATE history_counts SET n = n - 1
	WHERE tenant = OLD.tenant AND agent = OLD.agent AND code = OLD.code;
	INSERT INTO history_counts (tenant, agent, code, n) VALUES (NEW.tenant, NEW.agent, NEW.code, 1)
	ON CONFLICT (tenant, agent, code) DO UPDATE SET n = n + 1;
END;
