//! Engines a game attaches: the typed handle ([`handle::Engine`]) over a protocol-neutral
//! session with a UCI and an XBoard dialect, the engine policy, and the built-in engine's loop.
//! The protocols' lines themselves are `chessd_protocol`'s.

pub mod builtin;
pub(crate) mod error;
pub mod handle;
mod handshake;
pub(crate) mod policy;
pub(crate) mod search;
mod session;
mod uci;
pub(crate) mod xboard;

pub use error::EngineError;
