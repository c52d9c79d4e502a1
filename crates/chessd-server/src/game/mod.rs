//! Games as actors: each game is a `GameActor` reached through a typed
//! [`GameHandle`], found in the `registry` and created by [`Games`]; with its clocks,
//! events, saved state, terminate hooks and engine work.
//!
//! Dependencies run one way: `command` and `engine_state` describe requests and state,
//! `actor` handles them, `handle` sends them, `registry` holds the live actors, `service` ties these
//! together. The game layer speaks no HTTP: its errors are [`GameError`].

pub(crate) mod actor;
pub mod archive;
pub(crate) mod board;
pub(crate) mod bot_pool;
pub mod chat;
pub mod clock;
pub mod command;
pub mod engine_state;
pub mod engines;
pub(crate) mod error;
pub(crate) mod events;
pub(crate) mod handle;
pub mod hooks;
pub(crate) mod idempotency;
pub mod journal;
pub(crate) mod move_text;
pub mod offers;
pub mod options;
pub(crate) mod outbox;
pub mod ownership;
pub mod packing;
pub mod players;
pub(crate) mod registry;
pub(crate) mod replies;
pub(crate) mod secrets;
pub mod service;
pub(crate) mod state;
pub(crate) mod sweeper;
pub(crate) mod trim;

pub use board::Board;
pub use error::GameError;
pub use handle::GameHandle;
pub use service::{Games, NewGame};
