-- Games and their journals (SQLite).
--
-- A game is one row of `games` (how it was created, its options, its status) and its journal:
-- one row of `game_events` per versioned event, keyed by (game, version). The version is the
-- write's fencing token: a second writer of the same version fails on the primary key, so a
-- stale writer can never fork a game.
CREATE TABLE games (
    seq        INTEGER PRIMARY KEY,
    id         BLOB    NOT NULL UNIQUE,   -- the game's UUID, 16 bytes
    created_ms INTEGER NOT NULL,          -- Unix time, milliseconds
    updated_ms INTEGER NOT NULL,
    secrets    BLOB    NOT NULL,          -- SHA-256 of the white, black and admin secrets
    setup      TEXT    NOT NULL,          -- JSON: the game as created (a saved state)
    options    TEXT    NOT NULL,          -- JSON: the current options
    status     TEXT    NOT NULL,          -- ongoing, white_wins, black_wins or draw
    live       INTEGER NOT NULL DEFAULT 1 -- 0 once stopped (stop, idle timeout, abandoned)
);
CREATE INDEX games_by_status ON games (status, seq);

CREATE TABLE game_events (
    game    INTEGER NOT NULL,
    version INTEGER NOT NULL,
    body    TEXT    NOT NULL,             -- JSON: the journal entry
    PRIMARY KEY (game, version)
) WITHOUT ROWID;
