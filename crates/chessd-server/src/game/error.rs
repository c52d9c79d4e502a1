//! Why a game refused a request: the game layer's own error, with no knowledge of HTTP (the
//! API maps it to a status and a stable code). A refused request changes nothing.

use chessd_core::{Color, FenError};

use crate::{admission::AdmissionError, engine::EngineError};

/// A refused game request. Every variant carries or builds the message people read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// No game with that id (or it has stopped).
    #[error("no game with id {0}")]
    NotFound(String),
    /// The request carried no secret, and this action needs one.
    #[error("{0}")]
    Unauthorized(String),
    /// The secret given does not allow this action.
    #[error("{0}")]
    Forbidden(String),
    /// A seat acted out of turn.
    #[error("it is {0}'s move")]
    NotYourTurn(Color),
    /// The rules refused a move or a result (illegal or ambiguous move, game over, result
    /// already set, nothing to claim).
    #[error(transparent)]
    Rules(#[from] chessd_core::game::GameError),
    /// A Chess 2 game refused a step (an illegal move, a duel step out of turn, a bid not
    /// allowed, a duel waiting).
    #[error(transparent)]
    Chess2(#[from] chessd_core::chess2::Chess2GameError),
    /// A Chess 2 move string that does not read.
    #[error("{0}")]
    Chess2Notation(String),
    /// A request made for the other variant (a FEN for a Chess 2 game, a duel step in a
    /// standard game).
    #[error("{0}")]
    WrongVariant(String),
    /// The side to move ran out of time; the game is over.
    #[error("{0} ran out of time; the game is over")]
    Flagged(Color),
    /// A change a finished game cannot take.
    #[error("{0}")]
    Finished(String),
    /// A FEN that does not read or describes an impossible position.
    #[error("invalid FEN: {0}")]
    Fen(#[from] FenError),
    /// A Chess 2 EPD that does not read or describes an impossible position.
    #[error("invalid EPD: {0}")]
    InvalidEpd(String),
    /// A PGN that does not read.
    #[error("{0}")]
    Pgn(String),
    /// A saved state that does not describe a valid game.
    #[error("{0}")]
    InvalidState(String),
    /// A request that is malformed for this game (e.g. an admin resigning without a side).
    #[error("{0}")]
    InvalidRequest(String),
    /// An accept or decline with no draw offer from the opponent.
    #[error("there is no draw offer from the opponent")]
    NoDrawOffer,
    /// An abort after the first moves (or of a finished game).
    #[error("{0}")]
    AbortNotAllowed(String),
    /// An accept or decline with no such offer from the opponent (takeback, rematch).
    #[error("{0}")]
    NoOffer(String),
    /// A takeback this game does not allow (rated, nothing to take back, a finished game).
    #[error("{0}")]
    TakebackNotAllowed(String),
    /// A request only a finished game takes (a rematch).
    #[error("{0}")]
    GameNotOver(String),
    /// A rematch this game does not allow (against an engine).
    #[error("{0}")]
    RematchNotAllowed(String),
    /// Chat is off in this game (against an engine), or the caller may not write in that room.
    #[error("{0}")]
    ChatDisabled(String),
    /// A chat message over `chat.max_length` characters, or empty.
    #[error("{0}")]
    ChatTooLong(String),
    /// The server holds its limit of games.
    #[error("the server holds its limit of {0} games")]
    TooManyGames(usize),
    /// The server is shutting down.
    #[error("the server is shutting down")]
    ShuttingDown,
    /// A webhook URL the configuration does not allow.
    #[error("{0}")]
    WebhookNotAllowed(String),
    /// The game has no engine attached.
    #[error("no engine is attached to this game (POST /v1/games/{{id}}/engine)")]
    NoEngine,
    /// Engine opponents that cannot play one game together (two for the same side).
    #[error("{0}")]
    Opponents(String),
    /// The game's engine is busy with another request.
    #[error("{0}")]
    EngineBusy(String),
    /// The engine session failed.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The client may not spend more (its rate or quota, or the server's totals).
    #[error(transparent)]
    Admission(#[from] AdmissionError),
    /// The store did not confirm a change: it may or may not have been kept (the game comes
    /// back as the store holds it at the next request).
    #[error(
        "the store did not confirm the change, so it may or may not have been kept (send the \
         request again with the same Idempotency-Key to know): {0}"
    )]
    Store(String),
    /// This node does not own the game (in a cluster, while its shard moves between nodes).
    #[error("{0}")]
    Unavailable(String),
    /// An idempotency key sent again with another request (route or body).
    #[error("the idempotency key '{0}' was used for another request; use a new key")]
    KeyReused(String),
    /// A request made on a version of the game that is no longer current (`If-Match`).
    #[error("the game is at version {current}, not {expected}: read it again before changing it")]
    VersionMismatch {
        /// The version the request expected.
        expected: u64,
        /// The game's version now.
        current: u64,
    },
    /// The first request with this idempotency key is still being carried out.
    #[error("{0}")]
    InProgress(String),
    /// A request over a configured limit (a search's time over `engines.max_movetime_ms`).
    #[error("{0}")]
    LimitExceeded(String),
    /// Something went wrong inside the server.
    #[error("{0}")]
    Internal(String),
}

impl GameError {
    /// `forbidden` with a message.
    pub fn forbidden(message: impl Into<String>) -> GameError {
        GameError::Forbidden(message.into())
    }

    /// `engine_busy` with a message.
    pub fn busy(message: impl Into<String>) -> GameError {
        GameError::EngineBusy(message.into())
    }

    /// `invalid_request` with a message.
    pub fn invalid(message: impl Into<String>) -> GameError {
        GameError::InvalidRequest(message.into())
    }

    /// The rules' `game_over` for a finished game with this status.
    pub fn over(status: &chessd_core::game::Status) -> GameError {
        GameError::Rules(chessd_core::game::GameError::GameOver(status.clone()))
    }
}

impl From<crate::store::StoreError> for GameError {
    fn from(e: crate::store::StoreError) -> GameError {
        GameError::Store(e.to_string())
    }
}
