//! Pondering: an engine opponent configured with `ponder = true` thinks on its opponent's time
//! about the reply it expects (the `ponder` move of its last `bestmove`). UCI engines only:
//! XBoard has no `ponderhit`.
//!
//! - After the opponent engine moves, it is sent the position with the expected reply played
//!   and `go ponder` with its usual limits (the clocks, or its `go`). The game is not locked:
//!   the player moves as usual, and hints and analyses wait (`engine_busy`).
//! - When the player's move is the expected one, the engine gets `ponderhit`: the ponder search
//!   becomes its move search, bounded by the search's own time plus `search_timeout_ms` (then it
//!   is told to `stop` and its move is taken).
//! - Any other move (or a reset) is a miss: the ponder search is stopped and its result thrown
//!   away, and a normal search of the real position follows.
//! - Clocks need nothing special: the engine's clock runs only on its own turn, from the
//!   player's move on, whatever it thought before.
//! - A game that ends (or an engine that is detached) ends the ponder search with it.
//! - In a game two engines play, neither ponders: each would think on the other's time, on
//!   the same machine, as engine matches are run with pondering off.

use std::time::Duration;

use actix::{fut::ActorFutureExt, AsyncContext, Context, WrapFuture};
use chessd_core::Color;
use chessd_protocol::uci::{GoLimits, GuiCommand};

use super::GameActor;

use crate::{
    config::EngineProtocol,
    engine::{
        handle::{SearchRequest, SearchResult},
        EngineError,
    },
    game::engine_state::{allowance, Busy, Pondering},
};

impl GameActor {
    /// Starts pondering on `expected` (the engine's `ponder` move) when the engine opponent
    /// of attachment `generation` is configured to and the move is legal now.
    pub(super) fn start_ponder(
        &mut self,
        generation: u64,
        expected: Option<String>,
        ctx: &mut Context<Self>,
    ) {
        let (Some(expected), Some(opponent)) = (expected, self.engine.opponent.clone()) else {
            return;
        };
        if self.engine.rival.is_some() {
            // Two engines play: neither thinks on the other's time (they share the machine).
            return;
        }
        let (Ok(game), Ok(mut position)) = (self.game.chess(), self.position_spec()) else {
            return; // no engine plays Chess 2
        };
        let from = *game.position();
        if self.game.is_over() || from.turn() == opponent.plays {
            return;
        }
        let Ok(mv) = from.parse_uci(&expected) else {
            return;
        };
        let after = from.after(mv);
        position.moves.push(from.uci(mv));
        let limits = GoLimits {
            ponder: true,
            ..self.opponent_limits(&opponent)
        };
        self.engine.next_ponder += 1;
        let seq = self.engine.next_ponder;
        let Some(a) = self.engine.current(generation) else {
            return;
        };
        // XBoard has no `ponderhit` (its engines ponder by themselves, or not): UCI only.
        let uci = a.engine.identity().protocol == EngineProtocol::Uci;
        if !a.config.ponder || !uci || !a.is_idle() {
            return;
        }
        a.busy = Some(Busy::Ponder);
        a.root = after;
        a.pondering = Some(Pondering {
            seq,
            expected: from.uci(mv),
            from,
            hit: false,
            limits: limits.clone(),
        });
        let request = SearchRequest {
            position,
            limits,
            multipv: None,
            // No deadline while pondering; after `ponderhit` the actor sets one.
            timeout: None,
        };
        let search = a.engine.search(request);
        ctx.spawn(search.into_actor(self).map(move |result, act, ctx| {
            act.ponder_ended(generation, seq, result, ctx);
        }));
        let longest = Duration::from_secs(self.env.engines.config().max_ponder_secs.max(1));
        ctx.run_later(longest, move |act, ctx| act.ponder_too_long(seq, ctx));
    }

    /// The player has thought longer than `engines.max_ponder_secs`: the engine stops pondering
    /// (as on a miss); when the player moves, it searches the real position.
    fn ponder_too_long(&mut self, seq: u64, ctx: &mut Context<Self>) {
        let pondering = self
            .engine
            .attached
            .as_ref()
            .and_then(|a| a.pondering.as_ref());
        if pondering.is_some_and(|p| p.seq == seq && !p.hit) {
            self.drop_ponder(ctx);
        }
    }

    /// Stops the ponder search and forgets it: its result will be thrown away.
    fn drop_ponder(&mut self, ctx: &mut Context<Self>) {
        let Some(a) = self.engine.attached.as_mut() else {
            return;
        };
        a.pondering = None;
        a.busy = None;
        let engine = a.engine.clone();
        ctx.spawn(
            async move {
                let _ = engine.stop().await;
            }
            .into_actor(self),
        );
    }

    /// What the engine opponent does about its ponder search now that the game changed:
    /// `ponderhit` when the expected reply was played, else it stops pondering (a miss). Returns
    /// whether the ponder search is now the engine's move (nothing more to start).
    pub(super) fn follow_ponder(&mut self, ctx: &mut Context<Self>) -> bool {
        let over = self.game.is_over();
        let Ok(game) = self.game.chess() else {
            return false; // no engine plays Chess 2
        };
        let position = *game.position();
        let last = game.last_move().map(|mv| game.start_position().uci(mv));
        let Some(a) = self.engine.attached.as_mut() else {
            return false;
        };
        let Some(p) = a.pondering.as_mut() else {
            return false;
        };
        if p.hit {
            return true;
        }
        if !over && position == p.from {
            // The player has not moved yet.
            return true;
        }
        let hit = !over && a.root == position && last.as_deref() == Some(p.expected.as_str());
        if !hit {
            // A miss (or the game ended or was replaced): stop it, forget its result.
            self.drop_ponder(ctx);
            crate::metrics::count_ponder(false);
            return false;
        }
        p.hit = true;
        let seq = p.seq;
        let white = position.turn() == Color::White;
        // Its time bound now is that of its limits without `ponder`.
        let limits = GoLimits {
            ponder: false,
            ..p.limits.clone()
        };
        let limit = allowance(&a.config, &limits, white, None);
        a.busy = Some(Busy::Move);
        if let Err(e) = a.engine.cast(GuiCommand::PonderHit.to_string()) {
            let generation = a.generation;
            self.report_engine_error(generation, &e.into());
            return true;
        }
        crate::metrics::count_ponder(true);
        if let Some(limit) = limit {
            ctx.run_later(limit, move |act, ctx| act.ponder_overdue(seq, ctx));
        }
        true
    }

    /// The engine overran its move's allowance after `ponderhit`: tell it to stop; the move it
    /// then sends is played.
    fn ponder_overdue(&mut self, seq: u64, ctx: &mut Context<Self>) {
        let Some(a) = self.engine.attached.as_ref() else {
            return;
        };
        if a.pondering.as_ref().is_some_and(|p| p.seq == seq && p.hit) {
            let engine = a.engine.clone();
            ctx.spawn(
                async move {
                    let _ = engine.stop().await;
                }
                .into_actor(self),
            );
        }
    }

    /// A ponder search ended: after a hit its move is the engine's move; otherwise (a miss, a
    /// stop) its result is thrown away.
    fn ponder_ended(
        &mut self,
        generation: u64,
        seq: u64,
        result: Result<SearchResult, EngineError>,
        ctx: &mut Context<Self>,
    ) {
        let Some(a) = self.engine.current(generation) else {
            return;
        };
        let Some(p) = a.pondering.as_ref().filter(|p| p.seq == seq) else {
            return;
        };
        let hit = p.hit;
        a.pondering = None;
        a.busy = None;
        if !hit {
            // It ended before the player moved (the engine stopped by itself): nothing to play.
            self.engine_turn(ctx);
            return;
        }
        let Ok(game) = self.game.chess() else {
            return; // no engine plays Chess 2
        };
        let root = *game.position();
        let ponder = result.as_ref().ok().and_then(|r| r.ponder.clone());
        match self.apply_engine_move(generation, &root, result, ctx) {
            Ok(_) => {
                self.start_ponder(generation, ponder, ctx);
                self.engine_turn(ctx);
            }
            Err(e) => self.report_engine_error(generation, &e),
        }
    }
}
