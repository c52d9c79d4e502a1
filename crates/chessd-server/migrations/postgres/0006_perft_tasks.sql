-- The shared perft task queue of a cluster. A perft job deeper than cluster.perft_task_depth
-- puts its unfinished tasks here; every node's task threads and every `chessd worker --server`
-- lease them (`FOR UPDATE SKIP LOCKED`, so that two takers never get the same task), renew
-- the lease while they count, and submit the result. A submitted task's row moves to
-- job_tasks in one transaction (its primary key lets a task in once: a second result of the
-- same task is never counted). A lease not renewed by `expires_ms` (PostgreSQL's clock) ends
-- and the task is leased again. A job's end deletes its open tasks.
CREATE SEQUENCE perft_task_leases;

CREATE TABLE perft_tasks (
    job        BYTEA   NOT NULL,
    task       BIGINT  NOT NULL,       -- its index in the job's split
    fen        TEXT    NOT NULL,
    depth      INTEGER NOT NULL,       -- plies to count below the position
    stats      BOOLEAN NOT NULL,       -- count the leaf statistics too, or nodes only
    queued_ms  BIGINT  NOT NULL,       -- older jobs' tasks are leased first
    holder     TEXT,                   -- the worker holding the lease
    lease      BIGINT  NOT NULL DEFAULT 0,   -- the current lease's token (from the sequence)
    expires_ms BIGINT  NOT NULL DEFAULT 0,   -- when the lease ends unless renewed
    attempts   INTEGER NOT NULL DEFAULT 0,   -- leases so far
    PRIMARY KEY (job, task)
);
CREATE INDEX perft_tasks_by_age ON perft_tasks (queued_ms, job, task);

-- Who counted each finished task: a node's task threads or a remote worker (NULL: the job's
-- own threads).
ALTER TABLE job_tasks ADD COLUMN worker TEXT;
