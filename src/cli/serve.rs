//! `chessd serve` (the default): runs the game server.

use std::{io::IsTerminal, path::PathBuf, process::ExitCode};

use clap::Args;

use chessd_server::Config;

/// Arguments of `chessd serve`.
#[derive(Debug, Default, Args)]
pub(crate) struct ServeArgs {
    /// Address to listen on (overrides the configuration and CHESSD_BIND).
    #[arg(long)]
    pub bind: Option<String>,
    /// A TOML file overriding the embedded defaults (CHESSD_… variables override it in turn).
    #[arg(long)]
    pub config: Option<PathBuf>,
}

/// Loads the configuration and serves until SIGINT/SIGTERM.
pub(crate) fn run(args: &ServeArgs) -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        // Colour only for a person at a terminal, never in a log file or a pipe.
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    let mut config = match Config::load(args.config.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("chessd: {e}");
            return ExitCode::from(super::USAGE_ERROR);
        }
    };
    if let Some(bind) = &args.bind {
        config.bind = bind.clone();
    }
    match actix_web::rt::System::new().block_on(chessd_server::server::serve(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chessd: {e}");
            ExitCode::FAILURE
        }
    }
}
