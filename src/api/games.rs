//! `/v1/games`: create games and everything Binbo offers a game, as resources.

use actix_web::{
    http::{header, StatusCode},
    web, HttpRequest, HttpResponse,
};
use chessd_core::{
    display::BoardStyle,
    game::{DrawPolicy, Game, Reason, Status},
    pgn, Color, FenMode, Position, Square,
};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::{
    api::{
        bearer,
        chess2_games::{self, ArmiesBody, Chess2View},
        client::client_key,
        conditions,
        error::{ApiError, ErrorCode},
        optional_json,
        wire::{history, parse_promotion, MoveView},
    },
    game::{
        actor::GameOptions,
        archive::GameRecord,
        board::DuelView,
        clock::{ClockView, TimeControl},
        command::{Action, MoveInput, OpponentSpec, OptionsPatch},
        engine_state::Opponent,
        replies::{ActionReply, GameSnapshot},
        state::SavedState,
        Board, GameHandle, NewGame,
    },
    uci::protocol::GoLimits,
    AppState,
};

/// The `opponent` of `POST /v1/games`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpponentBody {
    /// The configured engine's name.
    pub engine: String,
    /// The side it plays.
    pub plays: Color,
    /// Its search limits (default: the clocks when timed, else `movetime 500`).
    pub go: Option<GoLimits>,
}

/// The media type of PGN answers.
pub const PGN_CONTENT_TYPE: &str = "application/x-chess-pgn; charset=utf-8";

/// `POST /v1/games` body.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateGame {
    /// `standard` (default; a Chess960 FEN makes a Chess960 game) or `chess2`.
    pub variant: Option<String>,
    /// A Chess 2 game's armies (default Classic for both).
    pub armies: Option<ArmiesBody>,
    /// Start from this FEN (strict; for Chess 2 an EPD).
    pub fen: Option<String>,
    /// Start from this PGN (its moves are played).
    pub pgn: Option<String>,
    /// Idle timeout in seconds (0 = never; default from config).
    pub idle_timeout_secs: Option<u64>,
    /// URL POSTed to when the game stops (host must be allowed in config).
    pub webhook_url: Option<String>,
    /// Clocks.
    pub time_control: Option<TimeControl>,
    /// Draw rules (default automatic).
    pub draw_policy: Option<DrawPolicy>,
    /// An engine that plays one side by itself (see `/v1/engines`).
    pub opponent: Option<OpponentBody>,
    /// Engines that play by themselves, one for each side (an engine match, played as a
    /// normal game); instead of `opponent`.
    pub opponents: Option<Vec<OpponentBody>>,
}

/// Seat and admin secrets.
#[derive(Debug, Serialize, Deserialize)]
pub struct SecretsView {
    /// White's seat.
    pub white: String,
    /// Black's seat.
    pub black: String,
    /// The admin.
    pub admin: String,
}

/// The whole public state of a game.
#[derive(Debug, Serialize, Deserialize)]
pub struct GameView {
    /// The game id.
    pub id: Uuid,
    /// Event version: bumps with every change.
    pub version: u64,
    /// `standard`, `chess960` or `chess2`.
    pub variant: String,
    /// The current position (an EPD for Chess 2).
    pub fen: String,
    /// The starting position.
    pub start_fen: String,
    /// Side to move.
    pub turn: Color,
    /// Whether the side to move is in check.
    pub check: bool,
    /// Status.
    pub status: Status,
    /// The moves played.
    pub moves: Vec<MoveView>,
    /// Clocks, when timed.
    pub clocks: Option<ClockView>,
    /// A pending draw offer.
    pub draw_offer: Option<Color>,
    /// Whether a draw can be claimed now (claims policy).
    pub claimable_draw: Option<Reason>,
    /// Options.
    pub options: OptionsView,
    /// A Chess 2 game's armies, stones and waiting duel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chess2: Option<Chess2View>,
}

/// A game's options.
#[derive(Debug, Serialize, Deserialize)]
pub struct OptionsView {
    /// Idle timeout in seconds (0 = never).
    pub idle_timeout_secs: u64,
    /// Draw rules.
    pub draw_policy: DrawPolicy,
    /// Clocks.
    pub time_control: Option<TimeControl>,
    /// Whether a terminate webhook is set.
    pub webhook: bool,
    /// The engine opponent, when an engine plays one side by itself (`null` when engines play
    /// both sides: see `opponents`).
    #[serde(default)]
    pub opponent: Option<OpponentView>,
    /// Every side an engine plays (White's first): empty, the opponent, or both engines of an
    /// engine match.
    #[serde(default)]
    pub opponents: Vec<OpponentView>,
}

/// The engine opponent of a game, as its options show it.
#[derive(Debug, Serialize, Deserialize)]
pub struct OpponentView {
    /// The configured engine's name.
    pub engine: String,
    /// The side it plays.
    pub plays: Color,
}

impl From<&GameSnapshot> for GameView {
    fn from(s: &GameSnapshot) -> GameView {
        let (turn, check, chess2) = match &s.game {
            Board::Chess(game) => (game.turn(), game.position().is_check(), None),
            Board::Chess2(game) => {
                let turn = game.position().turn();
                let check = game.position().is_threatened(turn);
                (turn, check, Some(Chess2View::of(game)))
            }
        };
        GameView {
            id: s.id,
            version: s.version,
            variant: s.game.variant().to_string(),
            fen: s.game.fen(),
            start_fen: s.game.start_fen(),
            turn,
            check,
            status: s.game.status().clone(),
            moves: history(&s.game),
            clocks: s.clocks,
            draw_offer: s.draw_offer,
            claimable_draw: s.game.claimable_draw(),
            options: options_view(s),
            chess2,
        }
    }
}

fn options_view(s: &GameSnapshot) -> OptionsView {
    OptionsView {
        idle_timeout_secs: s.idle_timeout_secs,
        draw_policy: s.game.policy(),
        time_control: s.time_control,
        webhook: s.has_webhook,
        opponent: match s.engine_seats.as_slice() {
            [(plays, engine)] => Some(OpponentView {
                engine: engine.clone(),
                plays: *plays,
            }),
            _ => None,
        },
        opponents: s
            .engine_seats
            .iter()
            .map(|(plays, engine)| OpponentView {
                engine: engine.clone(),
                plays: *plays,
            })
            .collect(),
    }
}

/// `201` answer to creation.
#[derive(Debug, Serialize, Deserialize)]
pub struct Created {
    /// The game.
    #[serde(flatten)]
    pub game: GameView,
    /// The secrets (shown once).
    pub secrets: SecretsView,
}

/// The game with this id (text from the URL).
pub async fn find(state: &AppState, raw: &str) -> Result<GameHandle, ApiError> {
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
pub async fn create(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let client = client_key(&req, &state.config.auth, true)?;
    let body: CreateGame = optional_json(&body)?;
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
        webhook,
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
    let new = NewGame {
        game,
        options,
        opponents,
    };
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

/// `GET /v1/games/{id}`
pub async fn state_view(
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
pub async fn fen(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let snap = snapshot(&state, &id).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "fen": snap.game.fen() })))
}

/// `GET /v1/games/{id}/status`
pub async fn status(
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
pub async fn turn(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let snap = snapshot(&state, &id).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "turn": snap.game.to_act() })))
}

/// `?format=` of the legal-moves route.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LegalMovesQuery {
    /// `uci` (default), `index` or `count`.
    #[serde(default)]
    pub format: Option<String>,
    /// Accepted and ignored (the WebSocket-style secret parameter).
    #[serde(default)]
    pub token: Option<String>,
}

/// The legal moves of a position in one of the formats (shared with the stateless routes).
pub fn legal_moves_json(
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
pub async fn legal_moves(
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
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PiecesQuery {
    /// Accepted and ignored (the WebSocket-style secret parameter).
    #[serde(default)]
    pub token: Option<String>,
    /// `name` (default: `"e4"`) or `index` (`28`).
    #[serde(default)]
    pub squares: Option<String>,
}

/// `GET /v1/games/{id}/pieces?squares=name|index`
pub async fn pieces(
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
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardQuery {
    /// Accepted and ignored (the WebSocket-style secret parameter).
    #[serde(default)]
    pub token: Option<String>,
    /// `ascii` (default) or `unicode`.
    #[serde(default)]
    pub style: Option<String>,
    /// Black at the bottom.
    #[serde(default)]
    pub flipped: bool,
}

/// `GET /v1/games/{id}/board?style=ascii|unicode&flipped=true` (text/plain)
pub async fn board(
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
pub async fn moves_played(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let snap = snapshot(&state, &id).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "moves": history(&snap.game) })))
}

/// `POST /v1/games/{id}/moves` body: exactly one of the three forms, and optionally the
/// version the move is made on (as `If-Match`).
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
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
    pub fn input(&self) -> Result<MoveInput, ApiError> {
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
pub struct MoveReply {
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
pub async fn make_move(
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
pub fn move_reply(reply: &ActionReply) -> Result<MoveReply, ApiError> {
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

/// The game's whole state after an action (what most game routes answer).
pub fn game_view(reply: &ActionReply) -> Result<GameView, ApiError> {
    Ok(GameView::from(&reply.snapshot))
}

/// `POST /v1/games/{id}/duel`: the defender challenges or declines the capture at stake, or
/// a side bids (hidden from the other side until both bids are in).
pub async fn duel_step(
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
pub struct PgnBody {
    /// PGN text (the first game is used).
    pub pgn: String,
}

/// `PUT /v1/games/{id}/pgn` (admin): re-initialise from a PGN.
pub async fn load_pgn(
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

/// `GET /v1/games/{id}/pgn` (application/x-chess-pgn), with the tags the export writes too
/// ([`GameRecord::pgn_tags`]).
pub async fn export_pgn(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let snap = snapshot(&state, &id).await?;
    Ok(HttpResponse::Ok()
        .content_type(PGN_CONTENT_TYPE)
        .body(GameRecord::from_snapshot(&snap).to_pgn()))
}

/// `{"fen": "..."}`
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FenBody {
    /// FEN (strict).
    pub fen: String,
}

/// `PUT /v1/games/{id}/position` (admin): re-initialise from a FEN.
pub async fn load_fen(
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

/// `GET /v1/games/{id}/state`: the raw state (as Binbo's `get_game_state`).
pub async fn save_state(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<web::Json<SavedState>, ApiError> {
    Ok(web::Json(find(&state, &id).await?.saved_state().await?))
}

/// `PUT /v1/games/{id}/state` (admin): restore a saved state; a bad state is a 422.
pub async fn restore_state(
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
pub struct NoteBody {
    /// Why.
    pub note: Option<String>,
}

/// `POST /v1/games/{id}/draw` (admin)
pub async fn set_draw(
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
pub struct WinnerBody {
    /// The winner.
    pub winner: Color,
    /// Why.
    pub note: Option<String>,
}

/// `POST /v1/games/{id}/winner` (admin)
pub async fn set_winner(
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
pub struct SideBody {
    /// The side resigning.
    pub side: Option<Color>,
}

/// `POST /v1/games/{id}/resign`
pub async fn resign(
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
pub async fn offer_draw(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    conditions::act(&state, &req, &id, Action::OfferDraw, &(), None, game_view).await
}

/// `POST /v1/games/{id}/draw-offer/accept` (the other seat)
pub async fn accept_draw(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    conditions::act(&state, &req, &id, Action::AcceptDraw, &(), None, game_view).await
}

/// `POST /v1/games/{id}/draw-offer/decline` (the other seat)
pub async fn decline_draw(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    conditions::act(&state, &req, &id, Action::DeclineDraw, &(), None, game_view).await
}

/// `POST /v1/games/{id}/draw-claim` (a seat or the admin)
pub async fn claim_draw(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    conditions::act(&state, &req, &id, Action::ClaimDraw, &(), None, game_view).await
}

/// `GET /v1/games/{id}/options`
pub async fn options(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<web::Json<OptionsView>, ApiError> {
    let snap = snapshot(&state, &id).await?;
    Ok(web::Json(options_view(&snap)))
}

/// `PATCH /v1/games/{id}/options` body.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OptionsBody {
    /// New idle timeout (0 = never).
    pub idle_timeout_secs: Option<u64>,
    /// New draw policy.
    pub draw_policy: Option<DrawPolicy>,
}

/// `PATCH /v1/games/{id}/options` (admin)
pub async fn set_options(
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
pub async fn stop(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    command(&state, &req, &id, Action::Stop).await?;
    Ok(HttpResponse::build(StatusCode::NO_CONTENT).finish())
}
