//! Engine → GUI: one line an engine prints, typed ([`EngineLine`]), and its `bestmove`.

use std::fmt;

use super::{
    info::Info,
    options::{IdLine, OptionDecl},
    rest, tokens,
};

/// A `bestmove` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BestMove {
    /// The move, UCI text; `None` for `bestmove (none)`, `bestmove 0000` or a bare `bestmove`
    /// (no legal move).
    pub best: Option<String>,
    /// The expected reply the engine would ponder on.
    pub ponder: Option<String>,
}

impl fmt::Display for BestMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bestmove {}", self.best.as_deref().unwrap_or("(none)"))?;
        if let Some(p) = &self.ponder {
            write!(f, " ponder {p}")?;
        }
        Ok(())
    }
}

/// A line from the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineLine {
    /// `id name|author …`.
    Id(IdLine),
    /// `uciok`: the handshake's end.
    UciOk,
    /// `readyok`: the answer to `isready`.
    ReadyOk,
    /// `option …`: a declared option.
    Option(OptionDecl),
    /// `info …`.
    Info(Box<Info>),
    /// `bestmove …`: the search's end.
    BestMove(BestMove),
    /// Anything else, as sent (trimmed).
    Raw(String),
}

impl EngineLine {
    /// Parses one line; never fails (see [`EngineLine::Raw`]).
    pub fn parse(line: &str) -> EngineLine {
        let toks = tokens(line);
        let raw = || EngineLine::Raw(line.trim().to_string());
        let Some(&(_, first)) = toks.first() else {
            return raw();
        };
        let second = toks.get(1).map(|&(_, w)| w);
        match first {
            "uciok" if toks.len() == 1 => EngineLine::UciOk,
            "readyok" if toks.len() == 1 => EngineLine::ReadyOk,
            "id" => match second {
                Some("name") => EngineLine::Id(IdLine::Name(rest(line, &toks, 2))),
                Some("author") => EngineLine::Id(IdLine::Author(rest(line, &toks, 2))),
                _ => raw(),
            },
            "option" => OptionDecl::parse(line, &toks)
                .map(EngineLine::Option)
                .unwrap_or_else(raw),
            "info" => EngineLine::Info(Box::new(Info::parse(line, &toks))),
            "bestmove" => {
                let best = second
                    .filter(|m| !matches!(*m, "(none)" | "0000" | "none" | "ponder"))
                    .map(str::to_string);
                let ponder_at = toks.iter().position(|&(_, w)| w == "ponder");
                let ponder = ponder_at
                    .and_then(|p| toks.get(p + 1))
                    .map(|&(_, w)| w)
                    .filter(|m| !matches!(*m, "(none)" | "0000"))
                    .map(str::to_string);
                EngineLine::BestMove(BestMove { best, ponder })
            }
            _ => raw(),
        }
    }
}

impl fmt::Display for EngineLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineLine::Id(IdLine::Name(n)) => write!(f, "id name {n}"),
            EngineLine::Id(IdLine::Author(a)) => write!(f, "id author {a}"),
            EngineLine::UciOk => f.write_str("uciok"),
            EngineLine::ReadyOk => f.write_str("readyok"),
            EngineLine::Option(o) => o.fmt(f),
            EngineLine::Info(i) => i.fmt(f),
            EngineLine::BestMove(b) => b.fmt(f),
            EngineLine::Raw(r) => f.write_str(r),
        }
    }
}
