-- The cluster's shared secret: the first node to start writes 32 random bytes here, and every
-- node reads them. A node that forwards a request to another signs the client's address with it
-- (HMAC-SHA256), so that the owner counts the request against the real client, and nobody else
-- can claim an address by writing the header.
CREATE TABLE cluster_secret (
    id     SMALLINT PRIMARY KEY CHECK (id = 1),
    secret BYTEA    NOT NULL
);
