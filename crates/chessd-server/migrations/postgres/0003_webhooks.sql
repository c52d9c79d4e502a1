-- The webhook outbox (PostgreSQL): a terminate webhook is written here in the same
-- transaction that stops its game, and deleted once delivered or expired. Until then the
-- server retries it with back-off, across restarts. `key` is its idempotency key (the
-- `Idempotency-Key` header of every attempt), so a receiver can recognise a delivery it has seen.
CREATE TABLE webhook_outbox (
    key        TEXT    PRIMARY KEY,
    url        TEXT    NOT NULL,
    body       TEXT    NOT NULL,         -- JSON: what is POSTed
    attempts   BIGINT  NOT NULL DEFAULT 0,
    next_ms    BIGINT  NOT NULL,         -- Unix ms of the next attempt
    expires_ms BIGINT  NOT NULL          -- Unix ms after which it is dropped undelivered
);
