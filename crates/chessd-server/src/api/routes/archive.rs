//! `GET /v1/games`: the stored games, newest first or highest rated first, a page at a time.

use actix_web::web;
use serde::{Deserialize, Serialize};

use crate::{
    api::error::{ApiError, ErrorCode},
    store::{GameOrder, ResultFilter},
    AppState,
};

/// The query of `GET /v1/games`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListQuery {
    /// `all` (default), `ongoing`, `finished`, `white_wins`, `black_wins` or `draw`.
    #[param(value_type = Option<crate::schemas::GamesFilter>, nullable = false, default = "all")]
    pub status: Option<String>,
    /// `newest` (default): newest first; `rating`: highest rated first (the average of the
    /// players' ratings when the game started, a side without a rating counting 1500; games
    /// created without players come last), newest first among equals.
    #[param(value_type = Option<crate::schemas::GamesOrder>, nullable = false, default = "newest")]
    pub order: Option<String>,
    /// Games per page, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100, nullable = false, default = 20)]
    pub limit: Option<u32>,
    /// The previous page's `next_cursor` (of a list in the same order).
    #[param(pattern = "^[1-9][0-9]{0,18}$", nullable = false)]
    pub cursor: Option<String>,
}

/// A game in the list.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct GameListItem {
    /// Its id.
    pub id: String,
    /// `ongoing`, `white_wins`, `black_wins` or `draw`.
    pub result: String,
    /// Whether it can still be played (it was not stopped).
    pub live: bool,
    /// When it was created (Unix ms).
    pub created_ms: i64,
    /// When it last changed (Unix ms).
    pub updated_ms: i64,
    /// The average of its players' ratings when it started (a side without a rating counts
    /// 1500); `null` for a game created without players.
    pub rating: Option<i64>,
}

/// A page of games.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct GameList {
    /// The games, in the order asked.
    pub games: Vec<GameListItem>,
    /// The cursor of the next page, `null` on the last.
    pub next_cursor: Option<String>,
}

fn invalid(message: &str) -> ApiError {
    ApiError::new(ErrorCode::InvalidRequest, message)
}

/// The games a `status` parameter selects (`all` when absent).
pub(crate) fn filter(status: Option<&str>) -> Result<ResultFilter, ApiError> {
    Ok(match status.unwrap_or("all") {
        "all" => ResultFilter::All,
        "ongoing" => ResultFilter::Ongoing,
        "finished" => ResultFilter::Finished,
        "white_wins" => ResultFilter::Result("white_wins"),
        "black_wins" => ResultFilter::Result("black_wins"),
        "draw" => ResultFilter::Result("draw"),
        _ => {
            return Err(invalid(
                "status must be all, ongoing, finished, white_wins, black_wins or draw",
            ))
        }
    })
}

/// `GET /v1/games`
#[utoipa::path(
    get,
    path = "/v1/games",
    operation_id = "listGames",
    tag = "games",
    summary = "List stored games",
    description = "The games the store keeps, newest first (or, with `order=rating`, highest rated first: the average of the players' ratings when the game started, games without players last), a page at a time (keyset pagination: pass the page's `next_cursor` as `cursor` for the next, in the same order). Game ids are public (anyone may watch a game); secrets are never listed. With `store.url = \"memory\"` the list is empty.",
    params(crate::api::routes::archive::ListQuery),
    responses(
        (status = 200, description = "A page of games.", body = crate::api::routes::archive::GameList),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 503, description = "The store could not be read (`store_unavailable`).", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn list(
    state: web::Data<AppState>,
    query: web::Query<ListQuery>,
) -> Result<web::Json<GameList>, ApiError> {
    let filter = filter(query.status.as_deref())?;
    let order = match query.order.as_deref() {
        None | Some("newest") => GameOrder::Newest,
        Some("rating") => GameOrder::Rating,
        Some(_) => return Err(invalid("order must be newest or rating")),
    };
    let limit = query.limit.unwrap_or(20);
    if !(1..=100).contains(&limit) {
        return Err(invalid("limit must be 1 to 100"));
    }
    let before = match query.cursor.as_deref() {
        None => None,
        // Any positive number is a valid place in the list (one past the newest game lists
        // from the newest).
        Some(c) => Some(
            c.parse::<u64>()
                .ok()
                .filter(|n| *n > 0)
                .map(|n| i64::try_from(n).unwrap_or(i64::MAX))
                .ok_or_else(|| invalid("cursor must be a next_cursor from an earlier page"))?,
        ),
    };
    let rows = state
        .games
        .list(filter, order, before, i64::from(limit))
        .await?;
    let next_cursor = (rows.len() == limit as usize)
        .then(|| rows.last().map(|r| r.key(order).to_string()))
        .flatten();
    Ok(web::Json(GameList {
        games: rows
            .into_iter()
            .map(|r| GameListItem {
                id: r.id.to_string(),
                result: r.result,
                live: r.live,
                created_ms: r.created_ms,
                updated_ms: r.updated_ms,
                rating: (r.rating > 0).then_some(r.rating),
            })
            .collect(),
        next_cursor,
    }))
}
