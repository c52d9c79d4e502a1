//! What can be asked of a game: the requests a [`GameHandle`](super::GameHandle) sends to a
//! game's actor (one command enum, each with its reply channel), who may ask them, and the
//! replies.

use std::{sync::Arc, time::Duration};

use chessd_core::{
    game::{DrawPolicy, Game},
    Color, Role, Square,
};
use chessd_protocol::uci::GoLimits;
use tokio::sync::{mpsc, oneshot};

use crate::{
    admission::ClientKey,
    game::{
        engine_state::Opponent,
        events::EventFrame,
        idempotency::{Acted, Conditions, KeptAnswer},
        replies::{
            AnalysisReport, AnalysisStarted, BestMoveReply, EngineView, GameSnapshot, PlayReply,
        },
        secrets::Caller,
        state::SavedState,
        GameError,
    },
};

/// The secret a request needs, checked in one place before the request is handled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// Anyone, spectators included.
    Anyone,
    /// A seat's or the admin's.
    Player,
    /// A seat's.
    Seat,
    /// The admin's.
    Admin,
}

impl Need {
    /// Whether `caller` may make a request that needs this.
    pub fn allows(self, caller: Caller) -> bool {
        match self {
            Need::Anyone => true,
            Need::Player => caller != Caller::Anonymous,
            Need::Seat => matches!(caller, Caller::Seat(_)),
            Need::Admin => caller == Caller::Admin,
        }
    }

    /// Why a caller this does not allow is refused: `Unauthorized` when the request carried
    /// no secret at all, `Forbidden` when it carried another.
    pub fn refusal(self, secret_given: bool) -> GameError {
        let message = match self {
            Need::Anyone => "refused",
            Need::Player => {
                "this action needs a player's or the admin's secret (Authorization: Bearer <secret>)"
            }
            Need::Seat => "this action needs a player's seat secret",
            Need::Admin => "this action needs the game's admin secret",
        };
        if secret_given {
            GameError::forbidden(message)
        } else {
            GameError::Unauthorized(message.into())
        }
    }
}

/// A move as a client sends it.
#[derive(Clone, Debug)]
pub enum MoveInput {
    /// UCI text.
    Uci(String),
    /// SAN text.
    San(String),
    /// Square indices (a1 = 0 … h8 = 63) with an optional promotion.
    Squares {
        /// Origin.
        from: Square,
        /// Target.
        to: Square,
        /// Promotion piece.
        promotion: Option<Role>,
    },
}

impl MoveInput {
    /// Plays the move on `game` (unchanged when the move is refused).
    pub fn play_on(
        &self,
        game: &mut Game,
    ) -> Result<chessd_core::game::PlayedMove, chessd_core::game::GameError> {
        match self {
            MoveInput::Uci(text) => game.play_uci(text),
            MoveInput::San(text) => game.play_san(text),
            MoveInput::Squares {
                from,
                to,
                promotion,
            } => game.play_squares(*from, *to, *promotion),
        }
    }
}

/// A Chess 2 duel step as a client asks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DuelStep {
    /// The defender starts the duel.
    Challenge,
    /// The defender lets the capture happen.
    Decline,
    /// A hidden bid.
    Bid {
        /// The side that bids: a seat's own (`None`, or the same side); the admin must name it.
        side: Option<Color>,
        /// Stones, 0 to 2.
        stones: u8,
        /// The attacker's choice if both bid 0 (see [`chessd_core::chess2::Chess2Action`]).
        gain: Option<bool>,
    },
}

/// Changes to a game's options (absent fields stay as they are).
#[derive(Clone, Debug, Default)]
pub struct OptionsPatch {
    /// New idle timeout in seconds (0 = never).
    pub idle_timeout_secs: Option<u64>,
    /// New draw policy.
    pub draw_policy: Option<DrawPolicy>,
}

/// Everything a client can ask a game to do with its moves and result.
#[derive(Clone, Debug)]
pub enum Action {
    /// Play a move (side to move's seat or admin).
    Move(MoveInput),
    /// A Chess 2 duel step: the defender's challenge or decline, or a side's bid (a seat for
    /// itself, or the admin).
    Duel(DuelStep),
    /// Resign (a seat resigns itself; the admin names the side).
    Resign(Option<Color>),
    /// Offer a draw (a seat).
    OfferDraw,
    /// Accept the opponent's draw offer (a seat).
    AcceptDraw,
    /// Decline the opponent's draw offer (a seat).
    DeclineDraw,
    /// Claim a draw by threefold repetition or the fifty-move rule (claims policy).
    ClaimDraw,
    /// Abort the game in its first moves (a seat).
    Abort,
    /// Offer to take back the last move (a seat); accepts the opponent's offer if there is one.
    OfferTakeback,
    /// Accept the opponent's takeback offer (a seat).
    AcceptTakeback,
    /// Decline the opponent's takeback offer (a seat).
    DeclineTakeback,
    /// Offer a rematch of a finished game (a seat), with the digest of the secret that will
    /// prove the offerer's seat in the rematch.
    OfferRematch(crate::game::secrets::KeptDigest),
    /// Start accepting the opponent's rematch offer (a seat): the game is held for this accept
    /// until the rematch is made ([`Action::RematchMade`]) or fails ([`Action::RematchFailed`]).
    AcceptRematch,
    /// Decline the opponent's rematch offer (a seat).
    DeclineRematch,
    /// The rematch an accept created (a seat).
    RematchMade(uuid::Uuid),
    /// The rematch an accept was creating could not be created (a seat).
    RematchFailed,
    /// Set a draw with a note (admin).
    SetDraw(Option<String>),
    /// Set a winner with a note (admin).
    SetWinner(Color, Option<String>),
    /// Re-initialise from a FEN (admin).
    LoadFen(String),
    /// Re-initialise from a PGN (admin).
    LoadPgn(String),
    /// Re-initialise from a saved state (admin).
    Restore(Box<SavedState>),
    /// Change options (admin).
    SetOptions(OptionsPatch),
    /// Stop the game's actor (admin).
    Stop,
}

impl Action {
    /// The secret this action needs (finer rules, such as whose turn it is, follow).
    pub fn need(&self) -> Need {
        match self {
            Action::Move(_) | Action::Duel(_) | Action::Resign(_) | Action::ClaimDraw => {
                Need::Player
            }
            Action::OfferDraw
            | Action::AcceptDraw
            | Action::DeclineDraw
            | Action::Abort
            | Action::OfferTakeback
            | Action::AcceptTakeback
            | Action::DeclineTakeback
            | Action::OfferRematch(_)
            | Action::AcceptRematch
            | Action::DeclineRematch
            | Action::RematchMade(_)
            | Action::RematchFailed => Need::Seat,
            Action::SetDraw(_)
            | Action::SetWinner(..)
            | Action::LoadFen(_)
            | Action::LoadPgn(_)
            | Action::Restore(_)
            | Action::SetOptions(_)
            | Action::Stop => Need::Admin,
        }
    }

    /// Whether the action replaces or advances the game (and so waits for an engine choosing
    /// its move).
    pub fn changes_game(&self) -> bool {
        matches!(
            self,
            Action::Move(_)
                | Action::Duel(_)
                | Action::OfferTakeback
                | Action::AcceptTakeback
                | Action::LoadFen(_)
                | Action::LoadPgn(_)
                | Action::Restore(_)
        )
    }
}

/// What a client can ask of a game's engine.
#[derive(Clone, Debug)]
pub enum EngineAction {
    /// Attach the configured engine `name`, started for `client` (replacing any other),
    /// optionally resetting the game to `fen` first (admin).
    Attach {
        /// Whose engine-session quota the engine counts against.
        client: ClientKey,
        /// The configured engine's name.
        name: String,
        /// Reset the game to this FEN first.
        fen: Option<String>,
    },
    /// Read the attached engine.
    View,
    /// Detach the engine (`quit`, then kill).
    Detach,
    /// The best move of the current position as a hint (the game does not change).
    BestMove {
        /// Search limits (empty: `movetime 1000`).
        limits: GoLimits,
        /// The whole time allowed, overriding the configured allowance.
        timeout: Option<Duration>,
    },
    /// Optionally play the caller's move, then let the engine answer; both are applied.
    Play {
        /// The player's move first.
        player_move: Option<MoveInput>,
        /// Search limits (empty: `movetime 1000`).
        limits: GoLimits,
        /// An idempotency key, an expected version.
        conditions: Conditions<PlayReply>,
    },
    /// Reset the game to a position and tell the engine (admin).
    SetPosition {
        /// The FEN (default: the standard start).
        fen: Option<String>,
        /// UCI moves from there.
        moves: Vec<String>,
    },
    /// Send the game's position to the engine and wait for `readyok`.
    Sync,
    /// One raw UCI line, checked against the allow-list (the operator's token is checked by
    /// the API before this is sent).
    Raw {
        /// The line as the operator wrote it.
        line: String,
        /// Wait until written rather than fire and forget.
        wait: bool,
    },
    /// Start (or restart) an analysis.
    StartAnalysis(AnalysisRequest),
    /// Stop the analysis and return its last lines.
    StopAnalysis,
}

/// What to analyse, how, and with which engine.
#[derive(Clone, Debug)]
pub struct AnalysisRequest {
    /// Lines to search (default 1).
    pub multipv: Option<u32>,
    /// Search limits (default `infinite`).
    pub limits: Option<GoLimits>,
    /// The configured engine to analyse with, started when it is not the one attached; `None`:
    /// the attached engine (for a finished game without one, the default engine is started).
    pub engine: Option<String>,
    /// Whose engine-session quota an engine started for the analysis counts against.
    pub client: ClientKey,
    /// The position after this many plies of the game; `None`: the current position, followed
    /// as the game goes on.
    pub ply: Option<usize>,
}

impl EngineAction {
    /// The secret this engine action needs.
    pub fn need(&self) -> Need {
        match self {
            EngineAction::View | EngineAction::Raw { .. } => Need::Anyone,
            EngineAction::Attach { fen: Some(_), .. } | EngineAction::SetPosition { .. } => {
                Need::Admin
            }
            _ => Need::Player,
        }
    }
}

/// The answer to a subscription.
#[derive(Debug)]
pub struct Subscription {
    /// Identifies the subscription, to unsubscribe.
    pub id: u64,
    /// Who the subscriber is.
    pub caller: Caller,
    /// The state now.
    pub snapshot: GameSnapshot,
    /// The missed events, or `None` when the client must resynchronise from `snapshot`.
    pub missed: Option<Vec<Arc<EventFrame>>>,
}

/// Where a request's answer goes.
pub type Reply<T> = oneshot::Sender<Result<T, GameError>>;

/// One request to a game's actor, with the secret it was made with. The actor handles this
/// one message type: it establishes the caller once, checks the request's [`Need`], and
/// answers on the request's channel (at once, or when an engine search ends).
pub struct Envelope {
    /// The bearer secret, if any.
    pub token: Option<String>,
    /// What is asked.
    pub request: Request,
}

impl actix::Message for Envelope {
    type Result = ();
}

/// Every request a game's actor answers.
pub enum Request {
    /// The current state.
    Snapshot(Reply<GameSnapshot>),
    /// The raw saved state.
    SavedState(Reply<SavedState>),
    /// A game action, under conditions (an idempotency key, an expected version).
    Act(Action, Conditions, Reply<Acted>),
    /// Receive the game's events from now on (`since`: the events after a version first).
    Subscribe {
        /// The last version the subscriber saw, if reconnecting.
        since: Option<u64>,
        /// Where events go; a subscriber that cannot keep up is dropped.
        events: mpsc::Sender<Arc<EventFrame>>,
        /// The answer.
        reply: Reply<Subscription>,
    },
    /// Stop receiving events.
    Unsubscribe(u64),
    /// Leave memory for this reason (the server shuts down, the game moved to another node);
    /// a stored game stays in the store.
    Leave(crate::game::hooks::StopReason),
    /// Engine work.
    Engine(EngineAction, Reply<EngineReply>),
    /// Only check that the secret meets a need (before a route reports a malformed body, so
    /// that a stranger always learns `forbidden` first).
    Authorize(Need, Reply<()>),
    /// Write a chat message (anyone: a seat in the players' room, others in the spectators').
    Chat {
        /// The text, checked for length by the caller.
        text: String,
        /// Lines each room keeps (`chat.history`).
        keep: usize,
        /// The line as sent.
        reply: Reply<crate::game::chat::ChatLine>,
    },
    /// The recent lines of the caller's room.
    ChatLog(Reply<Vec<crate::game::chat::ChatLine>>),
    /// Who the secret makes the caller.
    Identify(Reply<Caller>),
}

impl Request {
    /// The secret this request needs.
    pub fn need(&self) -> Need {
        match self {
            Request::Act(action, ..) => action.need(),
            Request::Engine(action, _) => action.need(),
            Request::Authorize(need, _) => *need,
            _ => Need::Anyone,
        }
    }
}

/// The answer to an engine action.
#[derive(Clone, Debug)]
pub enum EngineReply {
    /// The engine now attached, or as it is.
    View(EngineView),
    /// Done, nothing to report (detach, raw line).
    Done,
    /// A best-move hint.
    BestMove(BestMoveReply),
    /// The moves played.
    Play(PlayReply),
    /// The game after a reset or sync.
    Snapshot(Box<GameSnapshot>),
    /// An analysis started.
    AnalysisStarted(AnalysisStarted),
    /// An analysis stopped.
    AnalysisReport(AnalysisReport),
    /// The first answer to a keyed request made again.
    Replayed(KeptAnswer),
}

/// An engine opponent for a new game: the configured engine and how it plays.
#[derive(Clone, Debug)]
pub struct OpponentSpec {
    /// The configured engine's name.
    pub engine: String,
    /// The side it plays and its limits.
    pub opponent: Opponent,
}
