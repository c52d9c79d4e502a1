//! How a game actor handles what players do around the moves: abort, takeback offers,
//! rematch offers and the chat.

use std::time::{Duration, Instant};

use actix::Context;
use chessd_core::Color;
use uuid::Uuid;

use super::GameActor;
use crate::game::{
    chat::{ChatLine, ChatLog, Room},
    clock::Clock,
    events::EventKind,
    offers::{abort_allowed, takeback_plies, takebacks_allowed, Offers},
    secrets::{Caller, KeptDigest},
    GameError,
};

/// How long an accepted rematch holds the game for its creation before another accept may try.
const REMATCH_HOLD: Duration = Duration::from_secs(30);

/// A game's offers and chat (boxed in the actor: most games have none).
#[derive(Debug, Default)]
pub(crate) struct InGame {
    offers: Offers,
    /// Since when an accepted rematch is being created.
    rematch_pending: Option<Instant>,
    chat: ChatLog,
}

impl GameActor {
    /// The game's takeback and rematch offers.
    pub(super) fn offers(&self) -> Offers {
        self.in_game
            .as_ref()
            .map(|g| g.offers.clone())
            .unwrap_or_default()
    }

    /// Sets the offers (a game back from the store).
    pub(super) fn set_offers(&mut self, offers: Offers) {
        if offers != Offers::default() {
            self.in_game_mut().offers = offers;
        }
    }

    fn in_game_mut(&mut self) -> &mut InGame {
        self.in_game.get_or_insert_with(Box::default)
    }

    /// Whether an engine (or chessd's Chess 2 player) plays a side.
    fn against_engine(&self) -> bool {
        !self.engine.seats.is_empty()
    }

    /// Whether an engine plays `side`.
    fn engine_plays(&self, side: Color) -> bool {
        self.engine.seats.iter().any(|(s, _)| *s == side)
    }

    /// Aborts the game (a seat, while [`abort_allowed`]).
    pub(super) fn abort(
        &mut self,
        caller: Caller,
        ctx: &mut Context<Self>,
    ) -> Result<(), GameError> {
        Self::seat_of(caller)?;
        if !abort_allowed(&self.game) {
            let why = if self.game.is_over() {
                "the game is over; it can no longer be aborted"
            } else {
                "a game can be aborted only before both sides have moved"
            };
            return Err(GameError::AbortNotAllowed(why.into()));
        }
        self.game.abort()?;
        self.in_game_mut().offers.takeback = None;
        self.end_without_move(Instant::now(), ctx);
        Ok(())
    }

    /// Why `by` may not take back now, if it may not; else the moves a takeback would undo.
    fn takeback_for(&self, by: Color) -> Result<usize, GameError> {
        if self.game.is_over() {
            return Err(GameError::TakebackNotAllowed(
                "the game is over; no move can be taken back".into(),
            ));
        }
        self.game.chess()?;
        if !takebacks_allowed(&self.game, self.players.as_ref().is_some_and(|p| p.rated)) {
            return Err(GameError::TakebackNotAllowed(
                "takebacks are for casual games only".into(),
            ));
        }
        takeback_plies(&self.game, by)
            .ok_or_else(|| GameError::TakebackNotAllowed("you have no move to take back".into()))
    }

    /// `by` offers a takeback: against an engine it is done at once; an offer of the opponent
    /// waiting is accepted.
    pub(super) fn offer_takeback(
        &mut self,
        caller: Caller,
        ctx: &mut Context<Self>,
    ) -> Result<(), GameError> {
        let by = Self::seat_of(caller)?;
        let plies = self.takeback_for(by)?;
        let waiting = self.offers().takeback;
        if waiting == Some(!by) {
            return self.accept_takeback(caller, ctx);
        }
        if self.engine_plays(!by) {
            return self.take_back(plies, ctx);
        }
        if waiting != Some(by) {
            self.in_game_mut().offers.takeback = Some(by);
            self.publish(EventKind::TakebackOffered { by }, ctx);
        }
        Ok(())
    }

    /// `by` accepts the opponent's takeback offer.
    pub(super) fn accept_takeback(
        &mut self,
        caller: Caller,
        ctx: &mut Context<Self>,
    ) -> Result<(), GameError> {
        let by = Self::seat_of(caller)?;
        if self.offers().takeback != Some(!by) {
            return Err(GameError::NoOffer(
                "there is no takeback offer from the opponent".into(),
            ));
        }
        let plies = self.takeback_for(!by)?;
        self.take_back(plies, ctx)
    }

    /// `by` declines the opponent's takeback offer.
    pub(super) fn decline_takeback(
        &mut self,
        caller: Caller,
        ctx: &mut Context<Self>,
    ) -> Result<(), GameError> {
        let by = Self::seat_of(caller)?;
        if self.offers().takeback != Some(!by) {
            return Err(GameError::NoOffer(
                "there is no takeback offer from the opponent".into(),
            ));
        }
        self.in_game_mut().offers.takeback = None;
        self.publish(EventKind::TakebackDeclined { by }, ctx);
        Ok(())
    }

    /// A move withdraws a takeback offer: the opponent's move declines it.
    pub(super) fn withdraw_takeback(&mut self, mover: Color, ctx: &mut Context<Self>) {
        let Some(offerer) = self.in_game.as_mut().and_then(|g| g.offers.takeback.take()) else {
            return;
        };
        if offerer != mover {
            self.publish(EventKind::TakebackDeclined { by: mover }, ctx);
        }
    }

    /// Takes back `plies` moves: the clocks keep the time each side has now, the side to move
    /// again has its clock running; clients reconnecting from before resynchronise.
    fn take_back(&mut self, plies: usize, ctx: &mut Context<Self>) -> Result<(), GameError> {
        let now = Instant::now();
        let times = self.clock.as_ref().map(|c| {
            (
                c.control(),
                c.remaining(Color::White, now),
                c.remaining(Color::Black, now),
            )
        });
        self.game.take_back(plies)?;
        self.clock = times.map(|(control, white, black)| {
            let mut clock = Clock::with_remaining(control, white, black);
            if self.game.has_started() {
                clock.start(self.game.to_act(), now);
            }
            clock
        });
        self.draw_offer = None;
        self.in_game_mut().offers.takeback = None;
        self.log.clear_history();
        let clocks = self.clock.as_ref().map(|c| c.view(now));
        self.publish(EventKind::taken_back(&self.game, plies, clocks), ctx);
        self.arm_flag_timer(ctx);
        Ok(())
    }

    /// Checks that `by` may ask a rematch: the game is over and no engine plays.
    fn rematch_allowed(&self) -> Result<(), GameError> {
        if !self.game.is_over() {
            return Err(GameError::GameNotOver(
                "a rematch is offered once the game is over".into(),
            ));
        }
        if self.against_engine() {
            return Err(GameError::RematchNotAllowed(
                "a game against an engine has no rematch; create a new game".into(),
            ));
        }
        Ok(())
    }

    /// `by` offers a rematch, its seat in the rematch proven by the secret of digest `seat`.
    /// Nothing changes when the rematch is made already or an offer waits (the opponent's is
    /// accepted by the API, which sees it in the answer).
    pub(super) fn offer_rematch(
        &mut self,
        caller: Caller,
        seat: KeptDigest,
        ctx: &mut Context<Self>,
    ) -> Result<(), GameError> {
        let by = Self::seat_of(caller)?;
        self.rematch_allowed()?;
        let offers = self.offers();
        if offers.rematch_game.is_some() || offers.rematch.is_some() {
            return Ok(());
        }
        self.in_game_mut().offers.rematch = Some((by, seat));
        self.publish(EventKind::RematchOffered { by, seat }, ctx);
        Ok(())
    }

    /// `by` starts accepting the opponent's rematch offer: the game is held for this accept
    /// until the rematch is made or fails (or [`REMATCH_HOLD`] passes). Once made, an accept
    /// changes nothing (the answer names the rematch).
    pub(super) fn accept_rematch(&mut self, caller: Caller) -> Result<(), GameError> {
        let by = Self::seat_of(caller)?;
        self.rematch_allowed()?;
        let offers = self.offers();
        if offers.rematch_game.is_some() {
            return Ok(());
        }
        if !matches!(offers.rematch, Some((offerer, _)) if offerer == !by) {
            return Err(GameError::NoOffer(
                "there is no rematch offer from the opponent".into(),
            ));
        }
        let state = self.in_game_mut();
        if state
            .rematch_pending
            .is_some_and(|t| t.elapsed() < REMATCH_HOLD)
        {
            return Err(GameError::InProgress(
                "the rematch is being created; ask again in a moment".into(),
            ));
        }
        state.rematch_pending = Some(Instant::now());
        Ok(())
    }

    /// The rematch an accept created: kept (and journaled) once.
    pub(super) fn rematch_made(
        &mut self,
        caller: Caller,
        game: Uuid,
        ctx: &mut Context<Self>,
    ) -> Result<(), GameError> {
        Self::seat_of(caller)?;
        if self.offers().rematch_game.is_some() {
            return Ok(());
        }
        let state = self.in_game_mut();
        state.rematch_pending = None;
        state.offers.rematch = None;
        state.offers.rematch_game = Some(game);
        self.publish(EventKind::Rematch { game }, ctx);
        Ok(())
    }

    /// The rematch an accept was creating failed: another accept may try.
    pub(super) fn rematch_failed(&mut self, caller: Caller) -> Result<(), GameError> {
        Self::seat_of(caller)?;
        if let Some(state) = self.in_game.as_mut() {
            state.rematch_pending = None;
        }
        Ok(())
    }

    /// `by` declines the opponent's rematch offer.
    pub(super) fn decline_rematch(
        &mut self,
        caller: Caller,
        ctx: &mut Context<Self>,
    ) -> Result<(), GameError> {
        let by = Self::seat_of(caller)?;
        let offers = self.offers();
        if offers.rematch_game.is_some()
            || !matches!(offers.rematch, Some((offerer, _)) if offerer == !by)
        {
            return Err(GameError::NoOffer(
                "there is no rematch offer from the opponent".into(),
            ));
        }
        self.in_game_mut().offers.rematch = None;
        self.publish(EventKind::RematchDeclined { by }, ctx);
        Ok(())
    }

    /// Refuses chat in a game against an engine.
    fn chat_allowed(&self) -> Result<(), GameError> {
        if self.against_engine() {
            return Err(GameError::ChatDisabled(
                "chat is off in games against an engine".into(),
            ));
        }
        Ok(())
    }

    /// A chat line from `caller`, kept in its room's recent lines and sent to that room's
    /// subscribers only (transient: it bumps no version and is not journaled).
    pub(super) fn chat(
        &mut self,
        caller: Caller,
        text: String,
        keep: usize,
    ) -> Result<ChatLine, GameError> {
        self.chat_allowed()?;
        let line = ChatLine::new(caller, text);
        self.in_game_mut().chat.keep(line.clone(), keep);
        let frame = self.log.transient(&EventKind::Chat(line.clone()));
        let room = line.room;
        self.subscribers
            .retain(|(_, r, tx)| *r != room || tx.try_send(frame.clone()).is_ok());
        Ok(line)
    }

    /// The recent lines of `caller`'s room.
    pub(super) fn chat_log(&self, caller: Caller) -> Result<Vec<ChatLine>, GameError> {
        self.chat_allowed()?;
        Ok(self
            .in_game
            .as_ref()
            .map(|g| g.chat.recent(Room::of(caller)))
            .unwrap_or_default())
    }
}
