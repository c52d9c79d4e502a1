//! `/v1/games`: create games and everything Binbo offers a game, as resources.

use actix_web::{http::header, web, HttpRequest, HttpResponse};
use chessd_core::{
    display::BoardStyle,
    game::{DrawPolicy, Game},
    pgn, Color, FenMode, Position, Square,
};
use chessd_protocol::uci::GoLimits;
use serde::Deserialize;

use crate::{
    api::{
        bearer,
        client::client_key,
        error::{ApiError, ErrorCode},
        optional_json,
        routes::{
            chess2_games::{self, ArmiesBody},
            game_view::{options_view, Created, GameView, OptionsView, SecretsView},
        },
        wire::moves::history,
    },
    game::{
        actor::GameOptions,
        archive::GameRecord,
        clock::TimeControl,
        command::{Action, OpponentSpec},
        engine_state::Opponent,
        replies::{ActionReply, GameSnapshot},
        state::SavedState,
        Board, GameHandle, NewGame,
    },
    AppState,
};

/// The `opponent` of `POST /v1/games`.
#[derive(Clone, Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Opponent)]
pub(crate) struct OpponentBody {
    /// The configured engine's name.
    pub engine: String,
    /// The side it plays.
    #[schema(value_type = crate::schemas::Side)]
    pub plays: Color,
    /// Its search limits (default: the clocks when timed, else `movetime 500`).
    #[schema(value_type = Option<crate::api::openapi_types::FiniteGoLimits>)]
    pub go: Option<GoLimits>,
}

/// The media type of PGN answers.
pub(crate) const PGN_CONTENT_TYPE: &str = "application/x-chess-pgn; charset=utf-8";

/// `POST /v1/games` body.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CreateGame {
    /// `standard` (default; a Chess960 FEN makes a Chess960 game) or `chess2`.
    #[schema(value_type = Option<crate::schemas::VariantName>)]
    pub variant: Option<String>,
    /// A Chess 2 game's armies (default Classic for both).
    pub armies: Option<ArmiesBody>,
    /// Start from this FEN (strict; for Chess 2 an EPD).
    pub fen: Option<String>,
    /// Start from this PGN (its moves are played).
    pub pgn: Option<String>,
    /// Idle timeout in seconds (0 = never; default from config).
    #[schema(maximum = 18446744073709551615_usize)]
    pub idle_timeout_secs: Option<u64>,
    /// URL POSTed to when the game stops (host must be allowed in config).
    #[schema(value_type = Option<crate::api::openapi_types::UriText>)]
    pub webhook_url: Option<String>,
    /// Clocks.
    pub time_control: Option<TimeControl>,
    /// Draw rules (default automatic).
    #[schema(value_type = Option<crate::schemas::DrawPolicyName>)]
    pub draw_policy: Option<DrawPolicy>,
    /// An engine that plays one side by itself (see `/v1/engines`).
    pub opponent: Option<OpponentBody>,
    /// Engines that play by themselves, one for each side (an engine match, played as a
    /// normal game); instead of `opponent`.
    #[schema(max_items = 2)]
    pub opponents: Option<Vec<OpponentBody>>,
}

/// The game with this id (text from the URL).
pub(crate) async fn find(state: &AppState, raw: &str) -> Result<GameHandle, ApiError> {
    Ok(state.games.get(raw).await?)
}

async fn snapshot(state: &AppState, raw: &str) -> Result<GameSnapshot, ApiError> {
    Ok(find(state, raw).await?.snapshot().await?)
}

/// Carries out `action` on the game `raw` as the holder of the request's bearer secret.
pub(crate) async fn command(
    state: &AppState,
    req: &HttpRequest,
    raw: &str,
    action: Action,
) -> Result<ActionReply, ApiError> {
    Ok(find(state, raw).await?.act(bearer(req), action).await?)
}

/// Builds the starting game of a creation request.
fn starting_game(body: &CreateGame) -> Result<Board, ApiError> {
    let policy = body.draw_policy.unwrap_or_default();
    match body.variant.as_deref() {
        None | Some("standard") => {}
        Some("chess2") => {
            if body.pgn.is_some() {
                return Err(ApiError::invalid_request(
                    "a Chess 2 game starts from its armies or an EPD (fen), not a PGN",
                ));
            }
            return chess2_games::starting_game(body.fen.as_deref(), body.armies.as_ref(), policy);
        }
        Some(other) => {
            return Err(ApiError::invalid_request(format!(
                "variant '{other}' is not standard or chess2 (a Chess960 game is a standard \
                 game from a Chess960 FEN)"
            )))
        }
    }
    if body.armies.is_some() {
        return Err(ApiError::invalid_request(
            "armies go with \"variant\": \"chess2\" only",
        ));
    }
    let game = match (&body.fen, &body.pgn) {
        (Some(_), Some(_)) => Err(ApiError::invalid_request(
            "give either fen or pgn, not both",
        )),
        (Some(fen), None) => Ok(Game::with_policy(
            Position::from_fen(fen, FenMode::Strict)?,
            policy,
        )),
        (None, Some(text)) => read_pgn(text, policy),
        (None, None) => Ok(Game::with_policy(Position::startpos(), policy)),
    }?;
    Ok(game.into())
}

fn read_pgn(text: &str, policy: DrawPolicy) -> Result<Game, ApiError> {
    let parsed = pgn::PgnReader::new(text)
        .with_policy(policy)
        .next()
        .ok_or_else(|| ApiError::new(ErrorCode::InvalidPgn, "the PGN holds no game"))?
        .map_err(|e| ApiError::new(ErrorCode::InvalidPgn, e.to_string()))?;
    Ok(parsed.game)
}

/// `POST /v1/games`
#[utoipa::path(
    post,
    path = "/v1/games",
    operation_id = "createGame",
    tag = "games",
    summary = "Create a game",
    description = "From the start position, a FEN or a PGN, with options. The body may be omitted.",
    request_body(content = Option<crate::api::routes::games::CreateGame>),
    responses(
        (status = 201, description = "The game, with its seat and admin secrets (shown only here).", body = crate::api::routes::game_view::Created),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 422, description = "Well-formed but not valid (`invalid_fen`, `invalid_pgn`, `webhook_not_allowed`, `engine_not_found`: an `opponent` or an entry of `opponents` names no configured engine); `engine_unsupported` (an opponent engine cannot play this game, e.g. Chess960 without `UCI_Chess960`); `invalid_opponents` (two `opponents` for the same side). No game is created.", body = crate::api::error::ErrorBody<'static>),
        (status = 503, description = "No game can be created now (`too_many_games`, `shutting_down`), or an `opponent` (or `opponents`) engine cannot be started because the server runs as many engines as it allows (`too_many_engines`).", body = crate::api::error::ErrorBody<'static>),
        (status = 502, description = "An `opponent` (or `opponents`) engine could not be started (`engine_unreachable`, `engine_handshake_failed`); no game is created.", body = crate::api::error::ErrorBody<'static>),
        (status = 401, description = "`api_key_required`: the server requires an API key (`auth.require_api_key`) and the request has no `X-API-Key` header, or the header names no configured key.", body = crate::api::error::ErrorBody<'static>),
        (status = 429, description = "`rate_limited` (too many requests from this client; try again after `Retry-After` seconds) or `quota_exceeded` (this client's quota is used up).", body = crate::api::error::ErrorBody<'static>, headers(("Retry-After" = i64, description = "Seconds to wait before trying again.")))
    )
)]
pub(crate) async fn create(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let client = client_key(&req, &state.config.auth, true)?;
    let body: CreateGame = optional_json(&body)?;
    let new = new_game(&state, body)?;
    let (handle, secrets) = state.games.create(&client, new).await?;
    let snap = handle.snapshot().await?;
    Ok(HttpResponse::Created().json(Created {
        game: GameView::from(&snap),
        secrets: SecretsView {
            white: secrets.white,
            black: secrets.black,
            admin: secrets.admin,
        },
    }))
}

/// The game a creation request asks for, checked (what `POST /v1/games` and an accepted seek
/// hand the game service).
pub(crate) fn new_game(state: &AppState, body: CreateGame) -> Result<NewGame, ApiError> {
    let game = starting_game(&body)?;
    if let Some(tc) = body.time_control {
        tc.check().map_err(ApiError::invalid_request)?;
    }
    let webhook = body
        .webhook_url
        .as_deref()
        .map(|u| state.games.hooks().check_webhook(u))
        .transpose()?;
    let idle_timeout = match body.idle_timeout_secs {
        Some(0) => None,
        Some(secs) => Some(std::time::Duration::from_secs(secs)),
        None => state.config.games.idle_timeout(),
    };
    let abandon_after = state.config.games.abandon_after_secs;
    let options = GameOptions {
        idle_timeout,
        abandon_after: (abandon_after > 0).then(|| std::time::Duration::from_secs(abandon_after)),
        webhook: webhook.map(Box::new),
        time_control: body.time_control,
        draw_policy: game.policy(),
        chess2_bots: Vec::new(),
    };
    let opponents =
        match (body.opponent, body.opponents) {
            (Some(_), Some(_)) => return Err(ApiError::invalid_request(
                "give either opponent (one engine) or opponents (an engine for each side), not \
                 both",
            )),
            (Some(one), None) => vec![one],
            (None, Some(list)) => list,
            (None, None) => Vec::new(),
        };
    let opponents = opponents
        .into_iter()
        .map(|o| OpponentSpec {
            engine: o.engine,
            opponent: Opponent {
                plays: o.plays,
                go: o.go,
            },
        })
        .collect();
    Ok(NewGame {
        game,
        options,
        opponents,
        players: None,
    })
}

/// `GET /v1/games/{id}`
#[utoipa::path(
    get,
    path = "/v1/games/{id}",
    operation_id = "getGame",
    tag = "games",
    summary = "The whole state of a game",
    params(crate::api::openapi_types::GameId),
    responses(
        (status = 200, description = "The game.", body = crate::api::routes::game_view::GameView, headers(("ETag" = String, description = "The game's version, quoted (`\"12\"`): `If-Match` takes it back."))),
        (status = 404, response = crate::api::openapi_types::GameNotFound)
    )
)]
pub(crate) async fn state_view(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let snap = snapshot(&state, &id).await?;
    // The version is the game's entity tag: `If-Match` takes it back.
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, format!("\"{}\"", snap.version)))
        .json(GameView::from(&snap)))
}

/// `GET /v1/games/{id}/fen`
#[utoipa::path(
    get,
    path = "/v1/games/{id}/fen",
    operation_id = "getFen",
    tag = "games",
    summary = "The current FEN",
    params(crate::api::openapi_types::GameId),
    responses(
        (status = 200, description = "The FEN.", body = crate::api::openapi_types::FenReply),
        (status = 404, response = crate::api::openapi_types::GameNotFound)
    )
)]
pub(crate) async fn fen(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let snap = snapshot(&state, &id).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "fen": snap.game.fen() })))
}

/// `GET /v1/games/{id}/status`
#[utoipa::path(
    get,
    path = "/v1/games/{id}/status",
    operation_id = "getStatus",
    tag = "games",
    summary = "Status, winner and claimable draw",
    params(crate::api::openapi_types::GameId),
    responses(
        (status = 200, description = "The status.", body = crate::api::openapi_types::StatusReply),
        (status = 404, response = crate::api::openapi_types::GameNotFound)
    )
)]
pub(crate) async fn status(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let snap = snapshot(&state, &id).await?;
    let status = snap.game.status();
    Ok(HttpResponse::Ok().json(serde_json::json!({
        "status": status,
        "winner": status.result.winner(),
        "claimable_draw": snap.game.claimable_draw(),
        "version": snap.version,
    })))
}

/// `GET /v1/games/{id}/turn`
#[utoipa::path(
    get,
    path = "/v1/games/{id}/turn",
    operation_id = "getTurn",
    tag = "games",
    summary = "Side to move",
    params(crate::api::openapi_types::GameId),
    responses(
        (status = 200, description = "The side to move.", body = crate::api::openapi_types::TurnReply),
        (status = 404, response = crate::api::openapi_types::GameNotFound)
    )
)]
pub(crate) async fn turn(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let snap = snapshot(&state, &id).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "turn": snap.game.to_act() })))
}

/// `?format=` of the legal-moves route.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub(crate) struct LegalMovesQuery {
    /// `uci` (default), `index` or `count`.
    #[serde(default)]
    #[param(value_type = Option<crate::schemas::MovesFormat>, nullable = false, default = "uci")]
    pub format: Option<String>,
    /// Accepted and ignored (the WebSocket-style secret parameter).
    #[serde(default)]
    #[param(nullable = false)]
    #[allow(
        dead_code,
        reason = "accepted for deny_unknown_fields; bearer() reads the secret"
    )]
    pub token: Option<String>,
}

/// The legal moves of a position in one of the formats (shared with the stateless routes).
pub(crate) fn legal_moves_json(
    pos: &Position,
    format: Option<&str>,
) -> Result<serde_json::Value, ApiError> {
    let moves = pos.legal_moves();
    Ok(match format.unwrap_or("uci") {
        "uci" => {
            serde_json::json!({ "moves": moves.iter().map(|&m| pos.uci(m)).collect::<Vec<_>>(), "count": moves.len() })
        }
        "index" => serde_json::json!({
            "moves": moves.iter().map(|&m| {
                let to = if m.is_castle() && !pos.is_chess960() { m.king_destination() } else { m.to() };
                match m.promotion_role() {
                    Some(r) => serde_json::json!([m.from().index(), to.index(), r.char().to_string()]),
                    None => serde_json::json!([m.from().index(), to.index()]),
                }
            }).collect::<Vec<_>>(),
            "count": moves.len(),
        }),
        "count" => serde_json::json!({ "count": moves.len() }),
        other => {
            return Err(ApiError::invalid_request(format!(
                "format '{other}' is not one of uci, index, count"
            )))
        }
    })
}

/// `GET /v1/games/{id}/legal-moves?format=uci|index|count`
#[utoipa::path(
    get,
    path = "/v1/games/{id}/legal-moves",
    operation_id = "getLegalMoves",
    tag = "games",
    summary = "Legal moves",
    params(crate::api::openapi_types::GameId, crate::api::routes::games::LegalMovesQuery),
    responses(
        (status = 200, description = "The legal moves (none once the game is over).", body = crate::api::openapi_types::LegalMoves),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "`wrong_variant`: `format=index` on a Chess 2 game (its moves are strings: `uci` or `count`).", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn legal_moves(
    state: web::Data<AppState>,
    id: web::Path<String>,
    query: web::Query<LegalMovesQuery>,
) -> Result<HttpResponse, ApiError> {
    let snap = snapshot(&state, &id).await?;
    let game = match &snap.game {
        Board::Chess(game) => game,
        Board::Chess2(game) => {
            return chess2_games::legal_moves(game, query.format.as_deref())
                .map(|json| HttpResponse::Ok().json(json))
        }
    };
    // A finished game has no legal moves, whatever its last position allows.
    let json = match (game.is_over(), query.format.as_deref()) {
        (true, Some("count")) => serde_json::json!({ "count": 0 }),
        (true, format) => legal_moves_json(game.position(), format)
            .map(|_| serde_json::json!({ "moves": [], "count": 0 }))?,
        (false, format) => legal_moves_json(game.position(), format)?,
    };
    Ok(HttpResponse::Ok().json(json))
}

/// `?squares=` of the pieces route.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub(crate) struct PiecesQuery {
    /// Accepted and ignored (the WebSocket-style secret parameter).
    #[serde(default)]
    #[param(nullable = false)]
    #[allow(
        dead_code,
        reason = "accepted for deny_unknown_fields; bearer() reads the secret"
    )]
    pub token: Option<String>,
    /// `name` (default: `"e4"`) or `index` (`28`).
    #[serde(default)]
    #[param(value_type = Option<crate::schemas::SquaresFormat>, nullable = false, default = "name")]
    pub squares: Option<String>,
}

/// `GET /v1/games/{id}/pieces?squares=name|index`
#[utoipa::path(
    get,
    path = "/v1/games/{id}/pieces",
    operation_id = "getPieces",
    tag = "games",
    summary = "Pieces list",
    params(crate::api::openapi_types::GameId, crate::api::routes::games::PiecesQuery),
    responses(
        (status = 200, description = "Every piece with its square.", body = crate::api::openapi_types::PiecesReply),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 404, response = crate::api::openapi_types::GameNotFound)
    )
)]
pub(crate) async fn pieces(
    state: web::Data<AppState>,
    id: web::Path<String>,
    query: web::Query<PiecesQuery>,
) -> Result<HttpResponse, ApiError> {
    let snap = snapshot(&state, &id).await?;
    let by_index = match query.squares.as_deref().unwrap_or("name") {
        "name" => false,
        "index" => true,
        other => {
            return Err(ApiError::invalid_request(format!(
                "squares '{other}' is not name or index"
            )))
        }
    };
    let pieces = match &snap.game {
        Board::Chess(game) => game.position().pieces_list(),
        Board::Chess2(game) => chess2_games::pieces_list(game.position()),
    };
    let list: Vec<serde_json::Value> = pieces
        .into_iter()
        .map(|(piece, sq): (chessd_core::Piece, Square)| {
            let square = if by_index {
                serde_json::json!(sq.index())
            } else {
                serde_json::json!(sq.to_string())
            };
            serde_json::json!({ "square": square, "color": piece.color.name(), "piece": piece.role.name() })
        })
        .collect();
    Ok(HttpResponse::Ok().json(serde_json::json!({ "pieces": list })))
}

/// `?style=&flipped=` of the board route.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub(crate) struct BoardQuery {
    /// Accepted and ignored (the WebSocket-style secret parameter).
    #[serde(default)]
    #[param(nullable = false)]
    #[allow(
        dead_code,
        reason = "accepted for deny_unknown_fields; bearer() reads the secret"
    )]
    pub token: Option<String>,
    /// `ascii` (default) or `unicode`.
    #[serde(default)]
    #[param(value_type = Option<crate::schemas::BoardStyleName>, nullable = false, default = "ascii")]
    pub style: Option<String>,
    /// Black at the bottom.
    #[serde(default)]
    pub flipped: bool,
}

/// `GET /v1/games/{id}/board?style=ascii|unicode&flipped=true` (text/plain)
#[utoipa::path(
    get,
    path = "/v1/games/{id}/board",
    operation_id = "getBoard",
    tag = "games",
    summary = "Board as text",
    params(crate::api::openapi_types::GameId, crate::api::routes::games::BoardQuery),
    responses(
        (status = 200, description = "The board diagram, then side to move, last move, half-move clock, full-move number, FEN and status, one per line.", body = String, content_type = "text/plain"),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "`wrong_variant`: a Chess 2 game (UCI engines, PGN and diagrams are standard chess's).", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn board(
    state: web::Data<AppState>,
    id: web::Path<String>,
    query: web::Query<BoardQuery>,
) -> Result<HttpResponse, ApiError> {
    let snap = snapshot(&state, &id).await?;
    let unicode = match query.style.as_deref().unwrap_or("ascii") {
        "ascii" => false,
        "unicode" => true,
        other => {
            return Err(ApiError::invalid_request(format!(
                "style '{other}' is not ascii or unicode"
            )))
        }
    };
    let style = BoardStyle {
        unicode,
        flipped: query.flipped,
    };
    let text = chessd_core::display::game_diagram(snap.game.chess()?, style);
    Ok(HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .body(text))
}

/// `GET /v1/games/{id}/moves`: the moves played.
#[utoipa::path(
    get,
    path = "/v1/games/{id}/moves",
    operation_id = "getMoves",
    tag = "games",
    summary = "Moves played",
    params(crate::api::openapi_types::GameId),
    responses(
        (status = 200, description = "The moves played, in UCI and SAN.", body = crate::api::openapi_types::MovesReply),
        (status = 404, response = crate::api::openapi_types::GameNotFound)
    )
)]
pub(crate) async fn moves_played(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let snap = snapshot(&state, &id).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "moves": history(&snap.game) })))
}

/// `GET /v1/games/{id}/pgn` (application/x-chess-pgn), with the tags the export writes too
/// ([`GameRecord::pgn_tags`]).
#[utoipa::path(
    get,
    path = "/v1/games/{id}/pgn",
    operation_id = "exportPgn",
    tag = "games",
    summary = "Export PGN",
    description = "The game with the tags the export writes too (see `exportGames`): the Seven Tag Roster (Date of creation in UTC; White/Black an engine seat by its configured name, else `?`), Variant and SetUp/FEN for a non-standard start, UTCTime, TimeControl and Termination.",
    params(crate::api::openapi_types::GameId),
    responses(
        (status = 200, description = "The game as PGN.", body = String, content_type = "application/x-chess-pgn"),
        (status = 404, response = crate::api::openapi_types::GameNotFound)
    )
)]
pub(crate) async fn export_pgn(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let snap = snapshot(&state, &id).await?;
    Ok(HttpResponse::Ok()
        .content_type(PGN_CONTENT_TYPE)
        .body(GameRecord::from_snapshot(&snap).to_pgn()))
}

/// `GET /v1/games/{id}/state`: the raw state (as Binbo's `get_game_state`).
#[utoipa::path(
    get,
    path = "/v1/games/{id}/state",
    operation_id = "saveState",
    tag = "games",
    summary = "Save the raw state",
    params(crate::api::openapi_types::GameId),
    responses(
        (status = 200, description = "The raw state.", body = crate::game::state::SavedState),
        (status = 404, response = crate::api::openapi_types::GameNotFound)
    )
)]
pub(crate) async fn save_state(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<web::Json<SavedState>, ApiError> {
    Ok(web::Json(find(&state, &id).await?.saved_state().await?))
}

/// `GET /v1/games/{id}/options`
#[utoipa::path(
    get,
    path = "/v1/games/{id}/options",
    operation_id = "getOptions",
    tag = "games",
    summary = "A game's options",
    params(crate::api::openapi_types::GameId),
    responses(
        (status = 200, description = "The options.", body = crate::api::routes::game_view::OptionsView),
        (status = 404, response = crate::api::openapi_types::GameNotFound)
    )
)]
pub(crate) async fn options(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<web::Json<OptionsView>, ApiError> {
    let snap = snapshot(&state, &id).await?;
    Ok(web::Json(options_view(&snap)))
}
