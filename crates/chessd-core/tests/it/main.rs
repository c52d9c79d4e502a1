//! The core's integration tests, one binary: a module per area (`cargo test -p chessd-core
//! --test it -- pgn::` runs one). Reference data is read from the repository's `tests/data/`.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

mod chess2_bot;
mod chess2_duels;
mod chess2_game;
mod chess2_notation;
mod chess2_replay;
mod chess2_rules;
mod codec;
mod differential_shakmaty;
mod fuzz_parsers;
mod fuzz_regressions;
mod game_rules;
mod illegal_reasons;
mod notation;
mod perft_data;
mod pgn;
mod search;
mod search_tesla;
#[cfg(feature = "serde")]
mod serde_forms;
mod solver;
mod solver_exact;
mod solver_find;
mod solver_stip;
