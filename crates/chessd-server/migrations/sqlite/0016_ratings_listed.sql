-- Issue 32: seeks name their owner, and ongoing games list by rating (see
-- migrations/postgres/0016_ratings_listed.sql).
--
-- A seek keeps its owner's name and rating (and deviation: provisional over 110) in the seek's
-- variant and class as they were when it was posted, so that listing seeks reads one table.
ALTER TABLE seeks ADD COLUMN owner_name TEXT;
ALTER TABLE seeks ADD COLUMN owner_rating REAL;
ALTER TABLE seeks ADD COLUMN owner_deviation REAL;

-- A game's `rating`: the average of its players' ratings when it started (a side without a
-- rating counts 1500), at least 1; 0 for a game created without players. Written with
-- `game_players`, in the same transaction. `GET /v1/games?order=rating` walks these indexes.
ALTER TABLE games ADD COLUMN rating INTEGER NOT NULL DEFAULT 0;
UPDATE games SET rating = (
    SELECT MAX(1, (COALESCE(gp.white_rating, 1500) + COALESCE(gp.black_rating, 1500)) / 2)
    FROM game_players gp WHERE gp.game = games.id)
WHERE id IN (SELECT game FROM game_players);
CREATE INDEX games_by_status_rating ON games (status, rating, seq);
CREATE INDEX games_by_rating ON games (rating, seq);
CREATE INDEX games_finished_by_rating ON games (rating, seq) WHERE status <> 'ongoing';
