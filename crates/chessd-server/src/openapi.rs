//! The OpenAPI 3.1 document served at `/openapi.json`, generated from the code: each handler's
//! `#[utoipa::path]` (its operation: parameters, body, answers, secret), the wire types'
//! `ToSchema`, and [`ApiDoc`]'s modifiers for what those cannot say (the security schemes, the
//! links from each creation answer to the operations on what it created, the error codes' table,
//! and the request constraints that span several fields). `tests/it/openapi.rs` checks that it
//! documents exactly the routes of the route table (`api/routes/mod.rs`).

use std::sync::OnceLock;

use serde_json::{json, Value};
use utoipa::{
    openapi::{
        link::Link,
        security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme},
        RefOr, Schema,
    },
    Modify, OpenApi,
};

use crate::api::{self, error::ErrorCode};

/// The document's description.
const DESCRIPTION: &str = "An actor-based chess game server: every game is an actor reachable over REST and WebSocket.\n\n**Secrets.** Creating a game returns one secret per seat (`white`, `black`) and an `admin` secret; send one as `Authorization: Bearer <secret>` (WebSocket routes also take `?token=<secret>`: browsers cannot set a WebSocket's headers). Reads are open to anyone who knows the game id. Each operation that needs a secret says which in `x-chessd-secret`: `side-to-move` (the seat of the side to move, or admin), `seat` (either seat), `seat-or-admin`, `admin`; `operator` is not a game's secret but the server operator's token (`auth.operator_token`), sent the same way. A missing or wrong secret is a 403 `forbidden` and changes nothing.\n\n**Errors** are `{\"error\": {\"code\": \"...\", \"message\": \"...\"}}`; see the `ErrorCode` schema for every code and its status.\n\n**Status** is the same object everywhere: `{\"result\", \"reason\", \"note\"}` (`StatusView`).";

/// The OpenAPI document of every route of the route table.
#[derive(OpenApi)]
#[openapi(
    info(title = "chessd", description = DESCRIPTION),
    servers((url = "http://127.0.0.1:8080", description = "The default `bind`.")),
    tags(
        (name = "system", description = "Health, metrics and this document."),
        (name = "position", description = "Stateless calls on any FEN."),
        (name = "chess2", description = "The Go Chess 2 engine's HTTP API: stateless calls on Chess 2 EPDs."),
        (name = "games", description = "Games: each one an actor."),
        (name = "websocket", description = "Online play."),
        (name = "jobs", description = "Perft and mate-in-N puzzle jobs, run on a pool off the HTTP threads."),
        (name = "engines", description = "UCI engines: configured by name, attached to games (hints, play, analysis, an engine opponent)."),
        (name = "lobby", description = "Seeks: players waiting for an opponent, listed live on the lobby socket, accepted once. Quick pairing: pools of players paired by rating."),
        (name = "players", description = "Players: anonymous or named, their tokens (`X-Player-Token`), Glicko-2 ratings per variant and time-control class, recent games and PGN.")
    ),
    paths(
        api::routes::system::health,
        api::routes::system::metrics,
        api::routes::system::openapi,
        api::routes::position::lookup,
        api::routes::position::apply_move,
        api::routes::chess2::new_game,
        api::routes::chess2::apply_move,
        api::routes::archive::list,
        api::routes::games::create,
        api::routes::export::export,
        api::routes::engines::list,
        api::routes::engines::sessions,
        api::routes::cluster::status,
        api::routes::seeks::list,
        api::routes::seeks::post,
        api::routes::seeks::view,
        api::routes::seeks::cancel,
        api::routes::seeks::accept,
        api::routes::players::create,
        api::routes::players::login,
        api::routes::players::me,
        api::routes::players::page,
        api::routes::players::games_pgn,
        api::routes::lobby_ws::connect,
        api::routes::pairing::list,
        api::routes::pairing::join,
        api::routes::pairing::view,
        api::routes::pairing::leave,
        api::routes::jobs::list,
        api::routes::jobs::create_perft,
        api::routes::jobs::perft_view,
        api::routes::jobs::cancel_perft,
        api::routes::jobs::perft_events,
        api::routes::jobs::create_puzzle,
        api::routes::jobs::puzzle_view,
        api::routes::jobs::cancel_puzzle,
        api::routes::jobs::puzzle_events,
        api::routes::work::lease,
        api::routes::work::renew,
        api::routes::work::submit,
        api::routes::games::state_view,
        api::routes::game_admin::stop,
        api::routes::games::fen,
        api::routes::games::status,
        api::routes::games::turn,
        api::routes::games::legal_moves,
        api::routes::games::pieces,
        api::routes::games::board,
        api::routes::games::moves_played,
        api::routes::game_actions::make_move,
        api::routes::game_actions::duel_step,
        api::routes::games::export_pgn,
        api::routes::game_admin::load_pgn,
        api::routes::game_admin::load_fen,
        api::routes::games::save_state,
        api::routes::game_admin::restore_state,
        api::routes::game_admin::set_draw,
        api::routes::game_admin::set_winner,
        api::routes::game_actions::resign,
        api::routes::game_actions::offer_draw,
        api::routes::game_actions::accept_draw,
        api::routes::game_actions::decline_draw,
        api::routes::game_actions::claim_draw,
        api::routes::in_game::abort,
        api::routes::in_game::offer_takeback,
        api::routes::in_game::accept_takeback,
        api::routes::in_game::decline_takeback,
        api::routes::in_game::offer_rematch,
        api::routes::in_game::get_rematch,
        api::routes::in_game::accept_rematch_route,
        api::routes::in_game::decline_rematch,
        api::routes::in_game::post_chat,
        api::routes::in_game::get_chat,
        api::routes::games::options,
        api::routes::game_admin::set_options,
        api::routes::engines::view,
        api::routes::engines::attach,
        api::routes::engines::detach,
        api::routes::engines::bestmove,
        api::routes::engines::play,
        api::routes::engines::set_position,
        api::routes::engines::sync,
        api::routes::engines::command,
        api::routes::engines::start_analysis,
        api::routes::engines::stop_analysis,
        api::routes::ws::connect
    ),
    components(
        // The value types of query parameters (IntoParams does not collect them) and the
        // WebSocket client's frames (a WebSocket's messages are no operation's body).
        schemas(
            crate::schemas::GamesFilter,
            crate::schemas::GamesOrder,
            crate::schemas::MovesFormat,
            crate::schemas::SquaresFormat,
            crate::schemas::BoardStyleName,
            crate::schemas::ArmyLetter,
            chessd_protocol::ws::ClientFrame,
            api::routes::ws_frames::WsServerFrame
        ),
        responses(
            api::openapi_types::InvalidRequest,
            api::openapi_types::Unauthorized,
            api::openapi_types::Forbidden,
            api::openapi_types::GameNotFound,
            api::routes::game_view::GameAfterAction,
            api::openapi_types::EngineFailed,
            api::openapi_types::EngineTimedOut,
            api::openapi_types::PayloadTooLarge,
            api::openapi_types::JobNotFound
        )
    ),
    modifiers(
        &SecuritySchemes,
        &ErrorCodes,
        &Links,
        &Constraints,
        &OptionalBodies,
        &UnsignedWidths
    )
)]
pub struct ApiDoc;

/// The document, built once.
pub fn document() -> &'static utoipa::openapi::OpenApi {
    static DOC: OnceLock<utoipa::openapi::OpenApi> = OnceLock::new();
    DOC.get_or_init(ApiDoc::openapi)
}

/// The document as JSON, built once.
pub fn document_json() -> &'static str {
    static JSON: OnceLock<String> = OnceLock::new();
    JSON.get_or_init(|| document().to_json().unwrap_or_default())
}

/// `bearerAuth` (the `Authorization: Bearer` secret every secured operation names) and
/// `tokenQuery` (the same secret as `?token=`, read by WebSocket routes only).
struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearerAuth",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "A seat (`white`, `black`) or `admin` secret from the creation answer.",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "playerToken",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-Player-Token",
                "A player's token (from `POST /v1/players` or its login). Browsers may send \
                 the `chessd_player` cookie instead, which those routes set (HttpOnly, \
                 SameSite=Lax).",
            ))),
        );
        components.add_security_scheme(
            "tokenQuery",
            SecurityScheme::ApiKey(ApiKey::Query(ApiKeyValue::with_description(
                "token",
                "The same secret as a query parameter, for browsers' WebSockets: read on \
                 WebSocket routes only (a secret in a URL ends up in logs and histories).",
            ))),
        );
    }
}

/// The `ErrorCode` schema's description: every code of [`ErrorCode::ALL`] with its status.
struct ErrorCodes;

impl Modify for ErrorCodes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let Some(components) = openapi.components.as_mut() else {
            return;
        };
        if let Some(RefOr::T(Schema::Object(schema))) = components.schemas.get_mut("ErrorCode") {
            let table: Vec<String> = ErrorCode::ALL
                .iter()
                .map(|c| format!("- `{}` ({})", c.as_str(), c.status().as_u16()))
                .collect();
            schema.description = Some(format!(
                "Stable error codes, with their HTTP status (docs/api.md says what each \
                 means):\n\n{}",
                table.join("\n")
            ));
        }
    }
}

/// The secret an operation needs: its `x-chessd-secret`.
fn secret_of(op: &utoipa::openapi::path::Operation) -> Option<String> {
    op.extensions
        .as_ref()
        .and_then(|e| e.get("x-chessd-secret"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// Every operation of the document: (path, operation).
fn operations(
    openapi: &utoipa::openapi::OpenApi,
) -> Vec<(String, &utoipa::openapi::path::Operation)> {
    let mut all = Vec::new();
    for (path, item) in &openapi.paths.paths {
        for op in [&item.get, &item.post, &item.put, &item.patch, &item.delete]
            .into_iter()
            .flatten()
        {
            all.push((path.clone(), op));
        }
    }
    all
}

/// Operations a seat may do but the admin may not without saying for which side (a resignation,
/// a duel step): their links carry the seats' secrets only.
const SEATS_ONLY: [&str; 2] = ["resign", "duelStep"];

/// The OpenAPI links from each creation answer (a game's, a perft or puzzle job's) to every
/// operation on what it created, with the secret that operation needs: what schemathesis's
/// stateful phase follows. Operations that need the operator's token (configuration, not in an
/// answer) get none.
struct Links;

impl Links {
    /// The links from a creation answer to the operations under `{prefix}/{id}`.
    fn from_creation(openapi: &utoipa::openapi::OpenApi, prefix: &str) -> Vec<(String, Link)> {
        let mut links = Vec::new();
        for (path, op) in operations(openapi) {
            if !path.starts_with(&format!("{prefix}/{{id}}")) {
                continue;
            }
            let Some(id) = op.operation_id.clone() else {
                continue;
            };
            let name = format!("{}{}", id[..1].to_uppercase(), &id[1..]);
            let link = |auth: Option<String>| {
                let mut link = Link::builder().parameter("path.id", "$response.body#/id");
                if let Some(auth) = auth {
                    link = link.parameter("header.Authorization", auth);
                }
                link
            };
            let bearer = |who: &str| Some(format!("Bearer {{$response.body#/secrets/{who}}}"));
            let callers: &[&str] = match secret_of(op).as_deref() {
                None => {
                    links.push((name, to_operation(link(None).build(), &id, None)));
                    continue;
                }
                Some("seat-optional") => {
                    let link = link(None).parameter("query.token", "$response.body#/secrets/white");
                    links.push((name, to_operation(link.build(), &id, None)));
                    continue;
                }
                Some("job") => {
                    let auth = Some("Bearer {$response.body#/secret}".to_string());
                    links.push((name, to_operation(link(auth).build(), &id, None)));
                    continue;
                }
                Some("operator") => continue,
                Some("admin") => &["admin"],
                Some("seat") => &["white", "black"],
                Some(_) if SEATS_ONLY.contains(&id.as_str()) => &["white", "black"],
                Some(_) => &["admin", "white", "black"],
            };
            for who in callers {
                let mut one = link(bearer(who));
                if id == "duelStep" {
                    one = one.description(
                        "A Chess 2 game's duel step (challenge, decline or bid) by this seat.",
                    );
                }
                let suffix = format!("As{}{}", who[..1].to_uppercase(), &who[1..]);
                links.push((
                    format!("{name}{suffix}"),
                    to_operation(one.build(), &id, None),
                ));
            }
        }
        links
    }

    /// A link with a fixed body, which schemathesis sends as it is.
    fn with_body(id: &str, body: Value) -> Link {
        let link = Link::builder()
            .parameter("path.id", "$response.body#/id")
            .parameter(
                "header.Authorization",
                "Bearer {$response.body#/secrets/admin}",
            )
            .build();
        to_operation(link, id, Some(body))
    }
}

/// `link` to the operation `id`, with `body`. utoipa 5 writes a link's `operationId` and
/// `requestBody` fields as `operation_id` and `request_body` (its `Link` lacks serde's camelCase
/// renaming), which OpenAPI tools do not read: they go in as the spelled-out keys, through the
/// extensions map that the link flattens into its object.
fn to_operation(mut link: Link, id: &str, body: Option<Value>) -> Link {
    let extensions = link.extensions.get_or_insert_with(Default::default);
    extensions.insert("operationId".to_string(), json!(id));
    if let Some(body) = body {
        extensions.insert("requestBody".to_string(), body);
        extensions.insert("x-schemathesis".to_string(), json!({"merge_body": false}));
    }
    link
}

impl Modify for Links {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let mut game = Links::from_creation(openapi, "/v1/games");
        // A legal first move and the built-in engine: without them the stateful phase would
        // hardly ever reach a game with moves or an engine.
        game.push((
            "MakeMoveE2E4".into(),
            Links::with_body("makeMove", json!({"uci": "e2e4"})),
        ));
        game.push((
            "AttachEngineBuiltin".into(),
            Links::with_body("attachEngine", json!({"name": "builtin"})),
        ));
        let perft = Links::from_creation(openapi, "/v1/perft");
        let puzzle = Links::from_creation(openapi, "/v1/puzzles");
        for (path, status, links) in [
            ("/v1/games", "201", game),
            ("/v1/perft", "202", perft),
            ("/v1/puzzles", "202", puzzle),
        ] {
            let response = openapi
                .paths
                .paths
                .get_mut(path)
                .and_then(|item| item.post.as_mut())
                .and_then(|op| op.responses.responses.get_mut(status));
            if let Some(RefOr::T(response)) = response {
                for (name, link) in links {
                    response.links.insert(name, RefOr::T(link));
                }
            }
        }
    }
}

/// Request constraints that span several fields, which the derived schemas cannot state (and
/// which the handlers enforce with `invalid_request`): without them a schema-valid body could be
/// refused with a 400.
struct Constraints;

impl Constraints {
    /// Field `name` given, and not `null` (an optional field's `null` is its absence).
    fn given(name: &str) -> Value {
        json!({"required": [name], "properties": {name: {"not": {"type": "null"}}}})
    }

    /// Not both fields given.
    fn not_both(a: &str, b: &str) -> Value {
        json!({"not": {"allOf": [Constraints::given(a), Constraints::given(b)]}})
    }
}

impl Modify for Constraints {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let chess2 =
            json!({"required": ["variant"], "properties": {"variant": {"const": "chess2"}}});
        let not_chess2 = json!({"not": chess2});
        let string =
            |name: &str| json!({"required": [name], "properties": {name: {"type": "string"}}});
        let rules: [(&str, Vec<Value>); 7] = [
            (
                "NewPlayerBody",
                // A name and a password together, or neither (an anonymous player).
                vec![json!({"anyOf": [
                    {"allOf": [Constraints::given("name"), Constraints::given("password")]},
                    {"allOf": [
                        {"not": Constraints::given("name")},
                        {"not": Constraints::given("password")}
                    ]}
                ]})],
            ),
            (
                "MoveRequest",
                // Exactly one of the three forms of a move.
                vec![json!({"oneOf": [
                    {"allOf": [string("uci"), {"not": {"anyOf": [
                        {"required": ["san"]}, {"required": ["from"]}, {"required": ["to"]},
                        {"required": ["promotion"]}
                    ]}}]},
                    {"allOf": [string("san"), {"not": {"anyOf": [
                        {"required": ["uci"]}, {"required": ["from"]}, {"required": ["to"]},
                        {"required": ["promotion"]}
                    ]}}]},
                    {"required": ["from", "to"], "not": {"anyOf": [
                        {"required": ["uci"]}, {"required": ["san"]}
                    ]}}
                ]})],
            ),
            (
                "CreateGame",
                vec![
                    Constraints::not_both("fen", "pgn"),
                    Constraints::not_both("opponent", "opponents"),
                    Constraints::not_both("fen", "armies"),
                    // Armies only for Chess 2; a Chess 2 game starts from no PGN.
                    json!({"anyOf": [{"not": Constraints::given("armies")}, chess2]}),
                    json!({"anyOf": [{"not": Constraints::given("pgn")}, not_chess2]}),
                ],
            ),
            (
                "SeekBody",
                // Armies only for a Chess 2 seek.
                vec![json!({"anyOf": [{"not": Constraints::given("armies")}, chess2]})],
            ),
            (
                "CreatePerft",
                // Chess 2 perft counts nodes only, on the node itself.
                vec![json!({"anyOf": [not_chess2, {"properties": {
                    "stats": {"const": false},
                    "hash_mb": {"maximum": 0},
                    "workers": {"enum": [false, null]}
                }}]})],
            ),
            (
                "CreatePuzzle",
                // A FEN, or a board (with its turn), not both.
                vec![
                    json!({"oneOf": [
                        {"allOf": [Constraints::given("fen"), {"not": {"anyOf": [
                            Constraints::given("board"), Constraints::given("turn")
                        ]}}]},
                        {"allOf": [Constraints::given("board"), {"not": Constraints::given("fen")}]}
                    ]}),
                    // The problem's length: `mate_in`, or the stipulation's N.
                    json!({"anyOf": [Constraints::given("mate_in"), Constraints::given("stipulation")]}),
                ],
            ),
            (
                "DuelBody",
                // Stones, gain and side go with a bid, which needs its stones.
                vec![
                    json!({"anyOf": [
                        {"required": ["action"], "properties": {"action": {"const": "bid"}}},
                        {"allOf": [
                            {"not": {"required": ["stones"]}},
                            {"not": {"required": ["gain"]}},
                            {"not": {"required": ["side"]}}
                        ]}
                    ]}),
                    json!({"anyOf": [
                        {"not": {"required": ["action"], "properties": {"action": {"const": "bid"}}}},
                        {"required": ["stones"]}
                    ]}),
                ],
            ),
        ];
        let Some(components) = openapi.components.as_mut() else {
            return;
        };
        for (name, all_of) in rules {
            if let Some(RefOr::T(Schema::Object(schema))) = components.schemas.get_mut(name) {
                // `allOf` beside the object's own keywords: an extension is the one place the
                // object schema keeps keywords it does not model.
                schema
                    .extensions
                    .get_or_insert_with(Default::default)
                    .insert("allOf".to_string(), Value::Array(all_of));
            }
        }
    }
}

/// An optional request body (`request_body = Option<T>`) is documented by utoipa as `T` or
/// `null`; the body is optional (`required: false`), but a JSON `null` is not a valid body, so
/// the `null` is dropped.
struct OptionalBodies;

impl Modify for OptionalBodies {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for item in openapi.paths.paths.values_mut() {
            for op in [
                &mut item.get,
                &mut item.post,
                &mut item.put,
                &mut item.patch,
                &mut item.delete,
            ]
            .into_iter()
            .flatten()
            {
                let Some(body) = op.request_body.as_mut() else {
                    continue;
                };
                for content in body.content.values_mut() {
                    if let Some(RefOr::T(Schema::OneOf(one))) = &content.schema {
                        let not_null: Vec<_> =
                            one.items.iter().filter(|s| !is_null(s)).cloned().collect();
                        if let [only] = not_null.as_slice() {
                            content.schema = Some(only.clone());
                        }
                    }
                }
            }
        }
    }
}

/// Whether `schema` is the `null` type alone.
fn is_null(schema: &RefOr<Schema>) -> bool {
    matches!(schema, RefOr::T(Schema::Object(o))
        if o.schema_type == utoipa::openapi::schema::SchemaType::Type(utoipa::openapi::Type::Null))
}

/// utoipa writes `u64` as `format: int64`, whose range stops at `i64::MAX`; a field whose
/// documented maximum is past it (a `u64` the server takes whole) drops that format, so that
/// tools take the documented bounds, not int64's.
struct UnsignedWidths;

impl UnsignedWidths {
    fn fix(schema: &mut RefOr<Schema>) {
        let RefOr::T(schema) = schema else {
            return;
        };
        match schema {
            Schema::Object(object) => {
                let past_i64 = match &object.maximum {
                    Some(utoipa::Number::UInt(max)) => *max as u64 > i64::MAX as u64,
                    _ => false,
                };
                if past_i64 {
                    object.format = None;
                }
                object.properties.values_mut().for_each(UnsignedWidths::fix);
            }
            Schema::Array(array) => {
                if let utoipa::openapi::schema::ArrayItems::RefOrSchema(items) = &mut array.items {
                    UnsignedWidths::fix(items);
                }
            }
            Schema::OneOf(one) => one.items.iter_mut().for_each(UnsignedWidths::fix),
            Schema::AllOf(all) => all.items.iter_mut().for_each(UnsignedWidths::fix),
            Schema::AnyOf(any) => any.items.iter_mut().for_each(UnsignedWidths::fix),
            _ => {}
        }
    }
}

impl Modify for UnsignedWidths {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        if let Some(components) = openapi.components.as_mut() {
            components
                .schemas
                .values_mut()
                .for_each(UnsignedWidths::fix);
        }
    }
}
