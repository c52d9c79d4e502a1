//! What the OpenAPI document (`crate::openapi`) needs besides the handlers' own wire types: the
//! path and header parameters many routes share, the shared error responses, the shapes of the
//! answers that handlers build with `serde_json::json!`, and the wire form of the chess core's
//! types (the core crate knows nothing of OpenAPI; their names come from the core itself).

#![allow(
    dead_code,
    reason = "schema-only types: utoipa reads their shape, nothing builds them"
)]

use chessd_core::{game::Reason, Color, Role};
use chessd_protocol::uci::GoLimits;
use serde::Serialize;
use utoipa::{
    openapi::{schema::Type, ObjectBuilder, RefOr, Schema},
    IntoParams, PartialSchema, ToResponse, ToSchema,
};
use uuid::Uuid;

use crate::api::{error::ErrorBody, wire::moves::MoveView};
use crate::schemas::{ArmyLetter, ReasonName, RoleName, Side, StatusView};

// ----- Parameters -----

/// The game of a `/v1/games/{id}` route.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub(crate) struct GameId {
    /// The game id.
    pub id: Uuid,
}

/// The seek of a `/v1/seeks/{id}` route.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub(crate) struct SeekId {
    /// The seek id.
    pub id: Uuid,
}

/// The job of a `/v1/perft/{id}` route.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub(crate) struct PerftId {
    /// The perft job id.
    pub id: Uuid,
}

/// The job of a `/v1/puzzles/{id}` route.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub(crate) struct PuzzleId {
    /// The puzzle job id.
    pub id: Uuid,
}

/// The task of a `/v1/work/{job}/{task}` route.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub(crate) struct WorkTaskPath {
    /// The job id.
    pub job: Uuid,
    /// The task's index in the job's split.
    #[param(minimum = 0, maximum = 9223372036854775807_i64)]
    pub task: u64,
}

/// `Idempotency-Key`, on the game commands that take one.
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
pub(crate) struct IdempotencyKey {
    /// Carry the request out once: a repeat with the same key and the same request gets the
    /// first answer (with `Idempotent-Replayed: true`) and changes nothing; the same key with
    /// another request is refused with 409 `idempotency_key_reused`. Keys belong to the caller (a
    /// seat, the admin) and are kept with the game's journal (each caller's last
    /// `games.idempotency_keys`).
    #[param(
        rename = "Idempotency-Key",
        pattern = r"^[!-~]{1,64}$",
        nullable = false
    )]
    pub idempotency_key: Option<String>,
}

/// `If-Match`, on the game commands that take one.
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
pub(crate) struct IfMatch {
    /// The game version (its `ETag`, `"12"`) the change is made on: refused with 409
    /// `version_mismatch` once the game has moved on. `*` names none.
    #[param(
        rename = "If-Match",
        pattern = r#"^(\*|(W/)?"?[0-9]{1,19}"?)$"#,
        nullable = false
    )]
    pub if_match: Option<String>,
}

/// The value of a WebSocket handshake's `Upgrade` header.
#[derive(Serialize, ToSchema)]
pub(crate) enum WsUpgradeValue {
    /// The only one.
    #[serde(rename = "websocket")]
    Websocket,
}

/// The value of a WebSocket handshake's `Connection` header.
#[derive(Serialize, ToSchema)]
pub(crate) enum WsConnectionValue {
    /// The only one.
    Upgrade,
}

/// The WebSocket protocol version a handshake asks for.
#[derive(Serialize, ToSchema)]
pub(crate) enum WsVersionValue {
    /// RFC 6455.
    #[serde(rename = "13")]
    V13,
}

/// The headers of a WebSocket handshake (RFC 6455).
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
pub(crate) struct WsHandshake {
    /// The WebSocket handshake.
    #[param(rename = "Upgrade", inline)]
    pub upgrade: WsUpgradeValue,
    /// The WebSocket handshake.
    #[param(rename = "Connection", inline)]
    pub connection: WsConnectionValue,
    /// 16 random bytes in base64 (RFC 6455).
    #[param(rename = "Sec-WebSocket-Key", pattern = "^[A-Za-z0-9+/]{21}[AQgw]==$")]
    pub key: String,
    /// The WebSocket protocol version.
    #[param(rename = "Sec-WebSocket-Version", inline)]
    pub version: WsVersionValue,
}

// ----- Responses -----

/// Malformed body or parameters (`invalid_request`).
#[derive(ToResponse)]
#[response(example = json!({"error": {"code": "invalid_request", "message": "invalid JSON body: unknown field `colour`"}}))]
pub(crate) struct InvalidRequest(#[to_schema] pub ErrorBody<'static>);

/// No secret (`unauthorized`): the request carries no `Authorization: Bearer <secret>` and this
/// action needs one; the answer has `WWW-Authenticate: Bearer`. Nothing changes.
#[derive(ToResponse)]
#[response(
    example = json!({"error": {"code": "unauthorized", "message": "this action needs the game's admin secret"}}),
    headers(("WWW-Authenticate" = String, description = "`Bearer realm=\"chessd\"`"))
)]
pub(crate) struct Unauthorized(#[to_schema] pub ErrorBody<'static>);

/// A wrong secret (`forbidden`): one that does not allow this action; nothing changes.
#[derive(ToResponse)]
#[response(example = json!({"error": {"code": "forbidden", "message": "this action needs the game's admin secret"}}))]
pub(crate) struct Forbidden(#[to_schema] pub ErrorBody<'static>);

/// No game with that id, or it has stopped (`game_not_found`).
#[derive(ToResponse)]
#[response(example = json!({"error": {"code": "game_not_found", "message": "no game with id 7f1c3b0e-0000-4000-8000-000000000000"}}))]
pub(crate) struct GameNotFound(#[to_schema] pub ErrorBody<'static>);

/// The engine failed (`engine_died`: it exited or closed the connection, the game is unchanged
/// and the engine detached; `engine_illegal_move`: its move was refused and not applied;
/// `engine_unreachable`, `engine_handshake_failed` when starting one).
#[derive(ToResponse)]
pub(crate) struct EngineFailed(#[to_schema] pub ErrorBody<'static>);

/// The engine did not answer before the deadline (`engine_timeout`); it was told to stop.
#[derive(ToResponse)]
pub(crate) struct EngineTimedOut(#[to_schema] pub ErrorBody<'static>);

/// The body is larger than `limits.max_body_bytes` (`payload_too_large`).
#[derive(ToResponse)]
pub(crate) struct PayloadTooLarge(#[to_schema] pub ErrorBody<'static>);

/// No job of this kind with that id (`job_not_found`); a malformed id too. Jobs are kept in the
/// store; with `store.url = "memory"` a finished job is forgotten `jobs.keep_finished_secs` after
/// its end.
#[derive(ToResponse)]
#[response(example = json!({"error": {"code": "job_not_found", "message": "no perft job with id 7f1c3b0e-0000-4000-8000-000000000000"}}))]
pub(crate) struct JobNotFound(#[to_schema] pub ErrorBody<'static>);

// ----- Answers built with `serde_json::json!` -----

/// `GET /v1/games/{id}/fen`
#[derive(ToSchema)]
pub(crate) struct FenReply {
    /// The current position (an EPD for Chess 2).
    pub fen: String,
}

/// `GET /v1/games/{id}/status`
#[derive(ToSchema)]
pub(crate) struct StatusReply {
    /// The status.
    pub status: StatusView,
    /// The winner, if any.
    #[schema(value_type = Option<Side>, required = true)]
    pub winner: Option<Color>,
    /// A draw that can be claimed now (claims policy).
    #[schema(value_type = Option<ReasonName>, required = true)]
    pub claimable_draw: Option<Reason>,
    /// The game's version.
    pub version: u64,
}

/// `GET /v1/games/{id}/turn`
#[derive(ToSchema)]
pub(crate) struct TurnReply {
    /// The side to move.
    #[schema(value_type = Side)]
    pub turn: Color,
}

/// A square index (0 = a1 … 63 = h8) or a promotion letter.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub(crate) enum IndexMovePart {
    /// A square index.
    Square(u8),
    /// A promotion piece.
    #[schema(value_type = String)]
    Promotion(PromotionLetter),
}

/// A promotion piece's letter.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PromotionLetter {
    /// Queen.
    Q,
    /// Rook.
    R,
    /// Bishop.
    B,
    /// Knight.
    N,
}

/// A move as `[from, to]` or `[from, to, promotion]` square indices.
#[derive(Serialize, ToSchema)]
pub(crate) struct IndexMove(pub Vec<IndexMovePart>);

/// A legal move in the requested format.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub(crate) enum LegalMove {
    /// `format=uci`
    Uci(String),
    /// `format=index`
    Index(IndexMove),
}

/// `GET /v1/games/{id}/legal-moves`
#[derive(ToSchema)]
pub(crate) struct LegalMoves {
    /// The moves (absent for `format=count`).
    pub moves: Option<Vec<LegalMove>>,
    /// How many.
    pub count: usize,
}

/// A square: a name (`"e4"`) or an index (`28`).
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub(crate) enum SquareRef {
    /// `squares=name`
    Name(String),
    /// `squares=index`
    Index(u8),
}

/// A piece on its square.
#[derive(ToSchema)]
#[schema(as = Piece)]
pub(crate) struct PieceView {
    /// Where.
    pub square: SquareRef,
    /// Whose.
    #[schema(value_type = Side)]
    pub color: Color,
    /// What.
    #[schema(value_type = RoleName)]
    pub piece: Role,
}

/// `GET /v1/games/{id}/pieces`
#[derive(ToSchema)]
pub(crate) struct PiecesReply {
    /// Every piece on the board.
    pub pieces: Vec<PieceView>,
}

/// `GET /v1/games/{id}/moves`
#[derive(ToSchema)]
pub(crate) struct MovesReply {
    /// The moves played.
    pub moves: Vec<MoveView>,
}

/// `GET /v1/position`
#[derive(ToSchema)]
pub(crate) struct PositionLookup {
    /// The position.
    pub fen: String,
    /// The side to move.
    #[schema(value_type = Side)]
    pub turn: Color,
    /// Whether the side to move is in check.
    pub check: bool,
    /// The position's status.
    pub status: StatusView,
    /// The legal moves (absent for `format=count`).
    pub moves: Option<Vec<LegalMove>>,
    /// How many.
    pub count: usize,
}

/// Whether the server answers and its store is reachable.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum HealthStatus {
    /// All well.
    Ok,
    /// The store cannot be reached.
    Unavailable,
}

/// `GET /health`
#[derive(ToSchema)]
pub(crate) struct Health {
    /// `ok`, or `unavailable` when the store cannot be reached.
    pub status: HealthStatus,
    /// Games held.
    pub games: usize,
    /// The server's version.
    pub version: String,
    /// `ok`, or why the store cannot be reached.
    pub store: String,
}

/// `POST /v1/games/{id}/engine/command`
#[derive(ToSchema)]
pub(crate) struct EngineCommandReply {
    /// Always `true`: the line was written to the engine.
    pub sent: bool,
    /// Whether the answer waited for the engine to be ready again.
    pub wait: bool,
}

/// `POST /v1/work/{job}/{task}/renew`
#[derive(ToSchema)]
pub(crate) struct WorkRenewed {
    /// The lease's new length.
    pub lease_ms: u64,
}

/// `POST /v1/work/{job}/{task}/result`
#[derive(ToSchema)]
pub(crate) struct WorkSubmitted {
    /// `false` when the task's result was already in (a repeat): not counted twice.
    pub counted: bool,
}

// ----- Search limits with a bound -----

/// [`GoLimits`]'s schema with `infinite` and `ponder` held to `false` (a search that must end
/// by itself), and `extra` properties.
fn finite_go_limits(extra: &[(&str, RefOr<Schema>)]) -> RefOr<Schema> {
    let mut schema = GoLimits::schema();
    if let RefOr::T(Schema::Object(object)) = &mut schema {
        for flag in ["infinite", "ponder"] {
            object.properties.insert(
                flag.to_string(),
                ObjectBuilder::new()
                    .schema_type(Type::Boolean)
                    .enum_values(Some([false]))
                    .into(),
            );
        }
        for (name, property) in extra {
            object.properties.insert(name.to_string(), property.clone());
        }
    }
    schema
}

/// Search limits that end by themselves: [`GoLimits`] without `infinite` or `ponder` (an
/// opponent's move, a played engine move).
pub(crate) struct FiniteGoLimits;

impl PartialSchema for FiniteGoLimits {
    fn schema() -> RefOr<Schema> {
        finite_go_limits(&[])
    }
}

impl ToSchema for FiniteGoLimits {}

/// `POST /v1/games/{id}/engine/bestmove`: [`FiniteGoLimits`] and how long to wait for the
/// engine (`timeout_ms`).
pub(crate) struct BestMoveRequest;

impl PartialSchema for BestMoveRequest {
    fn schema() -> RefOr<Schema> {
        let timeout = ObjectBuilder::new()
            .schema_type(Type::Integer)
            .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                utoipa::openapi::KnownFormat::Int64,
            )))
            .minimum(Some(0))
            .maximum(Some(usize::MAX))
            .description(Some(
                "How long to wait for the engine's move, in milliseconds.",
            ))
            .into();
        finite_go_limits(&[("timeout_ms", timeout)])
    }
}

impl ToSchema for BestMoveRequest {}

/// Each side's Chess 2 army.
#[derive(ToSchema)]
pub(crate) struct ArmiesView {
    /// White's.
    pub white: ArmyLetter,
    /// Black's.
    pub black: ArmyLetter,
}

/// Each side's Chess 2 stones.
#[derive(ToSchema)]
pub(crate) struct StonesView {
    /// White's.
    #[schema(maximum = 6)]
    pub white: u8,
    /// Black's.
    #[schema(maximum = 6)]
    pub black: u8,
}

// ----- Perft statistics (written by `api::perft_json` straight from the core's tally) -----

/// The eight Grand Chess Tree check and mate classes (`api::wire::perft::ClassesJson`).
#[derive(ToSchema)]
pub(crate) struct CheckClasses {
    /// Checks by the moved piece only.
    pub direct_checks: u64,
    /// Checks by a discovered piece only.
    pub single_discovered_checks: u64,
    /// Checks by the moved piece and a discovered one.
    pub direct_discovered_checks: u64,
    /// Checks by two discovered pieces.
    pub double_discovered_checks: u64,
    /// Mates by the moved piece only.
    pub direct_mates: u64,
    /// Mates by a discovered piece only.
    pub single_discovered_mates: u64,
    /// Mates by the moved piece and a discovered one.
    pub direct_discovered_mates: u64,
    /// Mates by two discovered pieces.
    pub double_discovered_mates: u64,
}

/// Leaf statistics of a running or finished perft (`api::wire::perft::StatsJson`).
#[derive(ToSchema)]
pub(crate) struct PerftStatistics {
    /// Leaf nodes.
    pub nodes: u64,
    /// Captures.
    pub captures: u64,
    /// En passant captures.
    pub enpassants: u64,
    /// Castles.
    pub castles: u64,
    /// Promotions.
    pub promotions: u64,
    /// Checks, mates included.
    pub checks: u64,
    /// Discovered checks, mates included.
    pub discovered_checks: u64,
    /// Double checks, mates included.
    pub double_checks: u64,
    /// Mates.
    pub checkmates: u64,
    /// The eight classes, when counted.
    #[schema(required = true)]
    pub classes: Option<CheckClasses>,
}

/// The final result of a perft job (`api::wire::perft::PerftResultJson`): the summary fields
/// are `null` without statistics.
#[derive(ToSchema)]
pub(crate) struct PerftResult {
    /// Leaf nodes.
    pub nodes: u64,
    /// Captures.
    #[schema(required = true)]
    pub captures: Option<u64>,
    /// En passant captures.
    #[schema(required = true)]
    pub enpassants: Option<u64>,
    /// Castles.
    #[schema(required = true)]
    pub castles: Option<u64>,
    /// Promotions.
    #[schema(required = true)]
    pub promotions: Option<u64>,
    /// Checks, mates included.
    #[schema(required = true)]
    pub checks: Option<u64>,
    /// Discovered checks, mates included.
    #[schema(required = true)]
    pub discovered_checks: Option<u64>,
    /// Double checks, mates included.
    #[schema(required = true)]
    pub double_checks: Option<u64>,
    /// Mates.
    #[schema(required = true)]
    pub checkmates: Option<u64>,
    /// The eight classes, when counted.
    #[schema(required = true)]
    pub classes: Option<CheckClasses>,
    /// Seconds taken.
    pub seconds: f64,
    /// Nodes per second.
    pub nps: u64,
}

/// The raw counters of a perft task's tally, as a remote worker submits them (the core's
/// `PerftStats` in its serde form).
#[derive(ToSchema)]
pub(crate) struct WorkStats {
    /// Leaf nodes.
    #[schema(maximum = 18446744073709551615_usize)]
    pub nodes: u64,
    /// Captures.
    #[schema(maximum = 18446744073709551615_usize)]
    pub captures: u64,
    /// En passant captures.
    #[schema(maximum = 18446744073709551615_usize)]
    pub enpassants: u64,
    /// Castles.
    #[schema(maximum = 18446744073709551615_usize)]
    pub castles: u64,
    /// Promotions.
    #[schema(maximum = 18446744073709551615_usize)]
    pub promotions: u64,
    /// Checks by the moved piece only.
    #[schema(maximum = 18446744073709551615_usize)]
    pub direct_checks: u64,
    /// Checks by a discovered piece only.
    #[schema(maximum = 18446744073709551615_usize)]
    pub single_discovered_checks: u64,
    /// Checks by the moved piece and a discovered one.
    #[schema(maximum = 18446744073709551615_usize)]
    pub direct_discovered_checks: u64,
    /// Checks by two discovered pieces.
    #[schema(maximum = 18446744073709551615_usize)]
    pub double_discovered_checks: u64,
    /// Mates by the moved piece only.
    #[schema(maximum = 18446744073709551615_usize)]
    pub direct_mates: u64,
    /// Mates by a discovered piece only.
    #[schema(maximum = 18446744073709551615_usize)]
    pub single_discovered_mates: u64,
    /// Mates by the moved piece and a discovered one.
    #[schema(maximum = 18446744073709551615_usize)]
    pub direct_discovered_mates: u64,
    /// Mates by two discovered pieces.
    #[schema(maximum = 18446744073709551615_usize)]
    pub double_discovered_mates: u64,
}

/// An absolute URL.
pub(crate) struct UriText;

impl PartialSchema for UriText {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(utoipa::openapi::SchemaFormat::Custom("uri".into())))
            .into()
    }
}

impl ToSchema for UriText {}
