//! The requests that change a game: moves, duel steps, loading a PGN, a FEN or a saved state,
//! results (draw, winner, resignation), draw offers and claims, options, and stopping it. Each
//! goes through `conditions::act` (idempotency keys, If-Match) and answers the game's view.

use actix_web::{http::StatusCode, web, HttpRequest, HttpResponse};
use chessd_core::{
    game::{DrawPolicy, Status},
    Color, Square,
};
use serde::{Deserialize, Serialize};

use crate::{
    api::{
        conditions,
        error::{ApiError, ErrorCode},
        optional_json,
        routes::{
            chess2_games,
            game_view::{game_view, options_view},
            games::command,
        },
        wire::moves::parse_promotion,
    },
    game::{
        board::DuelView,
        clock::ClockView,
        command::{Action, MoveInput, OptionsPatch},
        replies::ActionReply,
        state::SavedState,
        Board,
    },
    AppState,
};

/// `POST /v1/games/{id}/moves` body: exactly one of the three forms, and optionally the
/// version the move is made on (as `If-Match`).
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MoveRequest {
    /// UCI text.
    pub uci: Option<String>,
    /// SAN text.
    pub san: Option<String>,
    /// Origin square index (a1 = 0 … h8 = 63).
    pub from: Option<i64>,
    /// Target square index.
    pub to: Option<i64>,
    /// Promotion piece: `q`, `r`, `b` or `n`.
    pub promotion: Option<String>,
    /// Refuse the move unless the game is at this version (`version_mismatch`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
}

impl MoveRequest {
    /// The move input, or why the request is malformed.
    pub(crate) fn input(&self) -> Result<MoveInput, ApiError> {
        let this = MoveRequest {
            uci: self.uci.clone(),
            san: self.san.clone(),
            from: self.from,
            to: self.to,
            promotion: self.promotion.clone(),
            version: self.version,
        };
        this.into_input()
    }

    fn into_input(self) -> Result<MoveInput, ApiError> {
        match (self.uci, self.san, self.from, self.to) {
            (Some(uci), None, None, None) if self.promotion.is_none() => Ok(MoveInput::Uci(uci)),
            (None, Some(san), None, None) if self.promotion.is_none() => Ok(MoveInput::San(san)),
            (None, None, Some(from), Some(to)) => {
                let square = |i: i64, what: &str| {
                    u32::try_from(i)
                        .ok()
                        .and_then(Square::try_new)
                        .ok_or_else(|| {
                            ApiError::invalid_request(format!(
                                "{what} must be a square index 0..63"
                            ))
                        })
                };
                let promotion = self
                    .promotion
                    .map(|p| {
                        parse_promotion(&p).ok_or_else(|| {
                            ApiError::invalid_request(format!(
                                "promotion '{p}' is not q, r, b or n"
                            ))
                        })
                    })
                    .transpose()?;
                Ok(MoveInput::Squares {
                    from: square(from, "from")?,
                    to: square(to, "to")?,
                    promotion,
                })
            }
            _ => Err(ApiError::invalid_request(
                "give exactly one of {\"uci\"}, {\"san\"} or {\"from\", \"to\", \"promotion\"?}",
            )),
        }
    }
}

/// The answer to a move.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct MoveReply {
    /// The move in UCI.
    pub uci: String,
    /// The move in SAN.
    pub san: String,
    /// The position after it.
    pub fen: String,
    /// The status after it.
    pub status: Status,
    /// Side to move now.
    pub turn: Color,
    /// The version after it.
    pub version: u64,
    /// Clocks, when timed.
    pub clocks: Option<ClockView>,
    /// Chess 2: the duel the move started, waiting to be settled (the move is played once
    /// it is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duel: Option<DuelView>,
}

/// `POST /v1/games/{id}/moves`
pub(crate) async fn make_move(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Json<MoveRequest>,
) -> Result<HttpResponse, ApiError> {
    let input = body.input()?;
    conditions::act(
        &state,
        &req,
        &id,
        Action::Move(input),
        &*body,
        body.version,
        move_reply,
    )
    .await
}

/// The answer to a move, from the game's reply.
pub(crate) fn move_reply(reply: &ActionReply) -> Result<MoveReply, ApiError> {
    let snap = &reply.snapshot;
    let (uci, san, duel) = match (&snap.game, &reply.played) {
        (Board::Chess(_), Some(played)) => (played.uci.clone(), played.san.clone(), None),
        (Board::Chess2(game), _) => {
            let (text, duel) = chess2_games::move_answer(game);
            (text.clone(), text, duel)
        }
        (Board::Chess(_), None) => return Err(ApiError::internal("a move without a played move")),
    };
    Ok(MoveReply {
        uci,
        san,
        fen: snap.game.fen(),
        status: snap.game.status().clone(),
        turn: snap.game.to_act(),
        version: snap.version,
        clocks: snap.clocks,
        duel,
    })
}

/// `POST /v1/games/{id}/duel`: the defender challenges or declines the capture at stake, or
/// a side bids (hidden from the other side until both bids are in).
pub(crate) async fn duel_step(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Json<chess2_games::DuelBody>,
) -> Result<HttpResponse, ApiError> {
    let step = body.clone().step()?;
    conditions::act(
        &state,
        &req,
        &id,
        Action::Duel(step),
        &*body,
        None,
        game_view,
    )
    .await
}

/// `{"pgn": "..."}`
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PgnBody {
    /// PGN text (the first game is used).
    pub pgn: String,
}

/// `PUT /v1/games/{id}/pgn` (admin): re-initialise from a PGN.
pub(crate) async fn load_pgn(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Json<PgnBody>,
) -> Result<HttpResponse, ApiError> {
    conditions::act(
        &state,
        &req,
        &id,
        Action::LoadPgn(body.pgn.clone()),
        &*body,
        None,
        game_view,
    )
    .await
}

/// `{"fen": "..."}`
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FenBody {
    /// FEN (strict).
    pub fen: String,
}

/// `PUT /v1/games/{id}/position` (admin): re-initialise from a FEN.
pub(crate) async fn load_fen(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Json<FenBody>,
) -> Result<HttpResponse, ApiError> {
    conditions::act(
        &state,
        &req,
        &id,
        Action::LoadFen(body.fen.clone()),
        &*body,
        None,
        game_view,
    )
    .await
}

/// `PUT /v1/games/{id}/state` (admin): restore a saved state; a bad state is a 422.
pub(crate) async fn restore_state(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let saved: SavedState = serde_json::from_slice(&body)
        .map_err(|e| ApiError::new(ErrorCode::InvalidState, format!("not a saved state: {e}")))?;
    conditions::act(
        &state,
        &req,
        &id,
        Action::Restore(Box::new(saved.clone())),
        &saved,
        None,
        game_view,
    )
    .await
}

/// `{"note": "..."}`
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoteBody {
    /// Why.
    pub note: Option<String>,
}

/// `POST /v1/games/{id}/draw` (admin)
pub(crate) async fn set_draw(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let note = optional_json::<NoteBody>(&body)?.note;
    conditions::act(
        &state,
        &req,
        &id,
        Action::SetDraw(note.clone()),
        &NoteBody { note },
        None,
        game_view,
    )
    .await
}

/// `{"winner": "white", "note": "..."}`
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WinnerBody {
    /// The winner.
    pub winner: Color,
    /// Why.
    pub note: Option<String>,
}

/// `POST /v1/games/{id}/winner` (admin)
pub(crate) async fn set_winner(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Json<WinnerBody>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    conditions::act(
        &state,
        &req,
        &id,
        Action::SetWinner(body.winner, body.note.clone()),
        &body,
        None,
        game_view,
    )
    .await
}

/// `{"side": "white"}` (only the admin needs to name the side)
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SideBody {
    /// The side resigning.
    pub side: Option<Color>,
}

/// `POST /v1/games/{id}/resign`
pub(crate) async fn resign(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let side = optional_json::<SideBody>(&body)?.side;
    conditions::act(
        &state,
        &req,
        &id,
        Action::Resign(side),
        &SideBody { side },
        None,
        game_view,
    )
    .await
}

/// `POST /v1/games/{id}/draw-offer` (a seat)
pub(crate) async fn offer_draw(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    conditions::act(&state, &req, &id, Action::OfferDraw, &(), None, game_view).await
}

/// `POST /v1/games/{id}/draw-offer/accept` (the other seat)
pub(crate) async fn accept_draw(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    conditions::act(&state, &req, &id, Action::AcceptDraw, &(), None, game_view).await
}

/// `POST /v1/games/{id}/draw-offer/decline` (the other seat)
pub(crate) async fn decline_draw(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    conditions::act(&state, &req, &id, Action::DeclineDraw, &(), None, game_view).await
}

/// `POST /v1/games/{id}/draw-claim` (a seat or the admin)
pub(crate) async fn claim_draw(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    conditions::act(&state, &req, &id, Action::ClaimDraw, &(), None, game_view).await
}

/// `PATCH /v1/games/{id}/options` body.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OptionsBody {
    /// New idle timeout (0 = never).
    pub idle_timeout_secs: Option<u64>,
    /// New draw policy.
    pub draw_policy: Option<DrawPolicy>,
}

/// `PATCH /v1/games/{id}/options` (admin)
pub(crate) async fn set_options(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Json<OptionsBody>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let patch = OptionsPatch {
        idle_timeout_secs: body.idle_timeout_secs,
        draw_policy: body.draw_policy,
    };
    conditions::act(
        &state,
        &req,
        &id,
        Action::SetOptions(patch),
        &body,
        None,
        |reply| Ok(options_view(&reply.snapshot)),
    )
    .await
}

/// `DELETE /v1/games/{id}` (admin): stop the game; its terminate hooks run.
pub(crate) async fn stop(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    command(&state, &req, &id, Action::Stop).await?;
    Ok(HttpResponse::build(StatusCode::NO_CONTENT).finish())
}
