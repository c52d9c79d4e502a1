-- One row that `GET /health` updates, through the store's writer, when no game was written for
-- a few seconds: so that health says whether the store takes writes now (a database that has
-- become read-only, a full disk, a lost server), not only whether it answers reads.
CREATE TABLE store_probe (
    at_ms BIGINT NOT NULL
);
INSERT INTO store_probe (at_ms) VALUES (0);
