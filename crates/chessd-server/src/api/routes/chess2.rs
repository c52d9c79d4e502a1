//! The Go engine CGamesPlay/chess2's HTTP API, served by chessd under `/chess2`: a new game's
//! EPD for two armies, and a move applied to any EPD. Stateless, like `/v1/position`.
//!
//! The answers have that API's fields (`epd`, `legal_moves` sorted as strings, `game_over`,
//! `winner`, and after a move `available_duels`). Unlike it, every move is checked, and bad
//! input gets chessd's JSON errors.

use actix_web::web;
use chessd_core::chess2::{Army, Chess2Move, Chess2Position, Duel, PlayError};
use serde::{Deserialize, Serialize};

use crate::api::error::{ApiError, ErrorCode};

/// `GET /chess2/new` query.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct NewQuery {
    /// White's army letter (`c n e r k a`).
    #[param(value_type = crate::schemas::ArmyLetter)]
    pub white: String,
    /// Black's army letter.
    #[param(value_type = crate::schemas::ArmyLetter)]
    pub black: String,
}

/// `POST /chess2/move` body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MoveOnEpd {
    /// The position, as the Go engine writes it (a FEN, the armies, the stones).
    pub epd: String,
    /// The move in the Go engine's notation (`e2e4`, `e7e8Q`, `b5e8:12`, `0000`).
    #[serde(rename = "move")]
    pub mv: String,
}

/// A position in the Go engine's API form.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub(crate) struct Chess2Reply {
    /// The position.
    pub epd: String,
    /// Its legal moves (without duel fields), sorted as strings.
    pub legal_moves: Vec<String>,
    /// Whether the game is over.
    pub game_over: bool,
    /// `"white"` or `"black"` once the game is won, else null.
    pub winner: Option<String>,
    /// After a move: the duel fields the defender and attacker could have chosen for it (each
    /// with its leading `:`), empty when it took nothing that can be duelled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub available_duels: Option<Vec<String>>,
}

/// The army of a letter (`c n e r k a`), or `invalid_request` naming the `side` field.
pub(crate) fn army(letter: &str, side: &str) -> Result<Army, ApiError> {
    let mut chars = letter.chars();
    match (chars.next().and_then(Army::from_char), chars.next()) {
        (Some(army), None) => Ok(army),
        _ => Err(ApiError::invalid_request(format!(
            "{side} must be one army letter: c, n, e, r, k or a"
        ))),
    }
}

/// Move strings sorted as strings, as the Go API lists them.
pub(crate) fn sorted_moves(moves: &[Chess2Move]) -> Vec<String> {
    let mut list: Vec<String> = moves.iter().map(ToString::to_string).collect();
    list.sort();
    list
}

fn reply(pos: &Chess2Position, duels: Option<Vec<String>>) -> Chess2Reply {
    // No moves once the game is over (legal_moves is already empty after a midline win).
    let moves = pos.legal_moves();
    let outcome = pos.outcome_given(&moves);
    Chess2Reply {
        epd: pos.to_epd(),
        legal_moves: sorted_moves(&moves),
        game_over: outcome.is_some(),
        winner: outcome.map(|o| o.winner().to_string().to_lowercase()),
        available_duels: duels,
    }
}

/// Every combination of duel fields that `mv` (a legal move without its own fields) could
/// carry, as the suffix after the move's squares; the move's legality is not checked again
/// for each.
fn available_duels(pos: &Chess2Position, mv: Chess2Move) -> Vec<String> {
    let fields = pos.taken_by(mv).len().min(3);
    let mut choices = vec![Duel::DECLINED];
    for challenge in 0..=2 {
        for response in 0..=2 {
            choices.extend(Duel::answered(challenge, response, true));
        }
    }
    let mut out = Vec::new();
    let mut list = vec![Duel::DECLINED; fields];
    let combos = choices.len().pow(fields as u32);
    for n in 1..combos {
        let mut k = n;
        for slot in list.iter_mut() {
            *slot = choices[k % choices.len()];
            k /= choices.len();
        }
        // Trailing declined fields are not written (as the Go engine writes moves).
        let kept = list.iter().rposition(Duel::is_started).map_or(0, |i| i + 1);
        let Some(with) = mv.with_duels(&list[..kept]) else {
            continue;
        };
        if kept > 0 && pos.resolve_duels(mv, with.duels()).is_ok() {
            let text = with.to_string();
            let head = mv.to_string();
            out.push(text[head.len()..].to_string());
        }
    }
    out.sort();
    out.dedup();
    out
}

/// `GET /chess2/new?white=c&black=k`
#[utoipa::path(
    get,
    path = "/chess2/new",
    operation_id = "chess2New",
    tag = "chess2",
    summary = "A new Chess 2 position for two armies",
    description = "The Go engine CGamesPlay/chess2's `GET /new`: the start position of the two armies as an EPD (a FEN, the armies, the stones), its legal moves sorted as strings, `game_over` and `winner`. Stateless.",
    params(crate::api::routes::chess2::NewQuery),
    responses(
        (status = 200, description = "The start position.", body = crate::api::routes::chess2::Chess2Reply),
        (status = 400, response = crate::api::openapi_types::InvalidRequest)
    )
)]
pub(crate) async fn new_game(
    query: web::Query<NewQuery>,
) -> Result<web::Json<Chess2Reply>, ApiError> {
    let white = army(&query.white, "white")?;
    let black = army(&query.black, "black")?;
    Ok(web::Json(reply(&Chess2Position::start(white, black), None)))
}

/// `POST /chess2/move {epd, move}`
#[utoipa::path(
    post,
    path = "/chess2/move",
    operation_id = "chess2Move",
    tag = "chess2",
    summary = "Apply a Chess 2 move to any EPD",
    description = "The Go engine CGamesPlay/chess2's `POST /move`, with every move checked: the position after the move (its duels resolved), its legal moves, `game_over`, `winner`, and the duel fields the move could have carried (`available_duels`).",
    request_body(content = crate::api::routes::chess2::MoveOnEpd),
    responses(
        (status = 200, description = "The position after the move.", body = crate::api::routes::chess2::Chess2Reply),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 409, description = "The game in the EPD is already over (`game_over`).", body = crate::api::error::ErrorBody<'static>),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 422, description = "Well-formed but not valid (`invalid_fen` for the EPD, `illegal_move` for a move that cannot be played or a duel that is not allowed).", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn apply_move(
    body: web::Json<MoveOnEpd>,
) -> Result<web::Json<Chess2Reply>, ApiError> {
    let body = body.into_inner();
    let pos = Chess2Position::from_epd(&body.epd)
        .map_err(|e| ApiError::new(ErrorCode::InvalidFen, format!("invalid Chess 2 EPD: {e}")))?;
    let mv: Chess2Move = body
        .mv
        .parse()
        .map_err(|e| ApiError::new(ErrorCode::IllegalMove, format!("'{}': {e}", body.mv)))?;
    let next = pos.play(mv).map_err(|e| match e {
        PlayError::GameOver => ApiError::new(ErrorCode::GameOver, e.to_string()),
        _ => ApiError::new(ErrorCode::IllegalMove, format!("'{}': {e}", body.mv)),
    })?;
    let bare = match mv {
        Chess2Move::Play { .. } => mv.with_duels(&[]).unwrap_or(mv),
        Chess2Move::Pass => mv,
    };
    let duels = available_duels(&pos, bare);
    Ok(web::Json(reply(&next, Some(duels))))
}
