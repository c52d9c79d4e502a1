-- Games and their journals (PostgreSQL). The same tables as migrations/sqlite/0001_games.sql.
CREATE TABLE games (
    seq        BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id         BYTEA   NOT NULL UNIQUE,
    created_ms BIGINT  NOT NULL,
    updated_ms BIGINT  NOT NULL,
    secrets    BYTEA   NOT NULL,
    setup      TEXT    NOT NULL,
    options    TEXT    NOT NULL,
    status     TEXT    NOT NULL,
    live       BIGINT  NOT NULL DEFAULT 1
);
CREATE INDEX games_by_status ON games (status, seq);

CREATE TABLE game_events (
    game    BIGINT NOT NULL,
    version BIGINT NOT NULL,
    body    TEXT   NOT NULL,
    PRIMARY KEY (game, version)
);
