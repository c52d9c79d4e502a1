//! Games as actors: each game is a [`GameActor`](actor::GameActor) reached through a typed
//! [`GameHandle`], found in the [`registry`] and created by [`Games`]; with its clocks,
//! events, saved state, terminate hooks and engine work.
//!
//! Dependencies run one way: `command` and `engine_state` describe requests and state,
//! `actor` handles them, `handle` sends them, `registry` holds handles, `service` ties these
//! together. The game layer speaks no HTTP: its errors are [`GameError`].

pub mod actor;
pub mod archive;
pub mod board;
pub mod bot_pool;
pub mod clock;
pub mod command;
pub mod engine_state;
pub mod engines;
pub mod error;
pub mod events;
pub mod handle;
pub mod hooks;
pub mod idempotency;
pub mod journal;
pub mod options;
pub mod outbox;
pub mod ownership;
pub mod registry;
pub mod replies;
pub mod secrets;
pub mod service;
pub mod state;

pub use board::Board;
pub use error::GameError;
pub use handle::GameHandle;
pub use service::{Games, NewGame};
