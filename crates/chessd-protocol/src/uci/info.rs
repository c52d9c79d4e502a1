//! Engine → GUI: `info` lines (depth, score, PV, …) and their scores.

use std::fmt;

use chessd_core::{Color, Position};
use serde::{ser::SerializeMap, Serialize, Serializer};

use super::rest;

/// A score: centipawns or mate in N moves (negative: the engine is mated), from the point of
/// view of the side to move, possibly only a bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Score {
    /// The value.
    pub value: ScoreValue,
    /// `lowerbound` / `upperbound`, when the score is only a bound.
    pub bound: Option<Bound>,
}

/// A centipawn or mate score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreValue {
    /// `cp N`.
    Cp(i32),
    /// `mate N` (moves, not plies; negative when the side to move is mated).
    Mate(i32),
}

/// Which bound a score is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The real score is at least this (`lowerbound`).
    Lower,
    /// The real score is at most this (`upperbound`).
    Upper,
}

impl Score {
    /// This score, given from `pov`'s side, from White's side (as python-chess's
    /// `PovScore.white()`): negated when `pov` is Black, bounds swapped.
    pub fn for_white(self, pov: Color) -> Score {
        if pov == Color::White {
            return self;
        }
        Score {
            value: match self.value {
                ScoreValue::Cp(n) => ScoreValue::Cp(n.saturating_neg()),
                ScoreValue::Mate(n) => ScoreValue::Mate(n.saturating_neg()),
            },
            bound: self.bound.map(|b| match b {
                Bound::Lower => Bound::Upper,
                Bound::Upper => Bound::Lower,
            }),
        }
    }
}

/// The SAN of the moves of a principal variation `pv` (UCI) from `root`, up to the first that
/// is not legal.
pub fn pv_san(root: &Position, pv: &[String]) -> Vec<String> {
    let mut pos = *root;
    let mut out = Vec::with_capacity(pv.len());
    for text in pv {
        let Ok(mv) = pos.parse_uci(text) else { break };
        out.push(pos.san(mv));
        pos = pos.after(mv);
    }
    out
}

impl Serialize for Score {
    /// `{"cp": N}` or `{"mate": N}`, with `"bound": "lower"|"upper"` when it is a bound.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        match self.value {
            ScoreValue::Cp(n) => map.serialize_entry("cp", &n)?,
            ScoreValue::Mate(n) => map.serialize_entry("mate", &n)?,
        }
        match self.bound {
            Some(Bound::Lower) => map.serialize_entry("bound", "lower")?,
            Some(Bound::Upper) => map.serialize_entry("bound", "upper")?,
            None => {}
        }
        map.end()
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.value {
            ScoreValue::Cp(n) => write!(f, "cp {n}")?,
            ScoreValue::Mate(n) => write!(f, "mate {n}")?,
        }
        match self.bound {
            Some(Bound::Lower) => f.write_str(" lowerbound"),
            Some(Bound::Upper) => f.write_str(" upperbound"),
            None => Ok(()),
        }
    }
}

/// Win/draw/loss expectation in permille (`wdl W D L`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Wdl {
    /// Wins per mille.
    pub win: u32,
    /// Draws per mille.
    pub draw: u32,
    /// Losses per mille.
    pub loss: u32,
}

/// An `info` line. Every field is optional; tokens this parser does not know are kept in
/// [`Info::other`] in their order (and printed after the known fields, so such a line does not
/// always print back to an equal `Info`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "utoipa", schema(as = EngineInfo))]
pub struct Info {
    /// Search depth in plies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Selective depth.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seldepth: Option<u32>,
    /// Which line of a MultiPV search (1 = best).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multipv: Option<u32>,
    /// The line's score.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(value_type = Option<crate::schema::ScoreView>))]
    pub score: Option<Score>,
    /// Win/draw/loss expectation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wdl: Option<Wdl>,
    /// Nodes searched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Nodes per second.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nps: Option<u64>,
    /// Milliseconds searched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<u64>,
    /// Transposition table fill, per mille.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hashfull: Option<u32>,
    /// Tablebase hits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tbhits: Option<u64>,
    /// Shredder endgame database hits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sbhits: Option<u64>,
    /// CPU load, per mille.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpuload: Option<u32>,
    /// The move being searched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub currmove: Option<String>,
    /// Its number in the move list (1-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub currmovenumber: Option<u32>,
    /// The principal variation, UCI text.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pv: Vec<String>,
    /// `string …`: free text to the end of the line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub string: Option<String>,
    /// Tokens not understood (including `refutation` and `currline` with their moves).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub other: Vec<String>,
}

/// The keywords of an `info` line (they end a `pv` list).
const INFO_KEYWORDS: [&str; 19] = [
    "depth",
    "seldepth",
    "multipv",
    "score",
    "wdl",
    "nodes",
    "nps",
    "time",
    "hashfull",
    "tbhits",
    "sbhits",
    "cpuload",
    "currmove",
    "currmovenumber",
    "pv",
    "string",
    "refutation",
    "currline",
    "lowerbound",
];

impl Info {
    pub(super) fn parse(line: &str, toks: &[(usize, &str)]) -> Info {
        let words: Vec<&str> = toks.iter().map(|&(_, t)| t).collect();
        let mut info = Info::default();
        let mut i = 1;
        while i < words.len() {
            let key = words[i];
            let next = words.get(i + 1).copied();
            i += 1;
            match key {
                "string" => {
                    info.string = Some(rest(line, toks, i));
                    break;
                }
                "pv" => {
                    while i < words.len() && !INFO_KEYWORDS.contains(&words[i]) {
                        info.pv.push(words[i].to_string());
                        i += 1;
                    }
                }
                "currmove" => {
                    if let Some(m) = next {
                        info.currmove = Some(m.to_string());
                        i += 1;
                    }
                }
                "score" => {
                    let value = match (next, words.get(i + 1).and_then(|w| w.parse::<i32>().ok())) {
                        (Some("cp"), Some(n)) => ScoreValue::Cp(n),
                        (Some("mate"), Some(n)) => ScoreValue::Mate(n),
                        _ => {
                            info.other.push(key.to_string());
                            continue;
                        }
                    };
                    i += 2;
                    let bound = match words.get(i).copied() {
                        Some("lowerbound") => Some(Bound::Lower),
                        Some("upperbound") => Some(Bound::Upper),
                        _ => None,
                    };
                    if bound.is_some() {
                        i += 1;
                    }
                    info.score = Some(Score { value, bound });
                }
                "wdl" => {
                    let nums: Vec<u32> = words
                        .iter()
                        .skip(i)
                        .take(3)
                        .map_while(|w| w.parse().ok())
                        .collect();
                    if let [win, draw, loss] = nums[..] {
                        info.wdl = Some(Wdl { win, draw, loss });
                        i += 3;
                    } else {
                        info.other.push(key.to_string());
                    }
                }
                "depth" | "seldepth" | "multipv" | "hashfull" | "cpuload" | "currmovenumber"
                | "nodes" | "nps" | "time" | "tbhits" | "sbhits" => {
                    let Some(value) = next.and_then(|w| w.parse::<u64>().ok()) else {
                        info.other.push(key.to_string());
                        continue;
                    };
                    i += 1;
                    let small = u32::try_from(value).unwrap_or(u32::MAX);
                    match key {
                        "depth" => info.depth = Some(small),
                        "seldepth" => info.seldepth = Some(small),
                        "multipv" => info.multipv = Some(small),
                        "hashfull" => info.hashfull = Some(small),
                        "cpuload" => info.cpuload = Some(small),
                        "currmovenumber" => info.currmovenumber = Some(small),
                        "nodes" => info.nodes = Some(value),
                        "nps" => info.nps = Some(value),
                        "time" => info.time = Some(value),
                        "tbhits" => info.tbhits = Some(value),
                        _ => info.sbhits = Some(value),
                    }
                }
                other => info.other.push(other.to_string()),
            }
        }
        info
    }
}

impl fmt::Display for Info {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("info")?;
        let numbers = [
            ("depth", self.depth.map(u64::from)),
            ("seldepth", self.seldepth.map(u64::from)),
            ("multipv", self.multipv.map(u64::from)),
        ];
        for (key, value) in numbers {
            if let Some(v) = value {
                write!(f, " {key} {v}")?;
            }
        }
        if let Some(score) = &self.score {
            write!(f, " score {score}")?;
        }
        if let Some(Wdl { win, draw, loss }) = self.wdl {
            write!(f, " wdl {win} {draw} {loss}")?;
        }
        let numbers = [
            ("nodes", self.nodes),
            ("nps", self.nps),
            ("hashfull", self.hashfull.map(u64::from)),
            ("tbhits", self.tbhits),
            ("sbhits", self.sbhits),
            ("cpuload", self.cpuload.map(u64::from)),
            ("time", self.time),
        ];
        for (key, value) in numbers {
            if let Some(v) = value {
                write!(f, " {key} {v}")?;
            }
        }
        if let Some(m) = &self.currmove {
            write!(f, " currmove {m}")?;
        }
        if let Some(n) = self.currmovenumber {
            write!(f, " currmovenumber {n}")?;
        }
        for t in &self.other {
            write!(f, " {t}")?;
        }
        if !self.pv.is_empty() {
            f.write_str(" pv")?;
            for m in &self.pv {
                write!(f, " {m}")?;
            }
        }
        if let Some(s) = &self.string {
            write!(f, " string {s}")?;
        }
        Ok(())
    }
}
