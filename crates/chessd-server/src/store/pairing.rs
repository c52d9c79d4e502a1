//! Quick pairing's entries in the database (SQLite or PostgreSQL), so that players on different
//! cluster nodes meet and every node may pair them. A join checks the limits in its own
//! statement; pairing two entries claims both in one transaction (on PostgreSQL after locking
//! both rows with `FOR UPDATE SKIP LOCKED`, so that of two nodes pairing at once exactly one gets
//! each entry), then completes the claim with the game, or gives it back.

use super::{
    db::{with_pool, Db},
    StoreError,
};

/// The columns of an entry, as [`EntryRow`] reads them.
const COLUMNS: &str = "id, secret, pool, client, player, rating, status, created_ms, \
                       alive_until_ms, game, color, error, seat";

/// An entry as stored.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct EntryRow {
    /// Its id (a UUID's text).
    pub id: String,
    /// The SHA-256 of its secret.
    pub secret: Vec<u8>,
    /// The pool it waits in.
    pub pool: String,
    /// Who joined, as quotas name clients.
    pub client: String,
    /// The player who joined, if known.
    pub player: Option<String>,
    /// The rating pairing compares.
    pub rating: i64,
    /// `waiting`, `claimed` (its game is being created), `paired` or `failed`.
    pub status: String,
    /// When it joined (Unix ms).
    pub created_ms: i64,
    /// Until when it lives unless renewed (Unix ms).
    pub alive_until_ms: i64,
    /// Its game, once paired.
    pub game: Option<String>,
    /// The colour it plays, once paired.
    pub color: Option<String>,
    /// Why its game could not be created (`failed`): `code: message`.
    pub error: Option<String>,
    /// The digest of its seat secret (derived from its secret).
    pub seat: Vec<u8>,
}

/// An entry to insert.
#[derive(Clone, Debug)]
pub struct NewEntryRow {
    /// Its id.
    pub id: String,
    /// The SHA-256 of its secret.
    pub secret: Vec<u8>,
    /// The pool.
    pub pool: String,
    /// Who joins.
    pub client: String,
    /// The player who joins, if known.
    pub player: Option<String>,
    /// The rating pairing compares.
    pub rating: i64,
    /// Now (Unix ms).
    pub now_ms: i64,
    /// Until when it lives unless renewed.
    pub alive_until_ms: i64,
    /// The digest of its seat secret.
    pub seat: Vec<u8>,
}

/// What a join did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Joined {
    /// The entry waits.
    Done,
    /// Its client holds its limit of waiting entries: nothing was inserted.
    ClientFull,
    /// The pools hold their limit of waiting entries: nothing was inserted.
    TotalFull,
}

/// The entries' table.
#[derive(Clone, Debug)]
pub struct PairingDb {
    db: Db,
}

fn db_err(e: sqlx::Error) -> StoreError {
    StoreError::from_db(e, None)
}

/// An entry counts against the limits while it waits or is being paired.
const PENDING: &str = "status IN ('waiting', 'claimed')";

impl PairingDb {
    pub(super) fn new(db: Db) -> PairingDb {
        PairingDb { db }
    }

    /// Inserts `row` unless its client holds `per_client` pending entries or the pools `total`
    /// (checked in the insert's own statement; on PostgreSQL one client's joins are taken one at
    /// a time under an advisory lock, so that concurrent joins cannot both pass the check).
    pub async fn insert(
        &self,
        row: &NewEntryRow,
        per_client: i64,
        total: i64,
    ) -> Result<Joined, StoreError> {
        let sql = format!(
            "INSERT INTO pairing_entries (id, secret, pool, client, player, rating, status, \
             created_ms, alive_until_ms, seat, updated_ms) \
             SELECT $1, $2, $3, $4, $5, $6, 'waiting', $7, $8, $9, $7 \
             WHERE (SELECT COUNT(*) FROM pairing_entries WHERE client = $4 AND {PENDING} \
                    AND alive_until_ms > $7) < $10 \
               AND (SELECT COUNT(*) FROM pairing_entries WHERE {PENDING} \
                    AND alive_until_ms > $7) < $11"
        );
        let done = with_pool!(&self.db, pool => {
            let mut tx = pool.begin().await.map_err(db_err)?;
            if matches!(self.db, Db::Postgres(_)) {
                sqlx::query("SELECT pg_advisory_xact_lock(hashtext('chessd pairing ' || $1))")
                    .bind(&row.client)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_err)?;
            }
            let done = sqlx::query(&sql)
                .bind(&row.id)
                .bind(&row.secret)
                .bind(&row.pool)
                .bind(&row.client)
                .bind(&row.player)
                .bind(row.rating)
                .bind(row.now_ms)
                .bind(row.alive_until_ms)
                .bind(&row.seat)
                .bind(per_client)
                .bind(total)
                .execute(&mut *tx)
                .await
                .map_err(db_err)?
                .rows_affected();
            tx.commit().await.map_err(db_err)?;
            done
        });
        if done == 1 {
            return Ok(Joined::Done);
        }
        let held = self.pending_count(Some(&row.client), row.now_ms).await?;
        Ok(if held >= per_client {
            Joined::ClientFull
        } else {
            Joined::TotalFull
        })
    }

    /// Pending entries now, of one client or of all.
    pub async fn pending_count(
        &self,
        client: Option<&str>,
        now_ms: i64,
    ) -> Result<i64, StoreError> {
        let of_client = if client.is_some() {
            " AND client = $2"
        } else {
            ""
        };
        let sql = format!(
            "SELECT COUNT(*) FROM pairing_entries WHERE {PENDING} AND alive_until_ms > $1\
             {of_client}"
        );
        with_pool!(&self.db, pool => {
            let mut q = sqlx::query_scalar::<_, i64>(&sql).bind(now_ms);
            if let Some(client) = client {
                q = q.bind(client);
            }
            q.fetch_one(pool).await.map_err(db_err)
        })
    }

    /// How many entries wait in each pool now (pools with none are absent).
    pub async fn waiting_counts(&self, now_ms: i64) -> Result<Vec<(String, i64)>, StoreError> {
        let sql = "SELECT pool, COUNT(*) FROM pairing_entries \
                   WHERE status = 'waiting' AND alive_until_ms > $1 GROUP BY pool";
        with_pool!(&self.db, pool => {
            sqlx::query_as(sql)
                .bind(now_ms)
                .fetch_all(pool)
                .await
                .map_err(db_err)
        })
    }

    /// Every waiting entry alive now, oldest first, at most `limit`.
    pub async fn waiting(&self, now_ms: i64, limit: i64) -> Result<Vec<EntryRow>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM pairing_entries WHERE status = 'waiting' \
             AND alive_until_ms > $1 ORDER BY created_ms, id LIMIT $2"
        );
        with_pool!(&self.db, pool => {
            sqlx::query_as(&sql)
                .bind(now_ms)
                .bind(limit)
                .fetch_all(pool)
                .await
                .map_err(db_err)
        })
    }

    /// An entry, whatever its status (`None` when absent).
    pub async fn get(&self, id: &str) -> Result<Option<EntryRow>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM pairing_entries WHERE id = $1");
        with_pool!(&self.db, pool => {
            sqlx::query_as(&sql)
                .bind(id)
                .fetch_optional(pool)
                .await
                .map_err(db_err)
        })
    }

    /// Deletes a waiting entry whose secret's digest is `secret`; whether one was deleted.
    pub async fn delete_waiting(&self, id: &str, secret: &[u8]) -> Result<bool, StoreError> {
        let sql = "DELETE FROM pairing_entries WHERE id = $1 AND secret = $2 \
                   AND status = 'waiting'";
        with_pool!(&self.db, pool => {
            Ok(sqlx::query(sql)
                .bind(id)
                .bind(secret)
                .execute(pool)
                .await
                .map_err(db_err)?
                .rows_affected() == 1)
        })
    }

    /// Claims the two entries `a` and `b` for `claim`, both or neither: each must be alive and
    /// waiting (or claimed longer ago than `stale_ms`, by a pairer that never completed). On
    /// PostgreSQL the rows are locked first, skipping rows another transaction holds, so that two
    /// nodes pairing at once never wait on each other and exactly one wins each entry. Whether
    /// this claim won. A claimed entry lives at least `stale_ms` more (its game is being made).
    pub async fn claim_pair(
        &self,
        a: &str,
        b: &str,
        claim: &str,
        now_ms: i64,
        stale_ms: i64,
    ) -> Result<bool, StoreError> {
        let claimable = "id IN ($1, $2) AND alive_until_ms > $3 \
                         AND (status = 'waiting' OR (status = 'claimed' AND claimed_ms < $4))";
        let lock =
            format!("SELECT id FROM pairing_entries WHERE {claimable} FOR UPDATE SKIP LOCKED");
        let update = format!(
            "UPDATE pairing_entries SET status = 'claimed', claim = $5, claimed_ms = $3, \
             updated_ms = $3, \
             alive_until_ms = CASE WHEN alive_until_ms < $6 THEN $6 ELSE alive_until_ms END \
             WHERE {claimable}"
        );
        with_pool!(&self.db, pool => {
            let mut tx = pool.begin().await.map_err(db_err)?;
            if matches!(self.db, Db::Postgres(_)) {
                let locked: Vec<String> = sqlx::query_scalar(&lock)
                    .bind(a)
                    .bind(b)
                    .bind(now_ms)
                    .bind(now_ms - stale_ms)
                    .fetch_all(&mut *tx)
                    .await
                    .map_err(db_err)?;
                if locked.len() != 2 {
                    tx.rollback().await.map_err(db_err)?;
                    return Ok(false);
                }
            }
            let claimed = sqlx::query(&update)
                .bind(a)
                .bind(b)
                .bind(now_ms)
                .bind(now_ms - stale_ms)
                .bind(claim)
                .bind(now_ms + stale_ms)
                .execute(&mut *tx)
                .await
                .map_err(db_err)?
                .rows_affected();
            if claimed != 2 {
                tx.rollback().await.map_err(db_err)?;
                return Ok(false);
            }
            tx.commit().await.map_err(db_err)?;
            Ok(true)
        })
    }

    /// Completes `claim` on entry `id`: paired into `game`, playing `color`, readable until
    /// `keep_until_ms`; whether the claim still held.
    pub async fn pair(
        &self,
        id: &str,
        claim: &str,
        game: &str,
        color: &str,
        now_ms: i64,
        keep_until_ms: i64,
    ) -> Result<bool, StoreError> {
        let sql = "UPDATE pairing_entries SET status = 'paired', game = $3, color = $4, \
                   updated_ms = $5, alive_until_ms = $6 \
                   WHERE id = $1 AND claim = $2 AND status = 'claimed'";
        with_pool!(&self.db, pool => {
            Ok(sqlx::query(sql)
                .bind(id)
                .bind(claim)
                .bind(game)
                .bind(color)
                .bind(now_ms)
                .bind(keep_until_ms)
                .execute(pool)
                .await
                .map_err(db_err)?
                .rows_affected() == 1)
        })
    }

    /// Ends `claim` on entry `id` as failed (its game could not be created: `error`), readable
    /// until `keep_until_ms`.
    pub async fn fail(
        &self,
        id: &str,
        claim: &str,
        error: &str,
        now_ms: i64,
        keep_until_ms: i64,
    ) -> Result<(), StoreError> {
        let sql = "UPDATE pairing_entries SET status = 'failed', error = $3, updated_ms = $4, \
                   alive_until_ms = $5 WHERE id = $1 AND claim = $2 AND status = 'claimed'";
        with_pool!(&self.db, pool => {
            sqlx::query(sql)
                .bind(id)
                .bind(claim)
                .bind(error)
                .bind(now_ms)
                .bind(keep_until_ms)
                .execute(pool)
                .await
                .map_err(db_err)?;
            Ok(())
        })
    }

    /// Gives `claim` on entry `id` back: it waits again.
    pub async fn release(&self, id: &str, claim: &str, now_ms: i64) -> Result<(), StoreError> {
        let sql = "UPDATE pairing_entries SET status = 'waiting', claim = NULL, claimed_ms = 0, \
                   updated_ms = $3 WHERE id = $1 AND claim = $2 AND status = 'claimed'";
        with_pool!(&self.db, pool => {
            sqlx::query(sql)
                .bind(id)
                .bind(claim)
                .bind(now_ms)
                .execute(pool)
                .await
                .map_err(db_err)?;
            Ok(())
        })
    }

    /// Keeps the pending entries `ids` alive until `until_ms` (their holders are there).
    pub async fn renew(&self, ids: &[String], until_ms: i64) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        with_pool!(&self.db, pool => {
            let mut q = sqlx::QueryBuilder::new("UPDATE pairing_entries SET alive_until_ms = ");
            q.push_bind(until_ms)
                .push(" WHERE status IN ('waiting', 'claimed') AND alive_until_ms < ")
                .push_bind(until_ms)
                .push(" AND id IN (");
            let mut list = q.separated(", ");
            for id in ids {
                list.push_bind(id.as_str());
            }
            q.push(")");
            q.build().execute(pool).await.map_err(db_err)?;
            Ok(())
        })
    }

    /// Which of `ids` are settled (paired or failed).
    pub async fn settled_among(&self, ids: &[String]) -> Result<Vec<EntryRow>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        with_pool!(&self.db, pool => {
            let mut q = sqlx::QueryBuilder::new(format!(
                "SELECT {COLUMNS} FROM pairing_entries WHERE status IN ('paired', 'failed') \
                 AND id IN ("
            ));
            let mut list = q.separated(", ");
            for id in ids {
                list.push_bind(id.as_str());
            }
            q.push(")");
            q.build_query_as().fetch_all(pool).await.map_err(db_err)
        })
    }

    /// Deletes the entries no longer alive; how many.
    pub async fn sweep(&self, now_ms: i64) -> Result<u64, StoreError> {
        let sql = "DELETE FROM pairing_entries WHERE alive_until_ms <= $1";
        with_pool!(&self.db, pool => {
            Ok(sqlx::query(sql)
                .bind(now_ms)
                .execute(pool)
                .await
                .map_err(db_err)?
                .rows_affected())
        })
    }
}
