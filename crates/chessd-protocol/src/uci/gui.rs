//! GUI → engine: the commands a GUI sends ([`GuiCommand`]), the start of a `position` and the
//! limits of a `go`.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{parse_u64, rest, span, tokens};

/// The position a `position` command starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartPosition {
    /// `position startpos`.
    StartPos,
    /// `position fen <fen>`.
    Fen(String),
}

/// Whether `text` has the shape of a UCI move (`e2e4`, `e7e8q`; lower-case squares).
pub fn looks_like_uci_move(text: &str) -> bool {
    let b = text.as_bytes();
    let square = |f: u8, r: u8| (b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r);
    (b.len() == 4 || (b.len() == 5 && b"qrbnQRBN".contains(&b[4])))
        && square(b[0], b[1])
        && square(b[2], b[3])
}

/// Limits of a `go` command; also the JSON body giving search limits over REST (every field
/// optional, unknown fields refused). Times are in milliseconds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct GoLimits {
    /// Search this many plies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(minimum = 1, maximum = 256))]
    pub depth: Option<u32>,
    /// Search this many nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "utoipa",
        schema(minimum = 1, maximum = 18446744073709551615_usize)
    )]
    pub nodes: Option<u64>,
    /// Search exactly this long.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(minimum = 1, maximum = 86400000))]
    pub movetime: Option<u64>,
    /// White's remaining clock time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(maximum = 86400000))]
    pub wtime: Option<u64>,
    /// Black's remaining clock time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(maximum = 86400000))]
    pub btime: Option<u64>,
    /// White's increment per move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(maximum = 86400000))]
    pub winc: Option<u64>,
    /// Black's increment per move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(maximum = 86400000))]
    pub binc: Option<u64>,
    /// Moves to the next time control.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(minimum = 1, maximum = 256))]
    pub movestogo: Option<u32>,
    /// Search for a mate in this many moves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(minimum = 1, maximum = 256))]
    pub mate: Option<u32>,
    /// Search until `stop`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub infinite: bool,
    /// Ponder (search the expected reply) until `ponderhit` or `stop`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub ponder: bool,
    /// Only consider these moves (UCI text).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "utoipa", schema(value_type = Vec<crate::schema::UciMoveText>))]
    pub searchmoves: Vec<String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The keywords of a `go` command (they end a `searchmoves` list).
const GO_KEYWORDS: [&str; 12] = [
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "mate",
    "infinite",
    "ponder",
    "searchmoves",
];

impl GoLimits {
    /// True when no limit at all is given (a bare `go`, which engines treat as infinite or
    /// as their own default).
    pub fn is_empty(&self) -> bool {
        *self == GoLimits::default()
    }

    /// The longest the search may run by its own limits, if it has a time bound: `movetime`, or
    /// the side to move's whole remaining clock (plus increment). `None` for depth/nodes/mate
    /// limits or infinite searches. `white_to_move` picks the clock.
    pub fn time_bound_ms(&self, white_to_move: bool) -> Option<u64> {
        if self.infinite || self.ponder {
            return None;
        }
        if let Some(t) = self.movetime {
            return Some(t);
        }
        let (time, inc) = if white_to_move {
            (self.wtime, self.winc)
        } else {
            (self.btime, self.binc)
        };
        time.map(|t| t + inc.unwrap_or(0))
    }

    /// Parses the tokens after `go`; unknown tokens and bad numbers are skipped.
    fn parse_tokens(toks: &[&str]) -> GoLimits {
        let mut g = GoLimits::default();
        let mut i = 0;
        while i < toks.len() {
            let key = toks[i];
            let next = toks.get(i + 1).copied();
            i += 1;
            match key {
                "infinite" => g.infinite = true,
                "ponder" => g.ponder = true,
                "searchmoves" => {
                    while i < toks.len() && !GO_KEYWORDS.contains(&toks[i]) {
                        g.searchmoves.push(toks[i].to_string());
                        i += 1;
                    }
                }
                "depth" | "nodes" | "movetime" | "wtime" | "btime" | "winc" | "binc"
                | "movestogo" | "mate" => {
                    let Some(value) = next.and_then(parse_u64) else {
                        continue;
                    };
                    i += 1;
                    let small = u32::try_from(value).unwrap_or(u32::MAX);
                    match key {
                        "depth" => g.depth = Some(small),
                        "nodes" => g.nodes = Some(value),
                        "movetime" => g.movetime = Some(value),
                        "wtime" => g.wtime = Some(value),
                        "btime" => g.btime = Some(value),
                        "winc" => g.winc = Some(value),
                        "binc" => g.binc = Some(value),
                        "movestogo" => g.movestogo = Some(small),
                        _ => g.mate = Some(small),
                    }
                }
                _ => {}
            }
        }
        g
    }
}

impl fmt::Display for GoLimits {
    /// The `go` command for these limits (`go depth 5 movetime 100`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("go")?;
        if self.ponder {
            f.write_str(" ponder")?;
        }
        let numbers = [
            ("wtime", self.wtime),
            ("btime", self.btime),
            ("winc", self.winc),
            ("binc", self.binc),
            ("movestogo", self.movestogo.map(u64::from)),
            ("depth", self.depth.map(u64::from)),
            ("nodes", self.nodes),
            ("mate", self.mate.map(u64::from)),
            ("movetime", self.movetime),
        ];
        for (key, value) in numbers {
            if let Some(v) = value {
                write!(f, " {key} {v}")?;
            }
        }
        if self.infinite {
            f.write_str(" infinite")?;
        }
        if !self.searchmoves.is_empty() {
            f.write_str(" searchmoves")?;
            for m in &self.searchmoves {
                write!(f, " {m}")?;
            }
        }
        Ok(())
    }
}

/// A command from the GUI (chessd) to the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GuiCommand {
    /// `uci`: start the handshake.
    Uci,
    /// `debug on|off`.
    Debug(bool),
    /// `isready`: answered by `readyok`.
    IsReady,
    /// `setoption name <name> [value <value>]` (no value for buttons).
    SetOption {
        /// The option's name (may contain spaces).
        name: String,
        /// Its new value.
        value: Option<String>,
    },
    /// `ucinewgame`.
    UciNewGame,
    /// `position startpos|fen <fen> [moves …]`.
    Position {
        /// Where the moves start.
        start: StartPosition,
        /// Moves from there, UCI text.
        moves: Vec<String>,
    },
    /// `go …`.
    Go(GoLimits),
    /// `stop`.
    Stop,
    /// `ponderhit`.
    PonderHit,
    /// `quit`.
    Quit,
    /// Anything else, as given (trimmed).
    Unknown(String),
}

impl GuiCommand {
    /// Parses one line; never fails (see [`GuiCommand::Unknown`]).
    pub fn parse(line: &str) -> GuiCommand {
        let toks = tokens(line);
        let words: Vec<&str> = toks.iter().map(|&(_, t)| t).collect();
        let unknown = || GuiCommand::Unknown(line.trim().to_string());
        match words.first().copied() {
            Some("uci") if words.len() == 1 => GuiCommand::Uci,
            Some("isready") => GuiCommand::IsReady,
            Some("ucinewgame") => GuiCommand::UciNewGame,
            Some("stop") => GuiCommand::Stop,
            Some("ponderhit") => GuiCommand::PonderHit,
            Some("quit") => GuiCommand::Quit,
            Some("debug") => match words.get(1).copied() {
                Some("on") | None => GuiCommand::Debug(true),
                Some("off") => GuiCommand::Debug(false),
                _ => unknown(),
            },
            Some("go") => GuiCommand::Go(GoLimits::parse_tokens(&words[1..])),
            Some("setoption") => {
                if words.get(1) != Some(&"name") {
                    return unknown();
                }
                let value_at = words.iter().skip(2).position(|&w| w == "value");
                match value_at {
                    Some(v) => GuiCommand::SetOption {
                        name: span(line, &toks, 2, v + 2),
                        value: Some(rest(line, &toks, v + 3)),
                    },
                    None => GuiCommand::SetOption {
                        name: rest(line, &toks, 2),
                        value: None,
                    },
                }
            }
            Some("position") => {
                let moves_at = words.iter().position(|&w| w == "moves");
                let end = moves_at.unwrap_or(words.len());
                let start = match words.get(1).copied() {
                    Some("startpos") => StartPosition::StartPos,
                    Some("fen") if end > 2 => StartPosition::Fen(words[2..end].join(" ")),
                    _ => return unknown(),
                };
                let moves = moves_at
                    .map(|m| words[m + 1..].iter().map(|s| s.to_string()).collect())
                    .unwrap_or_default();
                GuiCommand::Position { start, moves }
            }
            _ => unknown(),
        }
    }
}

impl fmt::Display for GuiCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GuiCommand::Uci => f.write_str("uci"),
            GuiCommand::Debug(on) => f.write_str(if *on { "debug on" } else { "debug off" }),
            GuiCommand::IsReady => f.write_str("isready"),
            GuiCommand::SetOption { name, value } => {
                write!(f, "setoption name {name}")?;
                match value {
                    Some(v) => write!(f, " value {v}"),
                    None => Ok(()),
                }
            }
            GuiCommand::UciNewGame => f.write_str("ucinewgame"),
            GuiCommand::Position { start, moves } => {
                match start {
                    StartPosition::StartPos => f.write_str("position startpos")?,
                    StartPosition::Fen(fen) => write!(f, "position fen {fen}")?,
                }
                if !moves.is_empty() {
                    f.write_str(" moves")?;
                    for m in moves {
                        write!(f, " {m}")?;
                    }
                }
                Ok(())
            }
            GuiCommand::Go(limits) => limits.fmt(f),
            GuiCommand::Stop => f.write_str("stop"),
            GuiCommand::PonderHit => f.write_str("ponderhit"),
            GuiCommand::Quit => f.write_str("quit"),
            GuiCommand::Unknown(text) => f.write_str(text),
        }
    }
}
