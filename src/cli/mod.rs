//! Subcommand implementations: each module has its clap `Args` and a `run` function.

pub(crate) mod engine;
pub(crate) mod engine_match;
pub(crate) mod loadtest;
pub(crate) mod perft;
pub(crate) mod perft_chess2;
pub(crate) mod progress;
pub(crate) mod serve;
pub(crate) mod solve;
pub(crate) mod table;
pub(crate) mod work_client;
pub(crate) mod worker;

use std::process::ExitCode;

/// The exit code for bad arguments or input (the same code clap uses for usage errors).
pub(crate) const USAGE_ERROR: u8 = 2;

/// Prints `chessd <command>: <message>` on stderr and returns [`USAGE_ERROR`].
pub(crate) fn usage_error(command: &str, message: &str) -> ExitCode {
    eprintln!("chessd {command}: {message}");
    ExitCode::from(USAGE_ERROR)
}
