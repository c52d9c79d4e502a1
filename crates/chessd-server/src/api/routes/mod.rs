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
        // A game: first of the parameterised paths, as the busiest (see `register`).
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
    ]
}

/// Registers the table: one actix resource per path, with every method of that path (so that
/// other methods get `405` with an `Allow` header listing them), in the table's order.
///
/// Paths with parameters are grouped in a scope per prefix up to their first parameter
/// (`/v1/games/{id}` holds every game route). actix tries resources one after the other and
/// reads a parameterised path with a regular expression, so a move, near the end of a flat
/// list, was matched against some twenty expressions; in its scope it costs one, then
/// literal comparisons. A scope takes every request its prefix matches, so no path outside a
/// group may start with the group's prefix (the route tests call every route of the table).
pub fn register(cfg: &mut web::ServiceConfig) {
    for group in grouped(route_table()) {
        match group {
            Group::Plain(path, routes) => {
                cfg.service(resource(path, routes));
            }
            Group::Scope(prefix, paths) => {
                let scope = paths
                    .into_iter()
                    .fold(web::scope(prefix), |scope, (rest, routes)| {
                        scope.service(resource(rest, routes))
                    });
                cfg.service(scope);
            }
        }
    }
}

/// The routes of one path, or of one parameterised prefix.
enum Group {
    /// A path without parameters, and its routes.
    Plain(&'static str, Vec<ActixRoute>),
    /// A prefix ending with a parameter, and the paths under it (their rest) with their routes.
    Scope(&'static str, Vec<(&'static str, Vec<ActixRoute>)>),
}

/// The table's routes by path, and paths with parameters by the prefix up to their first one,
/// each in the order of its first appearance.
fn grouped(table: Vec<ApiRoute>) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for ApiRoute { path, route, .. } in table {
        let (prefix, rest) = split_at_parameter(path);
        let found = groups.iter_mut().find_map(|g| match g {
            Group::Plain(p, routes) if rest.is_none() && *p == prefix => Some(routes),
            Group::Scope(p, paths) if *p == prefix => {
                rest.map(|rest| match paths.iter().position(|(r, _)| *r == rest) {
                    Some(i) => &mut paths[i].1,
                    None => {
                        paths.push((rest, Vec::new()));
                        &mut paths.last_mut().expect("just pushed").1
                    }
                })
            }
            _ => None,
        });
        match (found, rest) {
            (Some(routes), _) => routes.push(route),
            (None, None) => groups.push(Group::Plain(path, vec![route])),
            (None, Some(rest)) => groups.push(Group::Scope(prefix, vec![(rest, vec![route])])),
        }
    }
    groups
}

/// `/v1/games/{id}/moves` as (`/v1/games/{id}`, `Some("/moves")`); a path without a parameter
/// as (itself, `None`).
fn split_at_parameter(path: &'static str) -> (&'static str, Option<&'static str>) {
    let Some(open) = path.find('{') else {
        return (path, None);
    };
    let end = path[open..]
        .find('}')
        .map_or(path.len(), |close| open + close + 1);
    (&path[..end], Some(&path[end..]))
}

/// One resource with its routes.
fn resource(path: &'static str, routes: Vec<ActixRoute>) -> Resource {
    routes
        .into_iter()
        .fold(web::resource(path), Resource::route)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_splits_after_its_first_parameter() {
        assert_eq!(split_at_parameter("/health"), ("/health", None));
        assert_eq!(
            split_at_parameter("/v1/games/{id}"),
            ("/v1/games/{id}", Some(""))
        );
        assert_eq!(
            split_at_parameter("/v1/games/{id}/draw-offer/accept"),
            ("/v1/games/{id}", Some("/draw-offer/accept"))
        );
        assert_eq!(
            split_at_parameter("/v1/pairing/{pool}/{entry}"),
            ("/v1/pairing/{pool}", Some("/{entry}"))
        );
    }

    #[test]
    fn a_scope_takes_only_its_own_paths() {
        // A scope answers every request its prefix matches (its base, then a segment): a path
        // outside it that the prefix also matches is reached only when it is registered
        // before the scope, as `/v1/games/export` is before `/v1/games/{id}`.
        let groups = grouped(route_table());
        let position = |path: &str| {
            groups.iter().position(|g| match g {
                Group::Plain(p, _) | Group::Scope(p, _) => *p == path,
            })
        };
        let scopes: Vec<&str> = groups
            .iter()
            .filter_map(|g| match g {
                Group::Scope(prefix, _) => Some(*prefix),
                Group::Plain(..) => None,
            })
            .collect();
        assert!(scopes.contains(&"/v1/games/{id}"), "{scopes:?}");
        for route in route_table() {
            let sample = route.path.replace(['{', '}'], "");
            let (own, _) = split_at_parameter(route.path);
            for scope in scopes.iter().filter(|s| **s != own) {
                let base = &scope[..scope.find('{').expect("a scope ends with a parameter")];
                let taken = sample
                    .strip_prefix(base)
                    .is_some_and(|rest| !rest.is_empty() && !rest.starts_with('/'));
                assert!(
                    !taken || position(own) < position(scope),
                    "{} would be taken by the scope {scope}",
                    route.path
                );
            }
        }
    }
}
