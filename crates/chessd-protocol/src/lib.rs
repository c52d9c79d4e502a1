//! # chessd-protocol
//!
//! The lines and frames chessd exchanges with engines, perft workers and WebSocket clients,
//! typed: each parses from text and prints back, with no I/O. The server (`chessd-server`)
//! and the command line build on it; the fuzz targets check it.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod gct;
#[cfg(feature = "utoipa")]
pub mod schema;
pub mod uci;
pub mod ws;
pub mod xboard;
