//! The `chessd` command line: one subcommand per tool, each in its own module under `cli/`.
//!
//! Adding a tool is one [`Command`] variant (holding its clap `Args`) and one module with a
//! `run(&Args) -> ExitCode` function.

#![forbid(unsafe_code)]

mod cli;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// An actor-based chess game server, with perft and chess tools.
///
/// With no subcommand it serves, and takes `serve`'s flags (`chessd --bind 127.0.0.1:9000`).
#[derive(Debug, Parser)]
#[command(
    name = "chessd",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// `serve`'s flags, for the default command.
    #[command(flatten)]
    serve: cli::serve::ServeArgs,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Run the game server (the default).
    Serve(cli::serve::ServeArgs),
    /// Count the leaves of the move tree (perft), optionally with statistics.
    Perft(cli::perft::PerftArgs),
    /// Solve a mate-in-N problem: shortest mate, every key, the solution tree.
    Solve(cli::solve::SolveArgs),
    /// Load benchmark: REST and WebSocket throughput and latency, memory per idle game.
    Loadtest(cli::loadtest::LoadtestArgs),
    /// The built-in UCI engine on stdin/stdout (`--bench`: its nodes per second).
    Engine(cli::engine::EngineArgs),
    /// A match between two configured engines (default: builtin against Stockfish), with PGN.
    Match(cli::engine_match::MatchArgs),
    /// A Grand Chess Tree worker: the perft worker protocol on stdin and stdout.
    Worker(cli::worker::WorkerArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Perft(args)) => match args.variant {
            cli::perft::Variant::Standard => cli::perft::run(&args),
            cli::perft::Variant::Chess2 => cli::perft_chess2::run(&args),
        },
        Some(Command::Solve(args)) => cli::solve::run(&args),
        Some(Command::Loadtest(args)) => cli::loadtest::run(&args),
        Some(Command::Worker(args)) => cli::worker::run(&args),
        Some(Command::Engine(args)) => cli::engine::run(&args),
        Some(Command::Match(args)) => cli::engine_match::run(&args),
        Some(Command::Serve(args)) => cli::serve::run(&args),
        None => cli::serve::run(&cli.serve),
    }
}
