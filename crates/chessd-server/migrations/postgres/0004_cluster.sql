-- Several nodes on one PostgreSQL (the cluster). Every node heartbeats its row; a node whose
-- lease (`expires_ms`, PostgreSQL's clock) has passed is gone. Games are grouped in shards, each
-- owned by at most one node through a lease that carries a fencing token: taking a shard bumps
-- its token, and every write of the shard's games is made only while the token is still the
-- writer's (checked in the write's own transaction), so a node that lost a shard cannot write.
CREATE TABLE cluster_nodes (
    node         TEXT   PRIMARY KEY,
    url          TEXT   NOT NULL,       -- its advertised internal address
    started_ms   BIGINT NOT NULL,
    heartbeat_ms BIGINT NOT NULL,
    expires_ms   BIGINT NOT NULL
);

CREATE TABLE cluster_shards (
    shard      INTEGER PRIMARY KEY,
    owner      TEXT,                    -- a node, or none
    token      BIGINT  NOT NULL DEFAULT 0,
    expires_ms BIGINT  NOT NULL DEFAULT 0
);
