-- Issue 32: quick pairing. A player joins a pool (a time control and variant from config) and
-- waits, as a row here, until a node's pairer pairs it with another entry of the same pool; the
-- rows are in the database so that players on different nodes meet. An entry is `waiting`,
-- `claimed` (its game is being created; the claim is a token taken by one transaction that
-- locked both rows, so no entry is ever in two games), `paired` (with `game` and `color`) or
-- `failed` (its game could not be created: `error` says why). It lives until `alive_until_ms`,
-- renewed while its holder polls it or holds it from a lobby socket; a paired or failed entry
-- stays readable a while, then is deleted. `secret` is the SHA-256 of the entry's secret; `seat`
-- the digest of the seat secret derived from it (never stored in clear); `client` who joined, as
-- quotas count clients; `player` the player's id when known; `rating` what pairing compares.
CREATE TABLE pairing_entries (
    id             TEXT    PRIMARY KEY,
    secret         BYTEA   NOT NULL,
    pool           TEXT    NOT NULL,
    client         TEXT    NOT NULL,
    player         TEXT,
    rating         BIGINT  NOT NULL DEFAULT 1500,
    status         TEXT    NOT NULL DEFAULT 'waiting',
    created_ms     BIGINT  NOT NULL,
    alive_until_ms BIGINT  NOT NULL,
    claim          TEXT,
    claimed_ms     BIGINT  NOT NULL DEFAULT 0,
    game           TEXT,
    color          TEXT,
    error          TEXT,
    seat           BYTEA   NOT NULL,
    updated_ms     BIGINT  NOT NULL
);
CREATE INDEX pairing_entries_by_pool ON pairing_entries (status, pool, created_ms);
CREATE INDEX pairing_entries_by_client ON pairing_entries (client, status);
