-- Issue 27 (see migrations/postgres/0009_fair_jobs.sql): a job's run time in earlier runs, and
-- whether a done job's result holds task results no node checked (never answered again). The
-- shared queue's lease (random text there) and owner, so that both schemas stay the same.
ALTER TABLE jobs ADD COLUMN ran_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN unverified INTEGER NOT NULL DEFAULT 0;
ALTER TABLE perft_tasks ADD COLUMN owner TEXT;
