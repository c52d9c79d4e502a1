-- Issue 32: the lobby's seeks (see migrations/postgres/0013_seeks.sql), the same table in SQLite.
CREATE TABLE seeks (
    id            TEXT    PRIMARY KEY,
    secret        BLOB    NOT NULL,
    client        TEXT    NOT NULL,
    player        TEXT,
    body          TEXT    NOT NULL,
    status        TEXT    NOT NULL DEFAULT 'open',
    created_ms    INTEGER NOT NULL,
    expires_ms    INTEGER NOT NULL,
    held_until_ms INTEGER NOT NULL DEFAULT 0,
    claim         TEXT,
    claimed_ms    INTEGER NOT NULL DEFAULT 0,
    game          TEXT,
    owner_color   TEXT,
    owner_seat    BLOB,
    updated_ms    INTEGER NOT NULL
);
CREATE INDEX seeks_by_status ON seeks (status, created_ms);
CREATE INDEX seeks_by_client ON seeks (client, status);
