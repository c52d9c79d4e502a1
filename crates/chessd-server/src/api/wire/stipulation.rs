//! The JSON forms of helpmate and selfmate solutions ([`HelpSolution`], [`SelfSolution`]): what
//! `chessd solve --stipulation h#N|s#N --json` prints and the `result` of such a puzzle job.

use chessd_core::{
    solver::{HelpSolution, SelfSolution, SelfTree},
    Move, Position,
};
use serde::Serialize;

/// A solved helpmate (`h#N`): every solution.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct HelpJson {
    /// The stipulation, e.g. `h#2`.
    pub stipulation: String,
    /// Every solution (shorter ones first, as Popeye lists them).
    pub solutions: Vec<LineJson>,
    /// Whether the problem is sound: exactly one solution.
    pub sound: bool,
    /// Positions searched.
    pub nodes: u64,
    /// Wall time in seconds.
    pub seconds: f64,
}

/// One helpmate solution: the whole line, the side to move first.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct LineJson {
    /// Move pairs (the mating side's moves).
    pub moves: u32,
    /// The line in SAN (the last move with `#`).
    pub san: Vec<String>,
    /// The line in UCI.
    pub uci: Vec<String>,
}

/// A solved selfmate (`s#N`): every key and one complete tree per key.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct SelfJson {
    /// The stipulation, e.g. `s#3`.
    pub stipulation: String,
    /// Every key in UCI (empty: no solution).
    pub keys: Vec<String>,
    /// Every key in SAN.
    pub keys_san: Vec<String>,
    /// Whether the problem is sound: exactly one key.
    pub sound: bool,
    /// One tree per key, in the order of `keys`.
    pub trees: Vec<SelfTreeJson>,
    /// Whether every tree is complete (none cut at the size limit).
    pub tree_complete: bool,
    /// Positions searched.
    pub nodes: u64,
    /// Wall time in seconds.
    pub seconds: f64,
}

/// A move of the side that wants to be mated, with every defence against it.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct SelfTreeJson {
    /// SAN.
    #[serde(rename = "move")]
    pub san: String,
    /// UCI.
    pub uci: String,
    /// Defender moves to the forced mate against the most stubborn defence.
    pub mate_in: u32,
    /// Every legal defence: it mates (a leaf) or is answered.
    pub defences: Vec<SelfDefenceJson>,
    /// Present (true) when the defences were cut off by the tree size limit.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// A defence in a selfmate tree.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct SelfDefenceJson {
    /// SAN.
    #[serde(rename = "move")]
    pub san: String,
    /// UCI.
    pub uci: String,
    /// Whether the defence mates (the forced mate; no reply then).
    pub mates: bool,
    /// The answer, when the defence does not mate.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(no_recursion)]
    pub reply: Option<SelfTreeJson>,
}

/// The JSON form of the helpmate `help` of the problem `pos`.
pub fn help_json(pos: &Position, help: &HelpSolution) -> HelpJson {
    HelpJson {
        stipulation: format!("h#{}", help.moves),
        solutions: help.solutions.iter().map(|l| line_json(pos, l)).collect(),
        sound: help.unique(),
        nodes: help.nodes,
        seconds: help.elapsed.as_secs_f64(),
    }
}

fn line_json(pos: &Position, line: &[Move]) -> LineJson {
    let mut p = *pos;
    let (mut san, mut uci) = (Vec::new(), Vec::new());
    for &mv in line {
        san.push(p.san(mv));
        uci.push(p.uci(mv));
        p.play_unchecked(mv);
    }
    LineJson {
        moves: (line.len() / 2) as u32,
        san,
        uci,
    }
}

/// The JSON form of the selfmate `solution` of the problem `pos`.
pub fn self_json(pos: &Position, solution: &SelfSolution) -> SelfJson {
    SelfJson {
        stipulation: format!("s#{}", solution.moves),
        keys: solution.keys.iter().map(|&k| pos.uci(k)).collect(),
        keys_san: solution.keys.iter().map(|&k| pos.san(k)).collect(),
        sound: solution.unique(),
        trees: solution.trees.iter().map(|t| tree_json(pos, t)).collect(),
        tree_complete: solution.tree_complete,
        nodes: solution.nodes,
        seconds: solution.elapsed.as_secs_f64(),
    }
}

fn tree_json(pos: &Position, tree: &SelfTree) -> SelfTreeJson {
    let child = pos.after(tree.mv);
    SelfTreeJson {
        san: pos.san(tree.mv),
        uci: pos.uci(tree.mv),
        mate_in: tree.mate_in,
        defences: tree
            .defences
            .iter()
            .map(|d| SelfDefenceJson {
                san: child.san(d.mv),
                uci: child.uci(d.mv),
                mates: d.mates,
                reply: d.reply.as_ref().map(|r| tree_json(&child.after(d.mv), r)),
            })
            .collect(),
        truncated: tree.truncated,
    }
}
