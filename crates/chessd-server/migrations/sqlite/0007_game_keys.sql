-- Idempotency keys (SQLite): the answer a game gave to a request sent with an
-- `Idempotency-Key` (or a WebSocket command's `ack`), written in the same transaction as the
-- change the request made, so that a repeat of the request is answered the same and changes
-- nothing, across restarts and failover. Each caller (scope: 0 white, 1 black, 2 admin) keeps
-- its last few keys per game; the game deletes older ones as it writes new ones.
CREATE TABLE game_keys (
    game        INTEGER NOT NULL,        -- games.seq
    scope       INTEGER NOT NULL,
    key         TEXT    NOT NULL,
    fingerprint BLOB    NOT NULL,        -- SHA-256 of the request's route and body
    status      INTEGER NOT NULL,        -- the answer's HTTP status
    body        TEXT    NOT NULL,        -- the answer's JSON body
    at_ms       INTEGER NOT NULL,        -- when it was kept (Unix ms), for the order
    PRIMARY KEY (game, scope, key)
) WITHOUT ROWID;
