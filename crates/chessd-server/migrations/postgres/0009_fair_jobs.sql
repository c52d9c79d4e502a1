-- Issue 27 ("No client can starve the others").
-- jobs.ran_ms: how long the job has run in earlier runs (kept while it runs and when the server
-- stops it), so that a job resumed after a restart keeps counting towards jobs.max_run_secs.
-- jobs.unverified: 1 for a done job some of whose task results came from remote workers and
-- were not counted again by a node: such a result is never answered to a later request.
ALTER TABLE jobs ADD COLUMN ran_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN unverified BIGINT NOT NULL DEFAULT 0;

-- Leases of shared perft tasks are random (a UUID's text), no longer a sequence anyone can
-- guess, and bound to who took them: `owner` is the worker token's digest (`token:…`) or the
-- node (`node:…`); a result or a renewal must come from the same owner under the current lease.
ALTER TABLE perft_tasks ALTER COLUMN lease DROP DEFAULT;
ALTER TABLE perft_tasks ALTER COLUMN lease TYPE TEXT USING '';
ALTER TABLE perft_tasks ALTER COLUMN lease SET DEFAULT '';
ALTER TABLE perft_tasks ADD COLUMN owner TEXT;
DROP SEQUENCE perft_task_leases;
CREATE INDEX perft_tasks_by_owner ON perft_tasks (owner, expires_ms);
