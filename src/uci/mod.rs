//! Engines: the typed UCI protocol (both directions), the engine session a game attaches
//! (protocol-neutral, with a UCI and an XBoard dialect), and the built-in engine's loop.

pub mod builtin;
pub mod engine;
pub mod error;
mod handshake;
pub mod policy;
pub mod protocol;
pub mod search;
mod session;
mod uci_dialect;
pub mod xboard;
pub mod xboard_protocol;

pub use error::EngineError;
