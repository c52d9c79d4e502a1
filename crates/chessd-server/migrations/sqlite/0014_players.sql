-- Issue 32: players (see migrations/postgres/0014_players.sql), the same tables in SQLite.
CREATE TABLE players (
    id         TEXT    PRIMARY KEY,
    name       TEXT,
    name_key   TEXT    UNIQUE,
    password   TEXT,
    client     TEXT    NOT NULL,
    created_ms INTEGER NOT NULL
);

CREATE TABLE player_tokens (
    digest     BLOB    PRIMARY KEY,
    player     TEXT    NOT NULL,
    created_ms INTEGER NOT NULL
);
CREATE INDEX player_tokens_by_player ON player_tokens (player, created_ms);

CREATE TABLE player_ratings (
    player     TEXT    NOT NULL,
    variant    TEXT    NOT NULL,
    class      TEXT    NOT NULL,
    rating     REAL    NOT NULL,
    deviation  REAL    NOT NULL,
    volatility REAL    NOT NULL,
    games      INTEGER NOT NULL DEFAULT 0,
    updated_ms INTEGER NOT NULL,
    PRIMARY KEY (player, variant, class)
);

CREATE TABLE rating_history (
    game       BLOB    NOT NULL,
    player     TEXT    NOT NULL,
    variant    TEXT    NOT NULL,
    class      TEXT    NOT NULL,
    score      REAL    NOT NULL,
    rating     REAL    NOT NULL,
    deviation  REAL    NOT NULL,
    before     REAL    NOT NULL,
    at_ms      INTEGER NOT NULL,
    PRIMARY KEY (game, player)
);
CREATE INDEX rating_history_by_player ON rating_history (player, at_ms);

CREATE TABLE game_players (
    game          BLOB    PRIMARY KEY,
    white         TEXT,
    black         TEXT,
    white_rating  INTEGER,
    black_rating  INTEGER,
    rated         INTEGER NOT NULL,
    variant       TEXT    NOT NULL,
    class         TEXT    NOT NULL,
    created_ms    INTEGER NOT NULL,
    rated_ms      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX game_players_by_white ON game_players (white, created_ms);
CREATE INDEX game_players_by_black ON game_players (black, created_ms);
