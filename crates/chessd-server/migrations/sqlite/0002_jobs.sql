-- Perft and puzzle jobs and their results (SQLite).
--
-- A job is one row of `jobs`: what was asked (`request`, JSON, and `request_key`, the request
-- in a canonical form: the same key for every spelling of the same request, so that a finished
-- result is found again), where it is (`state`), and its end (`result` or `error`, JSON). The
-- job's secret is kept only as its SHA-256 digest. `runs` counts the times it was started.
--
-- A perft job's tasks (the unique positions of its split, numbered in split order) are kept in
-- `job_tasks` as they finish, so that a job interrupted by a crash resumes from them. The key
-- (job, task) makes a result idempotent: it is written at most once, a second submission of the
-- same task is ignored. A row with a NULL result is a task not finished yet (rows that nodes
-- and workers will lease, with lease columns added then). A finished job keeps its result,
-- not its tasks.
CREATE TABLE jobs (
    seq         INTEGER PRIMARY KEY,
    id          BLOB    NOT NULL UNIQUE,   -- the job's UUID, 16 bytes
    kind        TEXT    NOT NULL,          -- perft or puzzle
    request_key TEXT    NOT NULL,          -- the canonical request (kind, position, options)
    request     TEXT    NOT NULL,          -- JSON: the checked request
    state       TEXT    NOT NULL,          -- queued, running, done, cancelled or failed
    result      TEXT,                      -- JSON, once done
    error       TEXT,                      -- JSON {code, message}, once failed
    secret      BLOB    NOT NULL,          -- SHA-256 of the job's secret
    cached      INTEGER NOT NULL DEFAULT 0, -- 1: answered with an earlier job's result
    runs        INTEGER NOT NULL DEFAULT 0, -- times started (a restart starts it again)
    created_ms  INTEGER NOT NULL,          -- Unix time, milliseconds
    updated_ms  INTEGER NOT NULL
);
CREATE INDEX jobs_by_key ON jobs (request_key, state);
CREATE INDEX jobs_by_state ON jobs (state, seq);

CREATE TABLE job_tasks (
    job         BLOB    NOT NULL,          -- jobs.id
    task        INTEGER NOT NULL,          -- the task's index in the job's split
    result      TEXT,                      -- JSON: the statistics of one occurrence
    finished_ms INTEGER,
    PRIMARY KEY (job, task)
) WITHOUT ROWID;
