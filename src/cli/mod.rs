//! Subcommand implementations: each module has its clap `Args` and a `run` function.

pub mod engine;
pub mod engine_match;
pub mod loadtest;
pub mod perft;
pub mod perft_chess2;
pub mod progress;
pub mod serve;
pub mod solve;
pub mod table;
pub mod work_client;
pub mod worker;

use std::process::ExitCode;

/// The exit code for bad arguments or input (the same code clap uses for usage errors).
pub const USAGE_ERROR: u8 = 2;

/// Prints `chessd <command>: <message>` on stderr and returns [`USAGE_ERROR`].
pub fn usage_error(command: &str, message: &str) -> ExitCode {
    eprintln!("chessd {command}: {message}");
    ExitCode::from(USAGE_ERROR)
}
