-- The shared perft task queue (see migrations/postgres/0006_perft_tasks.sql): used only by a
-- cluster on PostgreSQL; here so that both schemas and the job writes that touch it (a job's
-- end deletes its open tasks) stay the same.
CREATE TABLE perft_tasks (
    job        BLOB    NOT NULL,
    task       INTEGER NOT NULL,
    fen        TEXT    NOT NULL,
    depth      INTEGER NOT NULL,
    stats      INTEGER NOT NULL,
    queued_ms  INTEGER NOT NULL,
    holder     TEXT,
    lease      INTEGER NOT NULL DEFAULT 0,
    expires_ms INTEGER NOT NULL DEFAULT 0,
    attempts   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (job, task)
);

ALTER TABLE job_tasks ADD COLUMN worker TEXT;
