//! UCI: the typed protocol (both directions), the engine session a game attaches, and the
//! built-in engine's loop.

pub mod builtin;
pub mod engine;
pub mod error;
pub mod policy;
pub mod protocol;

pub use error::EngineError;
