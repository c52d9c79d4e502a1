//! The one error type every request can end in: a stable `code`, a human `message`, and the HTTP
//! status it maps to. Serialised as `{"error": {"code": "...", "message": "..."}}` (an illegal
//! move adds `"reason"`). This is the one table from the layers' errors ([`GameError`],
//! [`EngineError`], [`JobError`], [`AdmissionError`]) to HTTP: no other module knows a status.

use actix_web::{http::StatusCode, HttpResponse, ResponseError};
use serde::Serialize;

use crate::{admission::AdmissionError, engine::EngineError, game::GameError, jobs::JobError};

/// Stable error codes; the README documents each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The request body or parameters are malformed, of the wrong type, or have unknown fields.
    InvalidRequest,
    /// The body is larger than `limits.max_body_bytes`.
    PayloadTooLarge,
    /// A FEN could not be parsed or describes an impossible position.
    InvalidFen,
    /// A PGN could not be read.
    InvalidPgn,
    /// A move is not legal (or not a move at all).
    IllegalMove,
    /// SAN that matches several legal moves.
    AmbiguousMove,
    /// A move or seat action by the side not to move.
    NotYourTurn,
    /// The game is over; moves are refused.
    GameOver,
    /// A result was already set.
    AlreadyHasStatus,
    /// No game with that id (or it has stopped).
    GameNotFound,
    /// The request carries no secret and this action needs one (`Authorization: Bearer`).
    Unauthorized,
    /// A wrong secret for this action (or the caller's role does not allow it).
    Forbidden,
    /// A saved state that does not describe a valid game.
    InvalidState,
    /// No draw can be claimed or accepted now.
    NoDrawToClaim,
    /// The server holds `limits.max_games` games already.
    TooManyGames,
    /// A webhook URL whose host is not allowed in the configuration.
    WebhookNotAllowed,
    /// No such route.
    NotFound,
    /// The route exists but not with that method.
    MethodNotAllowed,
    /// The server is shutting down.
    ShuttingDown,
    /// The store did not confirm a change: it may or may not have been kept.
    StoreUnavailable,
    /// The game's shard is moving between cluster nodes (a failover or a node joining).
    GameUnavailable,
    /// The request names an engine that is not in the configuration.
    EngineNotFound,
    /// The game has no engine attached.
    NoEngine,
    /// The game's engine is already searching for another request.
    EngineBusy,
    /// The engine process exited or closed its connection; the game is unchanged.
    EngineDied,
    /// The engine could not be started or connected to within its connect timeout.
    EngineUnreachable,
    /// The engine did not complete the UCI handshake (`uciok`/`readyok`) in time.
    EngineHandshakeFailed,
    /// The engine answered with a move that is not legal; it was not applied.
    EngineIllegalMove,
    /// The engine did not answer before the request's deadline; it was told to stop.
    EngineTimeout,
    /// No perft or puzzle job with that id (or it was forgotten).
    JobNotFound,
    /// A job parameter is over a configured limit (depth, threads, hash, mate length, time).
    LimitExceeded,
    /// The server already runs or queues `jobs.max_jobs` jobs.
    TooManyJobs,
    /// The client went over a rate (`[quotas]`); the answer carries `Retry-After`.
    RateLimited,
    /// The client holds its quota of games, engine sessions, jobs, sockets or exports
    /// (`[quotas]`).
    QuotaExceeded,
    /// The server runs `engines.max_processes` engine sessions already.
    TooManyEngines,
    /// The server holds `websocket.max_connections` WebSocket connections already.
    TooManyConnections,
    /// The server streams `limits.max_exports` game exports already.
    TooManyExports,
    /// None of the media types the request's `Accept` header allows can be produced.
    NotAcceptable,
    /// This server needs an API key (`X-API-Key`) for this request, or the key is unknown.
    ApiKeyRequired,
    /// The route needs the operator token and none is configured (`auth.operator_token`).
    OperatorDisabled,
    /// A raw UCI line outside the allow-list, or with values outside the engine's options.
    CommandRefused,
    /// The engine cannot play what was asked (Chess960 without `UCI_Chess960`, a variant it
    /// does not list).
    EngineUnsupported,
    /// The work API needs a cluster node and configured worker tokens (`auth.worker_tokens`).
    WorkDisabled,
    /// A shared perft task is not open any more (done, or its job ended, or leased again).
    TaskGone,
    /// A work API submit or renewal names a lease the worker's token does not hold (never
    /// leased, another worker's, or ended).
    LeaseNotHeld,
    /// A job ran past `jobs.max_run_secs` and was stopped (a failed job's error).
    JobTimedOut,
    /// A remote worker's result differed from the node's own count of the same task (a failed
    /// job's error).
    ResultMismatch,
    /// Engine opponents that cannot play one game together (two for the same side).
    InvalidOpponents,
    /// A request for the other variant (a FEN or an engine for a Chess 2 game, a duel step in
    /// a standard game).
    WrongVariant,
    /// Chess 2: a move while a duel waits to be settled.
    DuelPending,
    /// Chess 2: a duel step (challenge, decline, bid) with no duel waiting for it.
    NoDuel,
    /// Chess 2: a second bid by the same side in one duel.
    AlreadyBid,
    /// Chess 2: a bid over the side's stones, or not the 1 a defender facing an attacker
    /// without stones must bid.
    InvalidBid,
    /// An `Idempotency-Key` (or WebSocket `ack`) sent again with another request.
    IdempotencyKeyReused,
    /// The first request with this idempotency key is still being carried out.
    RequestInProgress,
    /// `If-Match` (or a body's `version`) names a version the game has moved on from.
    VersionMismatch,
    /// The request's body came too slowly.
    RequestTimeout,
    /// A forwarded request may or may not have been carried out (the node serving the game
    /// stopped answering after it was sent): read the game, or retry with the same key.
    OutcomeUnknown,
    /// No open seek with that id (or it expired).
    SeekNotFound,
    /// The seek is no longer open: another player accepted it (or is accepting it).
    SeekTaken,
    /// A player tried to accept their own seek.
    OwnSeek,
    /// The lobby holds `limits.max_seeks` open seeks already.
    TooManySeeks,
    /// The lobby needs a database (`store.url` is `memory`).
    LobbyUnavailable,
    /// An abort after the first moves: a game may be aborted only before both sides moved.
    AbortNotAllowed,
    /// An accept or decline with no takeback or rematch offer from the opponent.
    NoOffer,
    /// A takeback this game does not allow (rated, nothing to take back, finished).
    TakebackNotAllowed,
    /// A rematch of a game that is not over.
    GameNotOver,
    /// A rematch this game does not allow (against an engine).
    RematchNotAllowed,
    /// Chat is off in this game (against an engine), or not for this caller's room.
    ChatDisabled,
    /// A chat message empty or over `chat.max_length` characters.
    ChatTooLong,
    /// No quick-pairing pool with that id.
    PoolNotFound,
    /// No pairing entry with that id in that pool (or it expired).
    PairingEntryNotFound,
    /// The pairing entry is paired (or being paired) already: it cannot leave.
    PairingEntryPaired,
    /// The pools hold `limits.max_pairing_entries` waiting entries already.
    TooManyPairingEntries,
    /// Players need a database (`store.url` is `memory`).
    PlayersUnavailable,
    /// No player with that name or id.
    PlayerNotFound,
    /// Another player has this name (names are unique case-insensitively).
    NameTaken,
    /// The player has a name already.
    AlreadyNamed,
    /// A wrong name or password, or a player token that names no player.
    BadCredentials,
    /// A rated seek (posting or accepting it) needs a player (`X-Player-Token`).
    PlayerRequired,
    /// The accepter's rating is outside the seek's `rating_range`.
    RatingOutOfRange,
    /// A puzzle's stipulation cannot be solved as asked: its N disagrees with `mate_in`, or
    /// `mode: find` was asked for a helpmate or a selfmate.
    InvalidStipulation,
    /// Something went wrong inside the server.
    Internal,
}

impl ErrorCode {
    /// Every code, in declaration order (the unit test `all_lists_every_code` keeps it whole).
    pub const ALL: [ErrorCode; 83] = [
        ErrorCode::InvalidRequest,
        ErrorCode::PayloadTooLarge,
        ErrorCode::InvalidFen,
        ErrorCode::InvalidPgn,
        ErrorCode::IllegalMove,
        ErrorCode::AmbiguousMove,
        ErrorCode::NotYourTurn,
        ErrorCode::GameOver,
        ErrorCode::AlreadyHasStatus,
        ErrorCode::GameNotFound,
        ErrorCode::Unauthorized,
        ErrorCode::Forbidden,
        ErrorCode::InvalidState,
        ErrorCode::NoDrawToClaim,
        ErrorCode::TooManyGames,
        ErrorCode::WebhookNotAllowed,
        ErrorCode::NotFound,
        ErrorCode::MethodNotAllowed,
        ErrorCode::ShuttingDown,
        ErrorCode::StoreUnavailable,
        ErrorCode::GameUnavailable,
        ErrorCode::EngineNotFound,
        ErrorCode::NoEngine,
        ErrorCode::EngineBusy,
        ErrorCode::EngineDied,
        ErrorCode::EngineUnreachable,
        ErrorCode::EngineHandshakeFailed,
        ErrorCode::EngineIllegalMove,
        ErrorCode::EngineTimeout,
        ErrorCode::JobNotFound,
        ErrorCode::LimitExceeded,
        ErrorCode::TooManyJobs,
        ErrorCode::RateLimited,
        ErrorCode::QuotaExceeded,
        ErrorCode::TooManyEngines,
        ErrorCode::TooManyConnections,
        ErrorCode::TooManyExports,
        ErrorCode::NotAcceptable,
        ErrorCode::ApiKeyRequired,
        ErrorCode::OperatorDisabled,
        ErrorCode::CommandRefused,
        ErrorCode::EngineUnsupported,
        ErrorCode::WorkDisabled,
        ErrorCode::TaskGone,
        ErrorCode::LeaseNotHeld,
        ErrorCode::JobTimedOut,
        ErrorCode::ResultMismatch,
        ErrorCode::InvalidOpponents,
        ErrorCode::WrongVariant,
        ErrorCode::DuelPending,
        ErrorCode::NoDuel,
        ErrorCode::AlreadyBid,
        ErrorCode::InvalidBid,
        ErrorCode::IdempotencyKeyReused,
        ErrorCode::RequestInProgress,
        ErrorCode::VersionMismatch,
        ErrorCode::RequestTimeout,
        ErrorCode::OutcomeUnknown,
        ErrorCode::SeekNotFound,
        ErrorCode::SeekTaken,
        ErrorCode::OwnSeek,
        ErrorCode::TooManySeeks,
        ErrorCode::LobbyUnavailable,
        ErrorCode::AbortNotAllowed,
        ErrorCode::NoOffer,
        ErrorCode::TakebackNotAllowed,
        ErrorCode::GameNotOver,
        ErrorCode::RematchNotAllowed,
        ErrorCode::ChatDisabled,
        ErrorCode::ChatTooLong,
        ErrorCode::PoolNotFound,
        ErrorCode::PairingEntryNotFound,
        ErrorCode::PairingEntryPaired,
        ErrorCode::TooManyPairingEntries,
        ErrorCode::PlayersUnavailable,
        ErrorCode::PlayerNotFound,
        ErrorCode::NameTaken,
        ErrorCode::AlreadyNamed,
        ErrorCode::BadCredentials,
        ErrorCode::PlayerRequired,
        ErrorCode::RatingOutOfRange,
        ErrorCode::InvalidStipulation,
        ErrorCode::Internal,
    ];

    /// The HTTP status for this code.
    pub fn status(self) -> StatusCode {
        use ErrorCode::*;
        match self {
            InvalidRequest => StatusCode::BAD_REQUEST,
            PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            InvalidFen | InvalidPgn | IllegalMove | AmbiguousMove | InvalidState
            | WebhookNotAllowed | EngineNotFound => StatusCode::UNPROCESSABLE_ENTITY,
            NotYourTurn | GameOver | AlreadyHasStatus | NoDrawToClaim => StatusCode::CONFLICT,
            GameNotFound | NotFound => StatusCode::NOT_FOUND,
            Unauthorized => StatusCode::UNAUTHORIZED,
            Forbidden => StatusCode::FORBIDDEN,
            TooManyGames | ShuttingDown | StoreUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            GameUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            NoEngine => StatusCode::CONFLICT,
            EngineBusy => StatusCode::CONFLICT,
            EngineDied => StatusCode::BAD_GATEWAY,
            EngineUnreachable => StatusCode::BAD_GATEWAY,
            EngineHandshakeFailed => StatusCode::BAD_GATEWAY,
            EngineIllegalMove => StatusCode::BAD_GATEWAY,
            EngineTimeout => StatusCode::GATEWAY_TIMEOUT,
            JobNotFound => StatusCode::NOT_FOUND,
            LimitExceeded => StatusCode::UNPROCESSABLE_ENTITY,
            TooManyJobs => StatusCode::SERVICE_UNAVAILABLE,
            RateLimited | QuotaExceeded => StatusCode::TOO_MANY_REQUESTS,
            TooManyEngines | TooManyConnections | TooManyExports => StatusCode::SERVICE_UNAVAILABLE,
            NotAcceptable => StatusCode::NOT_ACCEPTABLE,
            ApiKeyRequired => StatusCode::UNAUTHORIZED,
            OperatorDisabled => StatusCode::FORBIDDEN,
            CommandRefused | EngineUnsupported => StatusCode::UNPROCESSABLE_ENTITY,
            WorkDisabled => StatusCode::FORBIDDEN,
            TaskGone | LeaseNotHeld => StatusCode::CONFLICT,
            JobTimedOut => StatusCode::GATEWAY_TIMEOUT,
            ResultMismatch => StatusCode::BAD_GATEWAY,
            InvalidOpponents => StatusCode::UNPROCESSABLE_ENTITY,
            WrongVariant | DuelPending | NoDuel | AlreadyBid => StatusCode::CONFLICT,
            InvalidBid => StatusCode::UNPROCESSABLE_ENTITY,
            IdempotencyKeyReused | RequestInProgress | VersionMismatch => StatusCode::CONFLICT,
            OutcomeUnknown => StatusCode::BAD_GATEWAY,
            RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            SeekNotFound => StatusCode::NOT_FOUND,
            SeekTaken | OwnSeek => StatusCode::CONFLICT,
            TooManySeeks | LobbyUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            AbortNotAllowed | NoOffer | TakebackNotAllowed | GameNotOver | RematchNotAllowed
            | ChatDisabled => StatusCode::CONFLICT,
            ChatTooLong => StatusCode::UNPROCESSABLE_ENTITY,
            PoolNotFound | PairingEntryNotFound => StatusCode::NOT_FOUND,
            PairingEntryPaired => StatusCode::CONFLICT,
            TooManyPairingEntries => StatusCode::SERVICE_UNAVAILABLE,
            PlayersUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            PlayerNotFound => StatusCode::NOT_FOUND,
            NameTaken | AlreadyNamed => StatusCode::CONFLICT,
            BadCredentials | PlayerRequired => StatusCode::UNAUTHORIZED,
            // As `own_seek`: who accepts does not fit the seek (403 is kept for secrets).
            RatingOutOfRange => StatusCode::CONFLICT,
            InvalidStipulation => StatusCode::UNPROCESSABLE_ENTITY,
            Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The code as it appears in JSON.
    pub fn as_str(self) -> &'static str {
        use ErrorCode::*;
        match self {
            InvalidRequest => "invalid_request",
            PayloadTooLarge => "payload_too_large",
            InvalidFen => "invalid_fen",
            InvalidPgn => "invalid_pgn",
            IllegalMove => "illegal_move",
            AmbiguousMove => "ambiguous_move",
            NotYourTurn => "not_your_turn",
            GameOver => "game_over",
            AlreadyHasStatus => "already_has_status",
            GameNotFound => "game_not_found",
            Unauthorized => "unauthorized",
            Forbidden => "forbidden",
            InvalidState => "invalid_state",
            NoDrawToClaim => "no_draw_to_claim",
            TooManyGames => "too_many_games",
            WebhookNotAllowed => "webhook_not_allowed",
            NotFound => "not_found",
            MethodNotAllowed => "method_not_allowed",
            ShuttingDown => "shutting_down",
            StoreUnavailable => "store_unavailable",
            GameUnavailable => "game_unavailable",
            EngineNotFound => "engine_not_found",
            NoEngine => "no_engine",
            EngineBusy => "engine_busy",
            EngineDied => "engine_died",
            EngineUnreachable => "engine_unreachable",
            EngineHandshakeFailed => "engine_handshake_failed",
            EngineIllegalMove => "engine_illegal_move",
            EngineTimeout => "engine_timeout",
            JobNotFound => "job_not_found",
            LimitExceeded => "limit_exceeded",
            TooManyJobs => "too_many_jobs",
            RateLimited => "rate_limited",
            QuotaExceeded => "quota_exceeded",
            TooManyEngines => "too_many_engines",
            TooManyConnections => "too_many_connections",
            TooManyExports => "too_many_exports",
            NotAcceptable => "not_acceptable",
            ApiKeyRequired => "api_key_required",
            OperatorDisabled => "operator_disabled",
            CommandRefused => "command_refused",
            EngineUnsupported => "engine_unsupported",
            WorkDisabled => "work_disabled",
            TaskGone => "task_gone",
            LeaseNotHeld => "lease_not_held",
            JobTimedOut => "job_timed_out",
            ResultMismatch => "result_mismatch",
            InvalidOpponents => "invalid_opponents",
            WrongVariant => "wrong_variant",
            DuelPending => "duel_pending",
            NoDuel => "no_duel",
            AlreadyBid => "already_bid",
            InvalidBid => "invalid_bid",
            IdempotencyKeyReused => "idempotency_key_reused",
            RequestInProgress => "request_in_progress",
            VersionMismatch => "version_mismatch",
            OutcomeUnknown => "outcome_unknown",
            RequestTimeout => "request_timeout",
            SeekNotFound => "seek_not_found",
            SeekTaken => "seek_taken",
            OwnSeek => "own_seek",
            TooManySeeks => "too_many_seeks",
            LobbyUnavailable => "lobby_unavailable",
            AbortNotAllowed => "abort_not_allowed",
            NoOffer => "no_offer",
            TakebackNotAllowed => "takeback_not_allowed",
            GameNotOver => "game_not_over",
            RematchNotAllowed => "rematch_not_allowed",
            ChatDisabled => "chat_disabled",
            ChatTooLong => "chat_too_long",
            PoolNotFound => "pool_not_found",
            PairingEntryNotFound => "pairing_entry_not_found",
            PairingEntryPaired => "pairing_entry_paired",
            TooManyPairingEntries => "too_many_pairing_entries",
            PlayersUnavailable => "players_unavailable",
            PlayerNotFound => "player_not_found",
            NameTaken => "name_taken",
            AlreadyNamed => "already_named",
            BadCredentials => "bad_credentials",
            PlayerRequired => "player_required",
            RatingOutOfRange => "rating_out_of_range",
            InvalidStipulation => "invalid_stipulation",
            Internal => "internal",
        }
    }
}

/// An error answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code:?}: {message}")]
pub struct ApiError {
    /// The stable code.
    pub code: ErrorCode,
    /// What went wrong, for people.
    pub message: String,
    /// Seconds after which a retry may pass (sent as `Retry-After`).
    pub retry_after_secs: Option<u64>,
    /// Why a move is illegal (`no_piece`, `wrong_side`, …), for `illegal_move`.
    pub reason: Option<&'static str>,
}

impl ApiError {
    /// An error with this code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
            retry_after_secs: None,
            reason: None,
        }
    }

    /// `game_not_found` for an id.
    pub fn game_not_found(id: impl std::fmt::Display) -> ApiError {
        ApiError::new(ErrorCode::GameNotFound, format!("no game with id {id}"))
    }

    /// `forbidden` with a message.
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::Forbidden, message)
    }

    /// `unauthorized` (401): the request carries no secret and needs one.
    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::Unauthorized, message)
    }

    /// A refusal for want of the right secret: `unauthorized` (401) when the request carried
    /// none, `forbidden` (403) when it carried another.
    pub fn refused(credentials_given: bool, message: impl Into<String>) -> ApiError {
        let code = if credentials_given {
            ErrorCode::Forbidden
        } else {
            ErrorCode::Unauthorized
        };
        ApiError::new(code, message)
    }

    /// `invalid_request` with a message.
    pub fn invalid_request(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::InvalidRequest, message)
    }

    /// `internal`, logging the cause.
    pub fn internal(cause: impl std::fmt::Display) -> ApiError {
        tracing::error!(%cause, "internal error");
        ApiError::new(ErrorCode::Internal, "internal server error")
    }
}

/// The JSON body of every error answer: `{"error": {"code", "message"}}`.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = Error)]
pub struct ErrorBody<'a> {
    /// What went wrong.
    pub error: ErrorDetail<'a>,
}

/// The `error` of an [`ErrorBody`].
#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorDetail<'a> {
    /// The stable code.
    #[schema(value_type = ErrorCode)]
    pub code: &'a str,
    /// What went wrong, for people.
    pub message: &'a str,
    /// Why a move is illegal, for `illegal_move`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::schemas::IllegalReasonName>)]
    pub reason: Option<&'a str>,
}

impl ApiError {
    /// The JSON body of this error, as [`ResponseError::error_response`] sends it.
    pub fn body_json(&self) -> String {
        serde_json::to_string(&ErrorBody {
            error: ErrorDetail {
                code: self.code.as_str(),
                message: &self.message,
                reason: self.reason,
            },
        })
        .unwrap_or_default()
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.code.status()
    }

    fn error_response(&self) -> HttpResponse {
        crate::metrics::count_error(self.code.as_str());
        let mut answer = HttpResponse::build(self.status_code());
        if let Some(secs) = self.retry_after_secs {
            answer.insert_header((actix_web::http::header::RETRY_AFTER, secs.to_string()));
        }
        if self.code == ErrorCode::Unauthorized {
            answer.insert_header((
                actix_web::http::header::WWW_AUTHENTICATE,
                r#"Bearer realm="chessd""#,
            ));
        }
        answer.json(ErrorBody {
            error: ErrorDetail {
                code: self.code.as_str(),
                message: &self.message,
                reason: self.reason,
            },
        })
    }
}

impl From<AdmissionError> for ApiError {
    fn from(e: AdmissionError) -> ApiError {
        let code = match &e {
            AdmissionError::RateLimited { .. } => ErrorCode::RateLimited,
            AdmissionError::QuotaExceeded { .. } => ErrorCode::QuotaExceeded,
            AdmissionError::TooManyEngines { .. } => ErrorCode::TooManyEngines,
            AdmissionError::TooManyConnections { .. } => ErrorCode::TooManyConnections,
            AdmissionError::TooManyExports { .. } => ErrorCode::TooManyExports,
        };
        ApiError {
            retry_after_secs: e.retry_after_secs(),
            ..ApiError::new(code, e.to_string())
        }
    }
}

impl From<crate::lobby::pairing::PairingError> for ApiError {
    fn from(e: crate::lobby::pairing::PairingError) -> ApiError {
        use crate::lobby::pairing::PairingError as P;
        let code = match &e {
            P::Unavailable => ErrorCode::LobbyUnavailable,
            P::PoolNotFound(_) => ErrorCode::PoolNotFound,
            P::NotFound(_) => ErrorCode::PairingEntryNotFound,
            P::Paired(_) => ErrorCode::PairingEntryPaired,
            P::Refused { given: true } => ErrorCode::Forbidden,
            P::Refused { given: false } => ErrorCode::Unauthorized,
            P::ClientFull { .. } => ErrorCode::QuotaExceeded,
            P::Full { .. } => ErrorCode::TooManyPairingEntries,
            P::Store(_) => ErrorCode::StoreUnavailable,
        };
        ApiError::new(code, e.to_string())
    }
}

impl From<crate::players::PlayersError> for ApiError {
    fn from(e: crate::players::PlayersError) -> ApiError {
        use crate::players::PlayersError as P;
        let (code, retry) = match &e {
            P::Unavailable => (ErrorCode::PlayersUnavailable, None),
            P::Invalid(_) => (ErrorCode::InvalidRequest, None),
            P::NameTaken(_) => (ErrorCode::NameTaken, None),
            P::AlreadyNamed => (ErrorCode::AlreadyNamed, None),
            P::BadCredentials(_) => (ErrorCode::BadCredentials, None),
            P::NotFound(_) => (ErrorCode::PlayerNotFound, None),
            P::RateLimited {
                retry_after_secs, ..
            } => (ErrorCode::RateLimited, Some(*retry_after_secs)),
            P::Store(_) => (ErrorCode::StoreUnavailable, None),
        };
        ApiError {
            retry_after_secs: retry,
            ..ApiError::new(code, e.to_string())
        }
    }
}

impl From<crate::lobby::LobbyError> for ApiError {
    fn from(e: crate::lobby::LobbyError) -> ApiError {
        use crate::lobby::LobbyError as L;
        let code = match &e {
            L::Unavailable => ErrorCode::LobbyUnavailable,
            L::NotFound(_) => ErrorCode::SeekNotFound,
            L::Taken(_) => ErrorCode::SeekTaken,
            L::OwnSeek => ErrorCode::OwnSeek,
            L::Refused { given: true } => ErrorCode::Forbidden,
            L::Refused { given: false } => ErrorCode::Unauthorized,
            L::ClientFull { .. } => ErrorCode::QuotaExceeded,
            L::Full { .. } => ErrorCode::TooManySeeks,
            L::Store(_) => ErrorCode::StoreUnavailable,
        };
        ApiError::new(code, e.to_string())
    }
}

impl From<chessd_core::FenError> for ApiError {
    fn from(e: chessd_core::FenError) -> ApiError {
        ApiError::new(ErrorCode::InvalidFen, format!("invalid FEN: {e}"))
    }
}

impl From<chessd_core::game::GameError> for ApiError {
    fn from(e: chessd_core::game::GameError) -> ApiError {
        use chessd_core::{game::GameError as G, san::SanError};
        let code = match &e {
            G::GameOver(_) => ErrorCode::GameOver,
            G::AlreadyHasStatus(_) => ErrorCode::AlreadyHasStatus,
            G::IllegalSan(SanError::Ambiguous { .. }) => ErrorCode::AmbiguousMove,
            G::NothingToClaim => ErrorCode::NoDrawToClaim,
            _ => ErrorCode::IllegalMove,
        };
        ApiError {
            reason: e.reason().map(|r| r.name()),
            ..ApiError::new(code, e.to_string())
        }
    }
}

impl From<chessd_core::chess2::Chess2GameError> for ApiError {
    fn from(e: chessd_core::chess2::Chess2GameError) -> ApiError {
        use chessd_core::chess2::Chess2GameError as G;
        let code = match &e {
            G::GameOver(_) => ErrorCode::GameOver,
            G::AlreadyHasStatus(_) => ErrorCode::AlreadyHasStatus,
            G::Play(_) | G::DuelFieldsInGame => ErrorCode::IllegalMove,
            G::DuelPending => ErrorCode::DuelPending,
            G::NoDuel => ErrorCode::NoDuel,
            G::NotYourStep(_) => ErrorCode::NotYourTurn,
            G::AlreadyBid(_) => ErrorCode::AlreadyBid,
            G::BadBid { .. } | G::BidSideMissing => ErrorCode::InvalidBid,
            G::NothingToClaim => ErrorCode::NoDrawToClaim,
        };
        ApiError::new(code, e.to_string())
    }
}

impl From<EngineError> for ApiError {
    fn from(e: EngineError) -> ApiError {
        let code = match &e {
            EngineError::NotConfigured(_) => ErrorCode::EngineNotFound,
            EngineError::Unreachable(_) => ErrorCode::EngineUnreachable,
            EngineError::HandshakeFailed(_) => ErrorCode::EngineHandshakeFailed,
            EngineError::Died(_) => ErrorCode::EngineDied,
            EngineError::IllegalMove(_) => ErrorCode::EngineIllegalMove,
            EngineError::Timeout(_) => ErrorCode::EngineTimeout,
            EngineError::CommandRefused(_) => ErrorCode::CommandRefused,
            EngineError::Unsupported(_) => ErrorCode::EngineUnsupported,
        };
        ApiError::new(code, e.to_string())
    }
}

impl From<GameError> for ApiError {
    fn from(e: GameError) -> ApiError {
        let code = match e {
            GameError::Rules(e) => return e.into(),
            GameError::Chess2(e) => return e.into(),
            GameError::WrongVariant(_) => ErrorCode::WrongVariant,
            GameError::Chess2Notation(_) => ErrorCode::IllegalMove,
            GameError::Engine(e) => return e.into(),
            GameError::Admission(e) => return e.into(),
            GameError::Fen(e) => return e.into(),
            GameError::Internal(cause) => return ApiError::internal(cause),
            GameError::NotFound(_) => ErrorCode::GameNotFound,
            GameError::Unauthorized(_) => ErrorCode::Unauthorized,
            GameError::Forbidden(_) => ErrorCode::Forbidden,
            GameError::NotYourTurn(_) => ErrorCode::NotYourTurn,
            GameError::Flagged(_) | GameError::Finished(_) => ErrorCode::GameOver,
            GameError::Pgn(_) => ErrorCode::InvalidPgn,
            GameError::InvalidEpd(_) => ErrorCode::InvalidFen,
            GameError::InvalidState(_) => ErrorCode::InvalidState,
            GameError::InvalidRequest(_) => ErrorCode::InvalidRequest,
            GameError::NoDrawOffer => ErrorCode::NoDrawToClaim,
            GameError::AbortNotAllowed(_) => ErrorCode::AbortNotAllowed,
            GameError::NoOffer(_) => ErrorCode::NoOffer,
            GameError::TakebackNotAllowed(_) => ErrorCode::TakebackNotAllowed,
            GameError::GameNotOver(_) => ErrorCode::GameNotOver,
            GameError::RematchNotAllowed(_) => ErrorCode::RematchNotAllowed,
            GameError::ChatDisabled(_) => ErrorCode::ChatDisabled,
            GameError::ChatTooLong(_) => ErrorCode::ChatTooLong,
            GameError::TooManyGames(_) => ErrorCode::TooManyGames,
            GameError::ShuttingDown => ErrorCode::ShuttingDown,
            GameError::Store(_) => ErrorCode::StoreUnavailable,
            GameError::Unavailable(_) => {
                return ApiError {
                    retry_after_secs: Some(1),
                    ..ApiError::new(ErrorCode::GameUnavailable, e.to_string())
                }
            }
            GameError::WebhookNotAllowed(_) => ErrorCode::WebhookNotAllowed,
            GameError::NoEngine => ErrorCode::NoEngine,
            GameError::Opponents(_) => ErrorCode::InvalidOpponents,
            GameError::EngineBusy(_) => ErrorCode::EngineBusy,
            GameError::KeyReused(_) => ErrorCode::IdempotencyKeyReused,
            GameError::LimitExceeded(_) => ErrorCode::LimitExceeded,
            GameError::VersionMismatch { .. } => ErrorCode::VersionMismatch,
            GameError::InProgress(_) => {
                return ApiError {
                    retry_after_secs: Some(1),
                    ..ApiError::new(ErrorCode::RequestInProgress, e.to_string())
                }
            }
        };
        ApiError::new(code, e.to_string())
    }
}

impl From<JobError> for ApiError {
    fn from(e: JobError) -> ApiError {
        let code = match e {
            JobError::Admission(e) => return e.into(),
            JobError::Fen(e) => return e.into(),
            JobError::Internal(cause) => return ApiError::internal(cause),
            JobError::NotFound(_) => ErrorCode::JobNotFound,
            JobError::Unauthorized(_) => ErrorCode::Unauthorized,
            JobError::Forbidden(_) => ErrorCode::Forbidden,
            JobError::InvalidRequest(_) => ErrorCode::InvalidRequest,
            JobError::InvalidPosition(_) => ErrorCode::InvalidFen,
            JobError::LimitExceeded(_) => ErrorCode::LimitExceeded,
            JobError::InvalidStipulation(_) => ErrorCode::InvalidStipulation,
            JobError::TooManyJobs(_) => ErrorCode::TooManyJobs,
            JobError::Store(_) => ErrorCode::StoreUnavailable,
            JobError::TimedOut(_) => ErrorCode::JobTimedOut,
            JobError::ResultMismatch(_) => ErrorCode::ResultMismatch,
        };
        ApiError::new(code, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layers name their errors in events and job results; those names must be the codes
    /// this table gives.
    #[test]
    fn layer_codes_agree_with_the_table() {
        let engine = [
            EngineError::NotConfigured("x".into()),
            EngineError::Unreachable("x".into()),
            EngineError::HandshakeFailed("x".into()),
            EngineError::Died("x".into()),
            EngineError::IllegalMove("x".into()),
            EngineError::Timeout("x".into()),
            EngineError::CommandRefused("x".into()),
            EngineError::Unsupported("x".into()),
        ];
        for e in engine {
            assert_eq!(ApiError::from(e.clone()).code.as_str(), e.code(), "{e:?}");
        }
        let jobs = [
            JobError::NotFound("x".into()),
            JobError::Unauthorized("x".into()),
            JobError::Forbidden("x".into()),
            JobError::InvalidRequest("x".into()),
            JobError::InvalidPosition("x".into()),
            JobError::LimitExceeded("x".into()),
            JobError::InvalidStipulation("x".into()),
            JobError::TooManyJobs("x".into()),
            JobError::Internal("x".into()),
            JobError::TimedOut("x".into()),
            JobError::ResultMismatch("x".into()),
            JobError::Admission(AdmissionError::TooManyEngines { limit: 1 }),
        ];
        for e in jobs {
            assert_eq!(ApiError::from(e.clone()).code.as_str(), e.code(), "{e:?}");
        }
    }

    /// `ErrorCode::ALL` holds every variant once, in order. The match below has no wildcard: a
    /// new variant does not compile until it is given its place here, and then in `ALL`.
    #[test]
    fn all_lists_every_code() {
        fn place(code: ErrorCode) -> usize {
            use ErrorCode::*;
            match code {
                InvalidRequest => 0,
                PayloadTooLarge => 1,
                InvalidFen => 2,
                InvalidPgn => 3,
                IllegalMove => 4,
                AmbiguousMove => 5,
                NotYourTurn => 6,
                GameOver => 7,
                AlreadyHasStatus => 8,
                GameNotFound => 9,
                Unauthorized => 10,
                Forbidden => 11,
                InvalidState => 12,
                NoDrawToClaim => 13,
                TooManyGames => 14,
                WebhookNotAllowed => 15,
                NotFound => 16,
                MethodNotAllowed => 17,
                ShuttingDown => 18,
                StoreUnavailable => 19,
                GameUnavailable => 20,
                EngineNotFound => 21,
                NoEngine => 22,
                EngineBusy => 23,
                EngineDied => 24,
                EngineUnreachable => 25,
                EngineHandshakeFailed => 26,
                EngineIllegalMove => 27,
                EngineTimeout => 28,
                JobNotFound => 29,
                LimitExceeded => 30,
                TooManyJobs => 31,
                RateLimited => 32,
                QuotaExceeded => 33,
                TooManyEngines => 34,
                TooManyConnections => 35,
                TooManyExports => 36,
                NotAcceptable => 37,
                ApiKeyRequired => 38,
                OperatorDisabled => 39,
                CommandRefused => 40,
                EngineUnsupported => 41,
                WorkDisabled => 42,
                TaskGone => 43,
                LeaseNotHeld => 44,
                JobTimedOut => 45,
                ResultMismatch => 46,
                InvalidOpponents => 47,
                WrongVariant => 48,
                DuelPending => 49,
                NoDuel => 50,
                AlreadyBid => 51,
                InvalidBid => 52,
                IdempotencyKeyReused => 53,
                RequestInProgress => 54,
                VersionMismatch => 55,
                RequestTimeout => 56,
                OutcomeUnknown => 57,
                SeekNotFound => 58,
                SeekTaken => 59,
                OwnSeek => 60,
                TooManySeeks => 61,
                LobbyUnavailable => 62,
                AbortNotAllowed => 63,
                NoOffer => 64,
                TakebackNotAllowed => 65,
                GameNotOver => 66,
                RematchNotAllowed => 67,
                ChatDisabled => 68,
                ChatTooLong => 69,
                PoolNotFound => 70,
                PairingEntryNotFound => 71,
                PairingEntryPaired => 72,
                TooManyPairingEntries => 73,
                PlayersUnavailable => 74,
                PlayerNotFound => 75,
                NameTaken => 76,
                AlreadyNamed => 77,
                BadCredentials => 78,
                PlayerRequired => 79,
                RatingOutOfRange => 80,
                InvalidStipulation => 81,
                Internal => 82,
            }
        }
        for (i, code) in ErrorCode::ALL.iter().enumerate() {
            assert_eq!(
                place(*code),
                i,
                "{code:?} is out of place in ErrorCode::ALL"
            );
        }
        let codes: std::collections::BTreeSet<&str> =
            ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(
            codes.len(),
            ErrorCode::ALL.len(),
            "a code twice in ErrorCode::ALL"
        );
    }
}
