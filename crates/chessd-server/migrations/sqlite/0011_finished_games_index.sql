-- Finished games by key (issue 29): `GET /v1/games?status=finished` and the export of finished
-- games ask for `status <> 'ongoing'` newest first. `games_by_status` cannot serve an
-- inequality in key order, so without this index the query walked every game back from the
-- newest, a scan of every ongoing game before the first finished one (2.7 s for an empty page
-- on a million ongoing games). The partial index holds only finished games.
CREATE INDEX games_finished ON games (seq) WHERE status <> 'ongoing';
