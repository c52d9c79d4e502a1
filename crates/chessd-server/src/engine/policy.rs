//! Which raw UCI lines an operator may send an engine, and the one form they are sent in.
//!
//! A raw line is tokenised the way engines tokenise it (any run of whitespace separates tokens,
//! leading blanks are skipped, option names compare without regard to case), then checked
//! against an allow-list: `isready`, `ucinewgame`, `stop`, `ponderhit`, `go` with validated
//! limits, and `setoption` for options the engine declared of type check, spin (in range and
//! under the configured caps), combo (a listed value) or button. The engine then receives the
//! canonical line rebuilt from the parsed command, never the client's text, so spacing, case
//! or a misspelt `name` keyword cannot smuggle another option past the check (Stockfish skips
//! the word after `setoption` whatever it is, and matches option names case-insensitively).

use std::fmt;

use chessd_protocol::uci::{looks_like_uci_move, GoLimits, OptionDecl, OptionType};

/// Why a raw line is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct RawCommandRefused(String);

impl RawCommandRefused {
    fn new(message: impl Into<String>) -> RawCommandRefused {
        RawCommandRefused(message.into())
    }
}

/// Upper bounds on what the operator may give an engine, from its configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EngineCaps {
    /// Largest `Hash` in MiB.
    pub max_hash_mb: u64,
    /// Largest `Threads`.
    pub max_threads: u64,
}

/// The longest time limit a raw `go` may give, in milliseconds (one day).
const MAX_GO_TIME_MS: u64 = 86_400_000;
/// The deepest `depth` or longest `mate` a raw `go` may ask for.
const MAX_GO_DEPTH: u32 = 256;

/// A raw line that passed the allow-list, in the form it is sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum AllowedCommand {
    /// `isready`.
    IsReady,
    /// `ucinewgame`.
    UciNewGame,
    /// `stop`.
    Stop,
    /// `ponderhit`.
    PonderHit,
    /// `go` with checked limits (`searchmoves` still to be checked against the position).
    Go(GoLimits),
    /// `setoption` of a declared option, with the engine's own spelling of its name.
    SetOption {
        /// The declared name.
        name: String,
        /// The checked value (`None` for a button).
        value: Option<String>,
    },
}

impl fmt::Display for AllowedCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AllowedCommand::IsReady => f.write_str("isready"),
            AllowedCommand::UciNewGame => f.write_str("ucinewgame"),
            AllowedCommand::Stop => f.write_str("stop"),
            AllowedCommand::PonderHit => f.write_str("ponderhit"),
            AllowedCommand::Go(limits) => write!(f, "{limits}"),
            AllowedCommand::SetOption { name, value: None } => write!(f, "setoption name {name}"),
            AllowedCommand::SetOption {
                name,
                value: Some(v),
            } => write!(f, "setoption name {name} value {v}"),
        }
    }
}

/// Checks one raw line against the allow-list and the engine's declared `options`.
pub(crate) fn check_raw_command(
    line: &str,
    options: &[OptionDecl],
    caps: EngineCaps,
) -> Result<AllowedCommand, RawCommandRefused> {
    if let Some(c) = line.chars().find(|c| c.is_control()) {
        return Err(RawCommandRefused::new(format!(
            "a command is one line of printable text: control character U+{:04X} refused",
            u32::from(c)
        )));
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((&first, args)) = words.split_first() else {
        return Err(RawCommandRefused::new("the command is empty"));
    };
    let no_args = |command: AllowedCommand| {
        if args.is_empty() {
            Ok(command)
        } else {
            Err(RawCommandRefused::new(format!(
                "{first} takes no arguments"
            )))
        }
    };
    match first.to_ascii_lowercase().as_str() {
        "isready" => no_args(AllowedCommand::IsReady),
        "ucinewgame" => no_args(AllowedCommand::UciNewGame),
        "stop" => no_args(AllowedCommand::Stop),
        "ponderhit" => no_args(AllowedCommand::PonderHit),
        "go" => parse_go(args).map(AllowedCommand::Go),
        "setoption" => parse_setoption(args, options, caps),
        "quit" => Err(RawCommandRefused::new(
            "quit is not allowed: detach the engine instead (DELETE /v1/games/{id}/engine)",
        )),
        _ => Err(RawCommandRefused::new(format!(
            "{first:?} is not allowed: send isready, ucinewgame, stop, ponderhit, go or setoption"
        ))),
    }
}

/// Parses `go` arguments strictly: known keywords, numbers in range, each limit once.
pub(crate) fn parse_go(args: &[&str]) -> Result<GoLimits, RawCommandRefused> {
    let mut go = GoLimits::default();
    let mut i = 0;
    let mut seen: Vec<String> = Vec::new();
    while i < args.len() {
        let key = args[i].to_ascii_lowercase();
        i += 1;
        if seen.contains(&key) {
            return Err(RawCommandRefused::new(format!("go: {key} given twice")));
        }
        seen.push(key.clone());
        match key.as_str() {
            "infinite" => go.infinite = true,
            "ponder" => go.ponder = true,
            "searchmoves" => {
                while i < args.len() && looks_like_uci_move(&args[i].to_ascii_lowercase()) {
                    go.searchmoves.push(args[i].to_ascii_lowercase());
                    i += 1;
                }
                if go.searchmoves.is_empty() {
                    return Err(RawCommandRefused::new(
                        "go: searchmoves needs at least one move (UCI, e.g. e2e4)",
                    ));
                }
            }
            "depth" | "mate" | "movestogo" => {
                let n = number(&key, args.get(i), 1, u64::from(MAX_GO_DEPTH))?;
                i += 1;
                let n = n as u32;
                match key.as_str() {
                    "depth" => go.depth = Some(n),
                    "mate" => go.mate = Some(n),
                    _ => go.movestogo = Some(n),
                }
            }
            "nodes" => {
                go.nodes = Some(number(&key, args.get(i), 1, u64::MAX)?);
                i += 1;
            }
            "movetime" | "wtime" | "btime" | "winc" | "binc" => {
                let min = u64::from(matches!(key.as_str(), "movetime"));
                let n = number(&key, args.get(i), min, MAX_GO_TIME_MS)?;
                i += 1;
                match key.as_str() {
                    "movetime" => go.movetime = Some(n),
                    "wtime" => go.wtime = Some(n),
                    "btime" => go.btime = Some(n),
                    "winc" => go.winc = Some(n),
                    _ => go.binc = Some(n),
                }
            }
            other => {
                return Err(RawCommandRefused::new(format!(
                    "go: unknown limit {other:?}"
                )))
            }
        }
    }
    Ok(go)
}

/// Checks limits given as JSON by the same rules as a raw `go` (`depth 0`, `movetime 0`, a
/// depth over 256 or a time over a day are refused), by reading back their `go` line.
pub(crate) fn check_go(limits: &GoLimits) -> Result<(), RawCommandRefused> {
    let line = limits.to_string();
    let words: Vec<&str> = line.split_whitespace().skip(1).collect();
    parse_go(&words).map(|_| ())
}

fn number(key: &str, token: Option<&&str>, min: u64, max: u64) -> Result<u64, RawCommandRefused> {
    let token = token.ok_or_else(|| RawCommandRefused::new(format!("go: {key} needs a value")))?;
    match token.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(RawCommandRefused::new(format!(
            "go: {key} must be a whole number from {min} to {max}, not {token:?}"
        ))),
    }
}

fn parse_setoption(
    args: &[&str],
    options: &[OptionDecl],
    caps: EngineCaps,
) -> Result<AllowedCommand, RawCommandRefused> {
    match args.first() {
        Some(w) if w.eq_ignore_ascii_case("name") => {}
        _ => {
            return Err(RawCommandRefused::new(
                "setoption must be: setoption name <name> [value <value>]",
            ))
        }
    }
    let rest = &args[1..];
    let value_at = rest.iter().position(|w| w.eq_ignore_ascii_case("value"));
    let (name_words, value_words) = match value_at {
        Some(v) => (&rest[..v], Some(&rest[v + 1..])),
        None => (rest, None),
    };
    let name = name_words.join(" ");
    if name.is_empty() {
        return Err(RawCommandRefused::new("setoption needs an option name"));
    }
    let decl = options
        .iter()
        .find(|o| {
            o.name
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .eq_ignore_ascii_case(&name)
        })
        .ok_or_else(|| {
            RawCommandRefused::new(format!("the engine declares no option named {name:?}"))
        })?;
    let value = value_words.map(|w| w.join(" "));
    match decl.kind {
        OptionType::Check | OptionType::Spin | OptionType::Combo | OptionType::Button => {}
        OptionType::String | OptionType::Other(_) => {
            return Err(RawCommandRefused::new(format!(
                "option {} is of type {}: only check, spin, combo and button options may be set \
                 (string options can name files on the server; set them in the configuration)",
                decl.name,
                decl.kind.as_str()
            )))
        }
    }
    let value = match (&decl.kind, value) {
        (OptionType::Check, Some(v)) => Some(v.to_ascii_lowercase()),
        (OptionType::Combo, Some(v)) => decl
            .vars
            .iter()
            .find(|var| var.eq_ignore_ascii_case(&v))
            .cloned()
            .or(Some(v)),
        (_, v) => v,
    };
    decl.check_value(value.as_deref())
        .map_err(RawCommandRefused::new)?;
    if decl.kind == OptionType::Spin {
        let cap = if decl.name.eq_ignore_ascii_case("hash") {
            Some(("engines.<name>.max_hash_mb", caps.max_hash_mb))
        } else if decl.name.eq_ignore_ascii_case("threads") {
            Some(("engines.<name>.max_threads", caps.max_threads))
        } else {
            None
        };
        let n: i64 = value.as_deref().unwrap_or("0").parse().unwrap_or(0);
        if let Some((key, cap)) = cap {
            if n > i64::try_from(cap).unwrap_or(i64::MAX) {
                return Err(RawCommandRefused::new(format!(
                    "option {}: {n} is over this server's cap of {cap} ({key})",
                    decl.name
                )));
            }
        }
    }
    Ok(AllowedCommand::SetOption {
        name: decl.name.clone(),
        value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessd_protocol::uci::EngineLine;

    fn stockfish_options() -> Vec<OptionDecl> {
        [
            "option name Debug Log File type string default <empty>",
            "option name Threads type spin default 1 min 1 max 1024",
            "option name Hash type spin default 16 min 1 max 33554432",
            "option name Clear Hash type button",
            "option name Ponder type check default false",
            "option name MultiPV type spin default 1 min 1 max 500",
            "option name Skill Level type spin default 20 min 0 max 20",
            "option name UCI_Chess960 type check default false",
            "option name SyzygyPath type string default <empty>",
            "option name NNUE Style type combo default Fast var Fast var Slow",
        ]
        .iter()
        .map(|l| match EngineLine::parse(l) {
            EngineLine::Option(o) => o,
            other => panic!("not an option line: {other:?}"),
        })
        .collect()
    }

    const CAPS: EngineCaps = EngineCaps {
        max_hash_mb: 256,
        max_threads: 2,
    };

    fn check(line: &str) -> Result<String, RawCommandRefused> {
        check_raw_command(line, &stockfish_options(), CAPS).map(|c| c.to_string())
    }

    #[test]
    fn the_probe_bypasses_of_debug_log_file_are_refused() {
        for line in [
            "setoption name Debug Log File value /tmp/x",
            "setoption NAME Debug Log File value /tmp/x",
            "setoption x Debug Log File value /tmp/x",
            "setoption name Debug  Log File value /tmp/x",
            "setoption name Debug\tLog File value /tmp/x",
            "  setoption name debug log file value /tmp/x",
            "SETOPTION name DEBUG LOG FILE VALUE /tmp/x",
            "setoption name SyzygyPath value /etc",
            "setoption name Hash value 16\nsetoption name Debug Log File value /tmp/x",
            "setoption name Hash value 16\rsetoption name Debug Log File value /tmp/x",
        ] {
            assert!(check(line).is_err(), "accepted {line:?}");
        }
    }

    #[test]
    fn only_the_allow_list_passes() {
        for line in [
            "quit",
            "uci",
            "debug on",
            "position startpos",
            "register later",
            "",
            "   ",
            "isready now",
            "go\u{7}",
        ] {
            assert!(check(line).is_err(), "accepted {line:?}");
        }
        assert_eq!(check("isready").unwrap(), "isready");
        assert_eq!(check("  ISREADY ").unwrap(), "isready");
        assert_eq!(check("ucinewgame").unwrap(), "ucinewgame");
        assert_eq!(check("stop").unwrap(), "stop");
        assert_eq!(check("ponderhit").unwrap(), "ponderhit");
    }

    #[test]
    fn setoption_is_rebuilt_in_the_engines_spelling() {
        assert_eq!(
            check("setoption NAME multipv VALUE 3").unwrap(),
            "setoption name MultiPV value 3"
        );
        assert_eq!(
            check("setoption name  Skill   Level value 5").unwrap(),
            "setoption name Skill Level value 5"
        );
        assert_eq!(
            check("setoption name clear hash").unwrap(),
            "setoption name Clear Hash"
        );
        assert_eq!(
            check("setoption name Ponder value TRUE").unwrap(),
            "setoption name Ponder value true"
        );
        assert_eq!(
            check("setoption name NNUE Style value slow").unwrap(),
            "setoption name NNUE Style value Slow"
        );
        assert!(check("setoption name Ponder value maybe").is_err());
        assert!(check("setoption name NNUE Style value Medium").is_err());
        assert!(check("setoption name Clear Hash value 1").is_err());
        assert!(check("setoption name MultiPV value 501").is_err());
        assert!(check("setoption name MultiPV").is_err());
        assert!(check("setoption name Nonexistent value 1").is_err());
        assert!(check("setoption value 3").is_err());
    }

    #[test]
    fn hash_and_threads_are_capped() {
        assert!(check("setoption name Hash value 256").is_ok());
        assert!(check("setoption name Hash value 1024").is_err());
        assert!(check("setoption name Threads value 2").is_ok());
        assert!(check("setoption name threads value 3").is_err());
    }

    #[test]
    fn go_limits_are_validated() {
        assert_eq!(check("go depth 5").unwrap(), "go depth 5");
        assert_eq!(
            check("GO movetime 100 searchmoves e2e4 d2d4").unwrap(),
            "go movetime 100 searchmoves e2e4 d2d4"
        );
        assert_eq!(check("go infinite").unwrap(), "go infinite");
        assert_eq!(check("go").unwrap(), "go");
        for line in [
            "go depth 0",
            "go depth -1",
            "go depth x",
            "go depth",
            "go depth 5 depth 6",
            "go movetime 0",
            "go nodes 0",
            "go wtime 99999999999",
            "go searchmoves",
            "go searchmoves e2e9",
            "go bogus 1",
            "go depth 5 quit",
        ] {
            assert!(check(line).is_err(), "accepted {line:?}");
        }
    }
}
