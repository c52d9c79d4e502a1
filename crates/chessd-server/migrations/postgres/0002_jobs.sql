-- Perft and puzzle jobs and their results (PostgreSQL). The same tables as
-- migrations/sqlite/0002_jobs.sql, which says what each column holds.
CREATE TABLE jobs (
    seq         BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          BYTEA   NOT NULL UNIQUE,
    kind        TEXT    NOT NULL,
    request_key TEXT    NOT NULL,
    request     TEXT    NOT NULL,
    state       TEXT    NOT NULL,
    result      TEXT,
    error       TEXT,
    secret      BYTEA   NOT NULL,
    cached      BIGINT  NOT NULL DEFAULT 0,
    runs        BIGINT  NOT NULL DEFAULT 0,
    created_ms  BIGINT  NOT NULL,
    updated_ms  BIGINT  NOT NULL
);
CREATE INDEX jobs_by_key ON jobs (request_key, state);
CREATE INDEX jobs_by_state ON jobs (state, seq);

CREATE TABLE job_tasks (
    job         BYTEA   NOT NULL,
    task        BIGINT  NOT NULL,
    result      TEXT,
    finished_ms BIGINT,
    PRIMARY KEY (job, task)
);
