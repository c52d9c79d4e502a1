//! The handlers, a module per resource, and the route table: every method and path the server
//! answers, with its handler, as data. [`crate::api::configure`] registers exactly these (one
//! actix resource per path), and the OpenAPI test compares the same list with the generated
//! document (`crate::openapi`), so the two cannot drift apart.

pub(crate) mod archive;
pub(crate) mod chess2;
pub(crate) mod chess2_games;
pub(crate) mod cluster;
pub(crate) mod engines;
pub(crate) mod export;
pub(crate) mod game_actions;
pub(crate) mod game_admin;
pub(crate) mod game_view;
pub(crate) mod games;
pub(crate) mod in_game;
pub(crate) mod jobs;
pub(crate) mod lobby_ws;
pub(crate) mod pairing;
pub(crate) mod players;
pub(crate) mod position;
pub(crate) mod seeks;
pub(crate) mod system;
pub mod webapp;
pub(crate) mod work;
pub(crate) mod ws;
pub(crate) mod ws_frames;

use actix_web::{
    http::Method, web, FromRequest, Handler, Resource, Responder, Route as ActixRoute,
};

/// One route: a method on a path pattern (written as the OpenAPI document writes it) and the
/// handler that answers it.
pub struct ApiRoute {
    /// The HTTP method.
    pub method: Method,
    /// The path pattern, `{id}` for a path parameter.
    pub path: &'static str,
    /// The handler, behind the method's guard.
    route: ActixRoute,
}

impl std::fmt::Debug for ApiRoute {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.method, self.path)
    }
}

impl ApiRoute {
    /// `method` on `path`, answered by `handler`.
    pub fn new<F, Args>(method: Method, path: &'static str, handler: F) -> ApiRoute
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        ApiRoute {
            route: web::method(method.clone()).to(handler),
            method,
            path,
        }
    }
}

/// Every route the server has, in registration order (a path's methods together).
pub fn route_table() -> Vec<ApiRoute> {
    use ApiRoute as R;
    const GET: Method = Method::GET;
    const POST: Method = Method::POST;
    const PUT: Method = Method::PUT;
    const PATCH: Method = Method::PATCH;
    const DELETE: Method = Method::DELETE;
    vec![
        R::new(GET, "/health", system::health),
        R::new(GET, "/metrics", system::metrics),
        R::new(GET, "/openapi.json", system::openapi),
        R::new(GET, "/v1/position", position::lookup),
        R::new(POST, "/v1/position/move", position::apply_move),
        // The Go Chess 2 engine's HTTP API.
        R::new(GET, "/chess2/new", chess2::new_game),
        R::new(POST, "/chess2/move", chess2::apply_move),
        R::new(GET, "/v1/games", archive::list),
        R::new(POST, "/v1/games", games::create),
        // Before `/v1/games/{id}`, which would take `export` for an id.
        R::new(GET, "/v1/games/export", export::export),
        R::new(GET, "/v1/engines", engines::list),
        R::new(GET, "/v1/engines/sessions", engines::sessions),
        R::new(GET, "/v1/cluster", cluster::status),
        // The lobby.
        R::new(GET, "/v1/seeks", seeks::list),
        R::new(POST, "/v1/seeks", seeks::post),
        R::new(GET, "/v1/seeks/{id}", seeks::view),
        R::new(DELETE, "/v1/seeks/{id}", seeks::cancel),
        R::new(POST, "/v1/seeks/{id}/accept", seeks::accept),
        R::new(GET, "/v1/lobby/ws", lobby_ws::connect),
        R::new(GET, "/v1/pairing", pairing::list),
        R::new(POST, "/v1/pairing/{pool}", pairing::join),
        R::new(GET, "/v1/pairing/{pool}/{entry}", pairing::view),
        R::new(DELETE, "/v1/pairing/{pool}/{entry}", pairing::leave),
        // Players.
        R::new(POST, "/v1/players", players::create),
        R::new(POST, "/v1/players/login", players::login),
        R::new(GET, "/v1/player", players::me),
        R::new(GET, "/v1/players/{name}", players::page),
        R::new(GET, "/v1/players/{name}/games.pgn", players::games_pgn),
        // Jobs.
        R::new(GET, "/v1/jobs", jobs::list),
        R::new(POST, "/v1/perft", jobs::create_perft),
        R::new(GET, "/v1/perft/{id}", jobs::perft_view),
        R::new(DELETE, "/v1/perft/{id}", jobs::cancel_perft),
        R::new(GET, "/v1/perft/{id}/events", jobs::perft_events),
        R::new(POST, "/v1/puzzles", jobs::create_puzzle),
        R::new(GET, "/v1/puzzles/{id}", jobs::puzzle_view),
        R::new(DELETE, "/v1/puzzles/{id}", jobs::cancel_puzzle),
        R::new(GET, "/v1/puzzles/{id}/events", jobs::puzzle_events),
        // The shared perft queue's work API (remote workers).
        R::new(POST, "/v1/work/lease", work::lease),
        R::new(POST, "/v1/work/{job}/{task}/renew", work::renew),
        R::new(POST, "/v1/work/{job}/{task}/result", work::submit),
        // A game.
        R::new(GET, "/v1/games/{id}", games::state_view),
        R::new(DELETE, "/v1/games/{id}", game_admin::stop),
        R::new(GET, "/v1/games/{id}/fen", games::fen),
        R::new(GET, "/v1/games/{id}/status", games::status),
        R::new(GET, "/v1/games/{id}/turn", games::turn),
        R::new(GET, "/v1/games/{id}/legal-moves", games::legal_moves),
        R::new(GET, "/v1/games/{id}/pieces", games::pieces),
        R::new(GET, "/v1/games/{id}/board", games::board),
        R::new(GET, "/v1/games/{id}/moves", games::moves_played),
        R::new(POST, "/v1/games/{id}/moves", game_actions::make_move),
        R::new(POST, "/v1/games/{id}/duel", game_actions::duel_step),
        R::new(GET, "/v1/games/{id}/pgn", games::export_pgn),
        R::new(PUT, "/v1/games/{id}/pgn", game_admin::load_pgn),
        R::new(PUT, "/v1/games/{id}/position", game_admin::load_fen),
        R::new(GET, "/v1/games/{id}/state", games::save_state),
        R::new(PUT, "/v1/games/{id}/state", game_admin::restore_state),
        R::new(POST, "/v1/games/{id}/draw", game_admin::set_draw),
        R::new(POST, "/v1/games/{id}/winner", game_admin::set_winner),
        R::new(POST, "/v1/games/{id}/resign", game_actions::resign),
        R::new(POST, "/v1/games/{id}/draw-offer", game_actions::offer_draw),
        R::new(
            POST,
            "/v1/games/{id}/draw-offer/accept",
            game_actions::accept_draw,
        ),
        R::new(
            POST,
            "/v1/games/{id}/draw-offer/decline",
            game_actions::decline_draw,
        ),
        R::new(POST, "/v1/games/{id}/draw-claim", game_actions::claim_draw),
        R::new(POST, "/v1/games/{id}/abort", in_game::abort),
        R::new(POST, "/v1/games/{id}/takeback", in_game::offer_takeback),
        R::new(
            POST,
            "/v1/games/{id}/takeback/accept",
            in_game::accept_takeback,
        ),
        R::new(
            POST,
            "/v1/games/{id}/takeback/decline",
            in_game::decline_takeback,
        ),
        R::new(POST, "/v1/games/{id}/rematch", in_game::offer_rematch),
        R::new(GET, "/v1/games/{id}/rematch", in_game::get_rematch),
        R::new(
            POST,
            "/v1/games/{id}/rematch/accept",
            in_game::accept_rematch_route,
        ),
        R::new(
            POST,
            "/v1/games/{id}/rematch/decline",
            in_game::decline_rematch,
        ),
        R::new(POST, "/v1/games/{id}/chat", in_game::post_chat),
        R::new(GET, "/v1/games/{id}/chat", in_game::get_chat),
        R::new(GET, "/v1/games/{id}/options", games::options),
        R::new(PATCH, "/v1/games/{id}/options", game_admin::set_options),
        // A game's engine.
        R::new(GET, "/v1/games/{id}/engine", engines::view),
        R::new(POST, "/v1/games/{id}/engine", engines::attach),
        R::new(DELETE, "/v1/games/{id}/engine", engines::detach),
        R::new(POST, "/v1/games/{id}/engine/bestmove", engines::bestmove),
        R::new(POST, "/v1/games/{id}/engine/play", engines::play),
        R::new(
            POST,
            "/v1/games/{id}/engine/position",
            engines::set_position,
        ),
        R::new(POST, "/v1/games/{id}/engine/sync", engines::sync),
        R::new(POST, "/v1/games/{id}/engine/command", engines::command),
        R::new(
            POST,
            "/v1/games/{id}/engine/analysis",
            engines::start_analysis,
        ),
        R::new(
            DELETE,
            "/v1/games/{id}/engine/analysis",
            engines::stop_analysis,
        ),
        R::new(GET, "/v1/games/{id}/ws", ws::connect),
    ]
}

/// The table as actix resources: one per path, with every method of that path (so that other
/// methods get `405` with an `Allow` header listing them), in the table's order.
pub fn resources() -> Vec<Resource> {
    let mut paths: Vec<(&'static str, Vec<ActixRoute>)> = Vec::new();
    for ApiRoute { path, route, .. } in route_table() {
        match paths.iter_mut().find(|(p, _)| *p == path) {
            Some((_, routes)) => routes.push(route),
            None => paths.push((path, vec![route])),
        }
    }
    paths
        .into_iter()
        .map(|(path, routes)| {
            routes
                .into_iter()
                .fold(web::resource(path), Resource::route)
        })
        .collect()
}
