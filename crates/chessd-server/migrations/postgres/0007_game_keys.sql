-- Idempotency keys (PostgreSQL). The same table as migrations/sqlite/0007_game_keys.sql.
CREATE TABLE game_keys (
    game        BIGINT NOT NULL,
    scope       BIGINT NOT NULL,
    key         TEXT   NOT NULL,
    fingerprint BYTEA  NOT NULL,
    status      BIGINT NOT NULL,
    body        TEXT   NOT NULL,
    at_ms       BIGINT NOT NULL,
    PRIMARY KEY (game, scope, key)
);
