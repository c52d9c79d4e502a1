-- Issue 32: players. A player is anonymous (no name) or named: `name` as given, `name_key` its
-- lowercase form (unique: names are unique case-insensitively), `password` its argon2id hash
-- (PHC string; never the password). `client` is who created it, as quotas name clients.
CREATE TABLE players (
    id         TEXT   PRIMARY KEY,
    name       TEXT,
    name_key   TEXT   UNIQUE,
    password   TEXT,
    client     TEXT   NOT NULL,
    created_ms BIGINT NOT NULL
);

-- A player's tokens, by their SHA-256 only (a token is shown once, when made).
CREATE TABLE player_tokens (
    digest     BYTEA  PRIMARY KEY,
    player     TEXT   NOT NULL,
    created_ms BIGINT NOT NULL
);
CREATE INDEX player_tokens_by_player ON player_tokens (player, created_ms);

-- Glicko-2 ratings per variant (standard, chess2) and time-control class.
CREATE TABLE player_ratings (
    player     TEXT             NOT NULL,
    variant    TEXT             NOT NULL,
    class      TEXT             NOT NULL,
    rating     DOUBLE PRECISION NOT NULL,
    deviation  DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games      BIGINT           NOT NULL DEFAULT 0,
    updated_ms BIGINT           NOT NULL,
    PRIMARY KEY (player, variant, class)
);

-- One row per rated game per player: the rating after it (and before).
CREATE TABLE rating_history (
    game       BYTEA            NOT NULL,
    player     TEXT             NOT NULL,
    variant    TEXT             NOT NULL,
    class      TEXT             NOT NULL,
    score      DOUBLE PRECISION NOT NULL,
    rating     DOUBLE PRECISION NOT NULL,
    deviation  DOUBLE PRECISION NOT NULL,
    before     DOUBLE PRECISION NOT NULL,
    at_ms      BIGINT           NOT NULL,
    PRIMARY KEY (game, player)
);
CREATE INDEX rating_history_by_player ON rating_history (player, at_ms);

-- Who plays a game (by its UUID, as games.id), written with the game: the players' ids and
-- ratings when it started, whether it is rated, its perf (variant and class);
-- `rated_ms` is set once its ratings are applied (so they are applied once).
CREATE TABLE game_players (
    game          BYTEA   PRIMARY KEY,
    white         TEXT,
    black         TEXT,
    white_rating  INTEGER,
    black_rating  INTEGER,
    rated         INTEGER NOT NULL,
    variant       TEXT    NOT NULL,
    class         TEXT    NOT NULL,
    created_ms    BIGINT  NOT NULL,
    rated_ms      BIGINT  NOT NULL DEFAULT 0
);
CREATE INDEX game_players_by_white ON game_players (white, created_ms);
CREATE INDEX game_players_by_black ON game_players (black, created_ms);
