-- Issue 32: quick pairing's entries (see migrations/postgres/0015_pairing.sql), the same table
-- in SQLite.
CREATE TABLE pairing_entries (
    id             TEXT    PRIMARY KEY,
    secret         BLOB    NOT NULL,
    pool           TEXT    NOT NULL,
    client         TEXT    NOT NULL,
    player         TEXT,
    rating         INTEGER NOT NULL DEFAULT 1500,
    status         TEXT    NOT NULL DEFAULT 'waiting',
    created_ms     INTEGER NOT NULL,
    alive_until_ms INTEGER NOT NULL,
    claim          TEXT,
    claimed_ms     INTEGER NOT NULL DEFAULT 0,
    game           TEXT,
    color          TEXT,
    error          TEXT,
    seat           BLOB    NOT NULL,
    updated_ms     INTEGER NOT NULL
);
CREATE INDEX pairing_entries_by_pool ON pairing_entries (status, pool, created_ms);
CREATE INDEX pairing_entries_by_client ON pairing_entries (client, status);
