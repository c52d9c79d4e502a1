-- Issue 32: the lobby's seeks, in the database so that players on different nodes meet.
-- A seek is `open` until it is accepted (`claimed` while its game is being created, `accepted`
-- once it is) or cancelled (deleted). It lives until `expires_ms`, or, while a lobby socket
-- holds it, until `held_until_ms` (renewed by that socket's node; a grace period after the
-- socket closes). `secret` is the SHA-256 of the seek's secret; `owner_seat` is the digest of the owner's
-- seat secret (derived from the seek's secret, so never stored in clear); `client` is who posted it, as
-- quotas count clients.
CREATE TABLE seeks (
    id            TEXT   PRIMARY KEY,
    secret        BYTEA  NOT NULL,
    client        TEXT   NOT NULL,
    player        TEXT,
    body          TEXT   NOT NULL,
    status        TEXT   NOT NULL DEFAULT 'open',
    created_ms    BIGINT NOT NULL,
    expires_ms    BIGINT NOT NULL,
    held_until_ms BIGINT NOT NULL DEFAULT 0,
    claim         TEXT,
    claimed_ms    BIGINT NOT NULL DEFAULT 0,
    game          TEXT,
    owner_color   TEXT,
    owner_seat    BYTEA,
    updated_ms    BIGINT NOT NULL
);
CREATE INDEX seeks_by_status ON seeks (status, created_ms);
CREATE INDEX seeks_by_client ON seeks (client, status);
