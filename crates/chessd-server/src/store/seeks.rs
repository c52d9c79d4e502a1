//! The lobby's seeks in the database (SQLite or PostgreSQL, the same SQL), so that players on
//! different cluster nodes see the same seeks and an accept happens once. Every change is one
//! statement: the insert checks the limits in its own `WHERE`, an accept first claims the seek
//! with a conditional update (exactly one claimer wins) and completes it with another.

use super::{
    db::{with_pool, Db},
    StoreError,
};

/// A seek is alive until `expires_ms`, or, while a lobby socket holds it, `held_until_ms`.
const ALIVE: &str = "(CASE WHEN held_until_ms > 0 THEN held_until_ms ELSE expires_ms END) > ";

/// The columns of a seek, as [`SeekRow`] reads them.
const COLUMNS: &str = "id, secret, client, player, body, status, created_ms, expires_ms, \
                       held_until_ms, game, owner_color, owner_seat, owner_name, owner_rating, \
                       owner_deviation";

/// A seek as stored.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct SeekRow {
    /// Its id (a UUID's text).
    pub id: String,
    /// The SHA-256 of its secret.
    pub secret: Vec<u8>,
    /// Who posted it, as quotas name clients.
    pub client: String,
    /// The player who posted it, if one did.
    pub player: Option<String>,
    /// JSON: what was asked (variant, time control, colour, …).
    pub body: String,
    /// `open`, `claimed` (its game is being created) or `accepted`.
    pub status: String,
    /// When it was posted (Unix ms).
    pub created_ms: i64,
    /// When it expires unless a lobby socket holds it (Unix ms).
    pub expires_ms: i64,
    /// Until when a lobby socket's hold keeps it (0: never held).
    pub held_until_ms: i64,
    /// The game once accepted.
    pub game: Option<String>,
    /// The colour its owner plays, once accepted.
    pub owner_color: Option<String>,
    /// The digest of its owner's seat secret.
    pub owner_seat: Option<Vec<u8>>,
    /// Its owner's name when it was posted (`None`: no player, or an anonymous one).
    pub owner_name: Option<String>,
    /// Its owner's rating in its variant and class when it was posted (`None`: no player, or
    /// never rated there).
    pub owner_rating: Option<f64>,
    /// That rating's deviation.
    pub owner_deviation: Option<f64>,
}

/// A seek to insert.
#[derive(Clone, Debug)]
pub struct NewSeekRow {
    /// Its id.
    pub id: String,
    /// The SHA-256 of its secret.
    pub secret: Vec<u8>,
    /// Who posts it.
    pub client: String,
    /// The player who posts it.
    pub player: Option<String>,
    /// JSON: what is asked.
    pub body: String,
    /// Now (Unix ms).
    pub now_ms: i64,
    /// When it expires unless held (Unix ms).
    pub expires_ms: i64,
    /// The digest of its owner's seat secret.
    pub owner_seat: Vec<u8>,
    /// Its owner's name (`None`: no player, or an anonymous one).
    pub owner_name: Option<String>,
    /// Its owner's rating and deviation in its variant and class (`None`: no player, or never
    /// rated there).
    pub owner_rating: Option<(f64, f64)>,
}

/// What an insert did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inserted {
    /// The seek is open.
    Done,
    /// Its client holds its limit of open seeks: nothing was inserted.
    ClientFull,
    /// The lobby holds its limit of open seeks: nothing was inserted.
    TotalFull,
}

/// The seeks' table.
#[derive(Clone, Debug)]
pub struct SeekDb {
    db: Db,
}

fn db_err(e: sqlx::Error) -> StoreError {
    StoreError::from_db(e, None)
}

impl SeekDb {
    pub(super) fn new(db: Db) -> SeekDb {
        SeekDb { db }
    }

    /// Inserts `row` unless its client holds `per_client` open seeks or the lobby `total`
    /// (checked in the insert's own statement).
    pub async fn insert(
        &self,
        row: &NewSeekRow,
        per_client: i64,
        total: i64,
    ) -> Result<Inserted, StoreError> {
        let sql = format!(
            "INSERT INTO seeks (id, secret, client, player, body, status, created_ms, \
             expires_ms, owner_seat, updated_ms, owner_name, owner_rating, owner_deviation) \
             SELECT $1, $2, $3, $4, $5, 'open', $6, $7, $8, $6, $11, $12, $13 \
             WHERE (SELECT COUNT(*) FROM seeks WHERE client = $3 AND status = 'open' \
                    AND {ALIVE} $6) < $9 \
               AND (SELECT COUNT(*) FROM seeks WHERE status = 'open' AND {ALIVE} $6) < $10"
        );
        let done = with_pool!(&self.db, pool => {
            sqlx::query(&sql)
                .bind(&row.id)
                .bind(&row.secret)
                .bind(&row.client)
                .bind(&row.player)
                .bind(&row.body)
                .bind(row.now_ms)
                .bind(row.expires_ms)
                .bind(&row.owner_seat)
                .bind(per_client)
                .bind(total)
                .bind(&row.owner_name)
                .bind(row.owner_rating.map(|r| r.0))
                .bind(row.owner_rating.map(|r| r.1))
                .execute(pool)
                .await
                .map_err(db_err)?
                .rows_affected()
        });
        if done == 1 {
            return Ok(Inserted::Done);
        }
        let held = self.open_count(Some(&row.client), row.now_ms).await?;
        Ok(if held >= per_client {
            Inserted::ClientFull
        } else {
            Inserted::TotalFull
        })
    }

    /// Open seeks now, of one client or of all.
    pub async fn open_count(&self, client: Option<&str>, now_ms: i64) -> Result<i64, StoreError> {
        let of_client = if client.is_some() {
            " AND client = $2"
        } else {
            ""
        };
        let sql =
            format!("SELECT COUNT(*) FROM seeks WHERE status = 'open' AND {ALIVE} $1{of_client}");
        with_pool!(&self.db, pool => {
            let mut q = sqlx::query_scalar::<_, i64>(&sql).bind(now_ms);
            if let Some(client) = client {
                q = q.bind(client);
            }
            q.fetch_one(pool).await.map_err(db_err)
        })
    }

    /// The open seeks, oldest first, at most `limit`.
    pub async fn open_seeks(&self, now_ms: i64, limit: i64) -> Result<Vec<SeekRow>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM seeks WHERE status = 'open' AND {ALIVE} $1 \
             ORDER BY created_ms, id LIMIT $2"
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

    /// A seek, whatever its status (`None` when absent).
    pub async fn get(&self, id: &str) -> Result<Option<SeekRow>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM seeks WHERE id = $1");
        with_pool!(&self.db, pool => {
            sqlx::query_as(&sql)
                .bind(id)
                .fetch_optional(pool)
                .await
                .map_err(db_err)
        })
    }

    /// Deletes an open seek whose secret's digest is `secret`; whether one was deleted.
    pub async fn delete_open(&self, id: &str, secret: &[u8]) -> Result<bool, StoreError> {
        let sql = "DELETE FROM seeks WHERE id = $1 AND secret = $2 AND status = 'open'";
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

    /// Claims an alive open seek for `claim` (or one whose claim is older than `stale_ms`,
    /// left by an accept that never completed); whether this claim won.
    pub async fn claim(
        &self,
        id: &str,
        claim: &str,
        now_ms: i64,
        stale_ms: i64,
    ) -> Result<bool, StoreError> {
        let sql = format!(
            "UPDATE seeks SET status = 'claimed', claim = $2, claimed_ms = $3, updated_ms = $3 \
             WHERE id = $1 AND {ALIVE} $3 \
             AND (status = 'open' OR (status = 'claimed' AND claimed_ms < $4))"
        );
        with_pool!(&self.db, pool => {
            Ok(sqlx::query(&sql)
                .bind(id)
                .bind(claim)
                .bind(now_ms)
                .bind(now_ms - stale_ms)
                .execute(pool)
                .await
                .map_err(db_err)?
                .rows_affected() == 1)
        })
    }

    /// Completes `claim`: the seek is accepted with its game and its owner's colour; whether
    /// the claim still held. A seek accepted stays readable by its owner until `keep_until_ms`.
    pub async fn accept(
        &self,
        id: &str,
        claim: &str,
        game: &str,
        owner_color: &str,
        now_ms: i64,
        keep_until_ms: i64,
    ) -> Result<bool, StoreError> {
        let sql = "UPDATE seeks SET status = 'accepted', game = $3, owner_color = $4, \
                   updated_ms = $5, expires_ms = $6, held_until_ms = 0 \
                   WHERE id = $1 AND claim = $2 AND status = 'claimed'";
        with_pool!(&self.db, pool => {
            Ok(sqlx::query(sql)
                .bind(id)
                .bind(claim)
                .bind(game)
                .bind(owner_color)
                .bind(now_ms)
                .bind(keep_until_ms)
                .execute(pool)
                .await
                .map_err(db_err)?
                .rows_affected() == 1)
        })
    }

    /// Gives a claim back (its game could not be created): the seek is open again.
    pub async fn release(&self, id: &str, claim: &str, now_ms: i64) -> Result<(), StoreError> {
        let sql = "UPDATE seeks SET status = 'open', claim = NULL, claimed_ms = 0, \
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

    /// Keeps the open seeks `ids` alive until `until_ms` (their lobby sockets are open).
    pub async fn hold(&self, ids: &[String], until_ms: i64) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        with_pool!(&self.db, pool => {
            let mut q = sqlx::QueryBuilder::new("UPDATE seeks SET held_until_ms = ");
            q.push_bind(until_ms).push(" WHERE status = 'open' AND id IN (");
            let mut list = q.separated(", ");
            for id in ids {
                list.push_bind(id.as_str());
            }
            q.push(")");
            q.build().execute(pool).await.map_err(db_err)?;
            Ok(())
        })
    }

    /// Which of `ids` are accepted.
    pub async fn accepted_among(&self, ids: &[String]) -> Result<Vec<SeekRow>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        with_pool!(&self.db, pool => {
            let mut q = sqlx::QueryBuilder::new(format!(
                "SELECT {COLUMNS} FROM seeks WHERE status = 'accepted' AND id IN ("
            ));
            let mut list = q.separated(", ");
            for id in ids {
                list.push_bind(id.as_str());
            }
            q.push(")");
            q.build_query_as().fetch_all(pool).await.map_err(db_err)
        })
    }

    /// Deletes the seeks that are no longer alive (expired, or accepted and kept long enough);
    /// how many.
    pub async fn sweep(&self, now_ms: i64) -> Result<u64, StoreError> {
        let sql = format!("DELETE FROM seeks WHERE NOT ({ALIVE} $1)");
        with_pool!(&self.db, pool => {
            Ok(sqlx::query(&sql)
                .bind(now_ms)
                .execute(pool)
                .await
                .map_err(db_err)?
                .rows_affected())
        })
    }
}
