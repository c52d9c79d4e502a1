//! Players in the database (SQLite or PostgreSQL, the same SQL): who they are (an id, a name
//! once claimed, the argon2id hash of its password), their tokens (digests only), their Glicko-2
//! ratings per variant and time-control class with one history row per rated game, and who
//! played each game created with players (`game_players`).
//!
//! Ratings change only in the store's writer, in the transaction that records a rated game's
//! end ([`RateOp`], executed by `execute_rate!`), so a game's end and its ratings are committed
//! together or not at all, and a game is rated once (`game_players.rated_ms`).

use uuid::Uuid;

use super::{
    db::{with_pool, Db},
    StoreError,
};

/// The columns of a player, as [`PlayerRow`] reads them.
const PLAYER_COLUMNS: &str = "id, name, password, created_ms";

/// A player as stored.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct PlayerRow {
    /// Its id (a UUID's text).
    pub id: String,
    /// Its name, once claimed.
    pub name: Option<String>,
    /// The argon2id hash of its password (a PHC string), for a named player.
    pub password: Option<String>,
    /// When it was created (Unix ms).
    pub created_ms: i64,
}

/// A player to insert.
#[derive(Clone, Debug)]
pub struct NewPlayer {
    /// Its id.
    pub id: String,
    /// Its name, its lowercase key and its password's hash, for a named player.
    pub named: Option<Named>,
    /// Who creates it, as quotas name clients.
    pub client: String,
    /// Now (Unix ms).
    pub now_ms: i64,
}

/// A name with its key (lowercase: names are unique case-insensitively) and its password hash.
#[derive(Clone, Debug)]
pub struct Named {
    /// The name as given.
    pub name: String,
    /// Its lowercase form.
    pub key: String,
    /// The argon2id hash of the password.
    pub hash: String,
}

/// One rating as stored.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct RatingRow {
    /// `standard` or `chess2`.
    pub variant: String,
    /// `bullet`, `blitz`, `rapid` or `classical`.
    pub class: String,
    /// The rating.
    pub rating: f64,
    /// Its deviation.
    pub deviation: f64,
    /// Its volatility.
    pub volatility: f64,
    /// Rated games played in this variant and class.
    pub games: i64,
}

/// Who plays a game created with players, as stored with it.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct GamePlayersRow {
    /// The game's UUID bytes.
    pub game: Vec<u8>,
    /// White's player id.
    pub white: Option<String>,
    /// Black's player id.
    pub black: Option<String>,
    /// White's rating (rounded) in the game's variant and class when it started.
    pub white_rating: Option<i32>,
    /// Black's.
    pub black_rating: Option<i32>,
    /// 1 when the game is rated.
    pub rated: i32,
    /// `standard` or `chess2`.
    pub variant: String,
    /// `bullet`, `blitz`, `rapid` or `classical`.
    pub class: String,
    /// When the game was created (Unix ms).
    pub created_ms: i64,
}

impl GamePlayersRow {
    /// The rating the game is listed by: the average of its players' ratings when it started
    /// (a side without a rating counts 1500, the Glicko-2 start), at least 1 (0 is for games
    /// without players).
    pub fn listed_rating(&self) -> i64 {
        let side = |r: Option<i32>| i64::from(r.unwrap_or(1500));
        ((side(self.white_rating) + side(self.black_rating)) / 2).max(1)
    }
}

/// A game of a player, as the player's page lists it.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct PlayerGameRow {
    /// The game's UUID bytes.
    pub game: Vec<u8>,
    /// White's player id.
    pub white: Option<String>,
    /// Black's player id.
    pub black: Option<String>,
    /// White's name now.
    pub white_name: Option<String>,
    /// Black's name now.
    pub black_name: Option<String>,
    /// White's rating when the game started.
    pub white_rating: Option<i32>,
    /// Black's.
    pub black_rating: Option<i32>,
    /// 1 when the game is rated.
    pub rated: i32,
    /// `standard` or `chess2`.
    pub variant: String,
    /// The time-control class.
    pub class: String,
    /// When the game was created (Unix ms).
    pub created_ms: i64,
    /// The game's result (`ongoing`, `white_wins`, `black_wins`, `draw`).
    pub status: String,
}

/// The ratings a rated game's end applies, written in the same transaction as the end.
#[derive(Clone, Debug, PartialEq)]
pub struct RateOp {
    /// The game.
    pub game: Uuid,
    /// White's player id.
    pub white: String,
    /// Black's player id.
    pub black: String,
    /// `standard` or `chess2`.
    pub variant: String,
    /// The time-control class.
    pub class: String,
    /// White's score: 1, 0.5 or 0.
    pub white_score: f64,
    /// Now (Unix ms).
    pub now_ms: i64,
}

/// What a claim of a name did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claimed {
    /// The player has the name now.
    Done,
    /// Another player has this name.
    Taken,
    /// The player had a name already (or does not exist).
    AlreadyNamed,
}

/// The players' tables.
#[derive(Clone, Debug)]
pub struct PlayerDb {
    db: Db,
}

fn db_err(e: sqlx::Error) -> StoreError {
    StoreError::from_db(e, None)
}

fn unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(db) if db.is_unique_violation())
}

impl PlayerDb {
    pub(super) fn new(db: Db) -> PlayerDb {
        PlayerDb { db }
    }

    /// Inserts a player with its first token (the digest); `false` (nothing inserted) when its
    /// name is taken.
    pub async fn create(&self, player: &NewPlayer, token: &[u8]) -> Result<bool, StoreError> {
        let named = player.named.as_ref();
        with_pool!(&self.db, pool => {
            let mut tx = pool.begin().await.map_err(db_err)?;
            let inserted = sqlx::query(
                "INSERT INTO players (id, name, name_key, password, client, created_ms) \
                 VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
            )
            .bind(&player.id)
            .bind(named.map(|n| n.name.as_str()))
            .bind(named.map(|n| n.key.as_str()))
            .bind(named.map(|n| n.hash.as_str()))
            .bind(&player.client)
            .bind(player.now_ms)
            .execute(&mut *tx)
            .await
            .map_err(db_err)?
            .rows_affected();
            if inserted != 1 {
                return Ok(false);
            }
            sqlx::query("INSERT INTO player_tokens (digest, player, created_ms) VALUES ($1, $2, $3)")
                .bind(token)
                .bind(&player.id)
                .bind(player.now_ms)
                .execute(&mut *tx)
                .await
                .map_err(db_err)?;
            tx.commit().await.map_err(db_err)?;
            Ok(true)
        })
    }

    /// Adds a token (its digest) to a player, keeping only its `keep` newest tokens.
    pub async fn add_token(
        &self,
        player: &str,
        token: &[u8],
        now_ms: i64,
        keep: i64,
    ) -> Result<(), StoreError> {
        with_pool!(&self.db, pool => {
            let mut tx = pool.begin().await.map_err(db_err)?;
            sqlx::query("INSERT INTO player_tokens (digest, player, created_ms) VALUES ($1, $2, $3)")
                .bind(token)
                .bind(player)
                .bind(now_ms)
                .execute(&mut *tx)
                .await
                .map_err(db_err)?;
            sqlx::query(
                "DELETE FROM player_tokens WHERE player = $1 AND digest NOT IN \
                 (SELECT digest FROM player_tokens WHERE player = $1 \
                  ORDER BY created_ms DESC, digest LIMIT $2)",
            )
            .bind(player)
            .bind(keep.max(1))
            .execute(&mut *tx)
            .await
            .map_err(db_err)?;
            tx.commit().await.map_err(db_err)?;
            Ok(())
        })
    }

    /// The player a token's digest names.
    pub async fn by_token(&self, token: &[u8]) -> Result<Option<PlayerRow>, StoreError> {
        let sql = format!(
            "SELECT {} FROM players WHERE id = \
             (SELECT player FROM player_tokens WHERE digest = $1)",
            PLAYER_COLUMNS
        );
        with_pool!(&self.db, pool => {
            sqlx::query_as(&sql).bind(token).fetch_optional(pool).await.map_err(db_err)
        })
    }

    /// The player with this name's key (lowercase name).
    pub async fn by_name_key(&self, key: &str) -> Result<Option<PlayerRow>, StoreError> {
        let sql = format!("SELECT {PLAYER_COLUMNS} FROM players WHERE name_key = $1");
        with_pool!(&self.db, pool => {
            sqlx::query_as(&sql).bind(key).fetch_optional(pool).await.map_err(db_err)
        })
    }

    /// The player with this id.
    pub async fn by_id(&self, id: &str) -> Result<Option<PlayerRow>, StoreError> {
        let sql = format!("SELECT {PLAYER_COLUMNS} FROM players WHERE id = $1");
        with_pool!(&self.db, pool => {
            sqlx::query_as(&sql).bind(id).fetch_optional(pool).await.map_err(db_err)
        })
    }

    /// Gives an anonymous player a name.
    pub async fn claim(&self, id: &str, named: &Named) -> Result<Claimed, StoreError> {
        let done = with_pool!(&self.db, pool => {
            sqlx::query(
                "UPDATE players SET name = $2, name_key = $3, password = $4 \
                 WHERE id = $1 AND name IS NULL",
            )
            .bind(id)
            .bind(&named.name)
            .bind(&named.key)
            .bind(&named.hash)
            .execute(pool)
            .await
            .map(|r| r.rows_affected())
        });
        match done {
            Ok(1) => Ok(Claimed::Done),
            Ok(_) => Ok(Claimed::AlreadyNamed),
            Err(e) if unique_violation(&e) => Ok(Claimed::Taken),
            Err(e) => Err(db_err(e)),
        }
    }

    /// A player's ratings, by variant and class.
    pub async fn ratings(&self, player: &str) -> Result<Vec<RatingRow>, StoreError> {
        let sql = "SELECT variant, class, rating, deviation, volatility, games \
                   FROM player_ratings WHERE player = $1 ORDER BY variant, class";
        with_pool!(&self.db, pool => {
            sqlx::query_as(sql).bind(player).fetch_all(pool).await.map_err(db_err)
        })
    }

    /// A player's rating in one variant and class (`None`: never rated there).
    pub async fn rating(
        &self,
        player: &str,
        variant: &str,
        class: &str,
    ) -> Result<Option<RatingRow>, StoreError> {
        let sql = "SELECT variant, class, rating, deviation, volatility, games \
                   FROM player_ratings WHERE player = $1 AND variant = $2 AND class = $3";
        with_pool!(&self.db, pool => {
            sqlx::query_as(sql)
                .bind(player)
                .bind(variant)
                .bind(class)
                .fetch_optional(pool)
                .await
                .map_err(db_err)
        })
    }

    /// Who plays a game (`None`: created without players).
    pub async fn game_players(&self, game: &Uuid) -> Result<Option<PlayerGameRow>, StoreError> {
        let sql = format!("{GAME_SELECT} WHERE gp.game = $1");
        with_pool!(&self.db, pool => {
            sqlx::query_as(&sql)
                .bind(game.as_bytes().as_slice())
                .fetch_optional(pool)
                .await
                .map_err(db_err)
        })
    }

    /// A player's games, newest first, created before `before_ms` (if given), at most `limit`.
    pub async fn games(
        &self,
        player: &str,
        before_ms: Option<i64>,
        limit: i64,
    ) -> Result<Vec<PlayerGameRow>, StoreError> {
        let sql = format!(
            "{GAME_SELECT} WHERE (gp.white = $1 OR gp.black = $1) AND gp.created_ms < $2 \
             ORDER BY gp.created_ms DESC, gp.game LIMIT $3"
        );
        with_pool!(&self.db, pool => {
            sqlx::query_as(&sql)
                .bind(player)
                .bind(before_ms.unwrap_or(i64::MAX))
                .bind(limit)
                .fetch_all(pool)
                .await
                .map_err(db_err)
        })
    }

    /// A player's rating history, newest first, at most `limit` rows: (game, variant, class,
    /// rating after, deviation after, at).
    pub async fn history(&self, player: &str, limit: i64) -> Result<Vec<HistoryRow>, StoreError> {
        let sql = "SELECT game, variant, class, score, before, rating, deviation, at_ms \
                   FROM rating_history WHERE player = $1 ORDER BY at_ms DESC, game LIMIT $2";
        with_pool!(&self.db, pool => {
            sqlx::query_as(sql)
                .bind(player)
                .bind(limit)
                .fetch_all(pool)
                .await
                .map_err(db_err)
        })
    }
}

/// One rated game in a player's rating history.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct HistoryRow {
    /// The game's UUID bytes.
    pub game: Vec<u8>,
    /// `standard` or `chess2`.
    pub variant: String,
    /// The time-control class.
    pub class: String,
    /// The player's score: 1, 0.5 or 0.
    pub score: f64,
    /// The rating before the game.
    pub before: f64,
    /// The rating after it.
    pub rating: f64,
    /// The deviation after it.
    pub deviation: f64,
    /// When it was rated (Unix ms).
    pub at_ms: i64,
}

/// A game with its players' names and its result.
const GAME_SELECT: &str = "SELECT gp.game, gp.white, gp.black, w.name AS white_name, \
     b.name AS black_name, gp.white_rating, gp.black_rating, gp.rated, gp.variant, gp.class, \
     gp.created_ms, g.status FROM game_players gp JOIN games g ON g.id = gp.game \
     LEFT JOIN players w ON w.id = gp.white LEFT JOIN players b ON b.id = gp.black";

/// Inserts a game's players (`WriteOp::Players`) in the transaction `$tx`, and gives the
/// game's row its listed rating ([`GamePlayersRow::listed_rating`]), which the lists by rating
/// walk.
macro_rules! execute_players_write {
    ($tx:expr, $row:expr) => {
        async {
            let row: &$crate::store::players::GamePlayersRow = $row;
            sqlx::query(
                "INSERT INTO game_players (game, white, black, white_rating, black_rating, \
                 rated, variant, class, created_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            )
            .bind(row.game.as_slice())
            .bind(row.white.as_deref())
            .bind(row.black.as_deref())
            .bind(row.white_rating)
            .bind(row.black_rating)
            .bind(row.rated)
            .bind(row.variant.as_str())
            .bind(row.class.as_str())
            .bind(row.created_ms)
            .execute(&mut *$tx)
            .await
            .map_err(|e| StoreError::from_db(e, None))?;
            sqlx::query("UPDATE games SET rating = $2 WHERE id = $1")
                .bind(row.game.as_slice())
                .bind(row.listed_rating())
                .execute(&mut *$tx)
                .await
                .map(|_| 0)
                .map_err(|e| StoreError::from_db(e, None))
        }
        .await
    };
}
pub(crate) use execute_players_write;

/// Applies a rated game's ratings (`WriteOp::Rate`) in the transaction `$tx`: once per game
/// (`game_players.rated_ms`), both players' ratings in the game's variant and class read (and,
/// on PostgreSQL, locked by the `UPDATE … RETURNING`) before either changes, each updated by one
/// Glicko-2 rating period against the other's rating before the game, and a history row each.
macro_rules! execute_rate {
    ($tx:expr, $op:expr) => {
        async {
            let db_err = |e| StoreError::from_db(e, None);
            let op: &$crate::store::players::RateOp = $op;
            let game = op.game.as_bytes().as_slice();
            let first = sqlx::query(
                "UPDATE game_players SET rated_ms = $2 WHERE game = $1 AND rated = 1 \
                 AND rated_ms = 0",
            )
            .bind(game)
            .bind(op.now_ms)
            .execute(&mut *$tx)
            .await
            .map_err(db_err)?
            .rows_affected();
            if first != 1 {
                return Ok(0);
            }
            for player in [&op.white, &op.black] {
                sqlx::query(
                    "INSERT INTO player_ratings (player, variant, class, rating, deviation, \
                     volatility, games, updated_ms) VALUES ($1, $2, $3, $4, $5, $6, 0, $7) \
                     ON CONFLICT DO NOTHING",
                )
                .bind(player.as_str())
                .bind(op.variant.as_str())
                .bind(op.class.as_str())
                .bind($crate::lobby::glicko::Rating::default().rating)
                .bind($crate::lobby::glicko::Rating::default().deviation)
                .bind($crate::lobby::glicko::Rating::default().volatility)
                .bind(op.now_ms)
                .execute(&mut *$tx)
                .await
                .map_err(db_err)?;
            }
            let rows: Vec<(String, f64, f64, f64)> = sqlx::query_as(
                "UPDATE player_ratings SET updated_ms = $4 WHERE variant = $2 AND class = $3 \
                 AND player IN ($1, $5) RETURNING player, rating, deviation, volatility",
            )
            .bind(op.white.as_str())
            .bind(op.variant.as_str())
            .bind(op.class.as_str())
            .bind(op.now_ms)
            .bind(op.black.as_str())
            .fetch_all(&mut *$tx)
            .await
            .map_err(db_err)?;
            let before = |who: &str| {
                rows.iter()
                    .find(|r| r.0 == who)
                    .map(|r| $crate::lobby::glicko::Rating {
                        rating: r.1,
                        deviation: r.2,
                        volatility: r.3,
                    })
                    .ok_or_else(|| StoreError::Database(format!("no rating row for {who}")))
            };
            let (white, black) = (before(&op.white)?, before(&op.black)?);
            let rated = $crate::store::players::rate_game(white, black, op.white_score);
            for (player, was, now, score) in [
                (&op.white, white, rated.0, op.white_score),
                (&op.black, black, rated.1, 1.0 - op.white_score),
            ] {
                sqlx::query(
                    "UPDATE player_ratings SET rating = $4, deviation = $5, volatility = $6, \
                     games = games + 1, updated_ms = $7 \
                     WHERE player = $1 AND variant = $2 AND class = $3",
                )
                .bind(player.as_str())
                .bind(op.variant.as_str())
                .bind(op.class.as_str())
                .bind(now.rating)
                .bind(now.deviation)
                .bind(now.volatility)
                .bind(op.now_ms)
                .execute(&mut *$tx)
                .await
                .map_err(db_err)?;
                sqlx::query(
                    "INSERT INTO rating_history (game, player, variant, class, score, rating, \
                     deviation, before, at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                )
                .bind(game)
                .bind(player.as_str())
                .bind(op.variant.as_str())
                .bind(op.class.as_str())
                .bind(score)
                .bind(now.rating)
                .bind(now.deviation)
                .bind(was.rating)
                .bind(op.now_ms)
                .execute(&mut *$tx)
                .await
                .map_err(db_err)?;
            }
            Ok::<i64, StoreError>(0)
        }
        .await
    };
}
pub(crate) use execute_rate;

/// The Glicko-2 system constant chessd rates with (lichess's).
pub const TAU: f64 = 0.75;

/// Both players' ratings after one game between them (`white_score`: 1, 0.5 or 0), each
/// against the other's rating before it: one Glicko-2 rating period per game, as lichess does.
pub fn rate_game(
    white: crate::lobby::glicko::Rating,
    black: crate::lobby::glicko::Rating,
    white_score: f64,
) -> (crate::lobby::glicko::Rating, crate::lobby::glicko::Rating) {
    use crate::lobby::glicko::{update, Outcome};
    (
        update(
            white,
            &[Outcome {
                opponent: black,
                score: white_score,
            }],
            TAU,
        ),
        update(
            black,
            &[Outcome {
                opponent: white,
                score: 1.0 - white_score,
            }],
            TAU,
        ),
    )
}
