//! Why an engine session could not do what was asked: the UCI layer's own error, with no
//! knowledge of HTTP (the API maps it to a status and a stable code).

/// A failure of an engine session. Every variant carries the message people read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// No engine of that name is configured.
    #[error("{0}")]
    NotConfigured(String),
    /// The engine could not be started or connected to within its connect timeout.
    #[error("{0}")]
    Unreachable(String),
    /// The engine did not complete the UCI handshake in time, or refused its configuration.
    #[error("{0}")]
    HandshakeFailed(String),
    /// The engine process exited or closed its connection.
    #[error("{0}")]
    Died(String),
    /// The engine answered with a move that is not legal.
    #[error("{0}")]
    IllegalMove(String),
    /// The engine did not answer before the deadline; it was told to stop.
    #[error("{0}")]
    Timeout(String),
    /// A raw UCI line outside the allow-list, or with values outside the engine's options.
    #[error("{0}")]
    CommandRefused(String),
    /// The engine cannot play what was asked of it (a Chess960 game for an engine without
    /// `UCI_Chess960`, or a variant an XBoard engine does not list).
    #[error("{0}")]
    Unsupported(String),
}

impl EngineError {
    /// The stable name of the failure, as events and error answers carry it.
    pub fn code(&self) -> &'static str {
        match self {
            EngineError::NotConfigured(_) => "engine_not_found",
            EngineError::Unreachable(_) => "engine_unreachable",
            EngineError::HandshakeFailed(_) => "engine_handshake_failed",
            EngineError::Died(_) => "engine_died",
            EngineError::IllegalMove(_) => "engine_illegal_move",
            EngineError::Timeout(_) => "engine_timeout",
            EngineError::CommandRefused(_) => "command_refused",
            EngineError::Unsupported(_) => "engine_unsupported",
        }
    }

    /// Whether the session is gone (the engine died or closed its connection).
    pub fn is_died(&self) -> bool {
        matches!(self, EngineError::Died(_))
    }
}
