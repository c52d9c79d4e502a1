//! The JSON form of the core's mate-in-N [`Solution`]: the object `chessd solve --json` prints
//! and the `result` of a puzzle job, built in one place so both are the very same.

use chessd_core::{
    solver::{MateTree, Solution},
    Move, Position,
};
use serde::Serialize;

/// The JSON object of a solved problem (also the result of a puzzle job).
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[schema(as = Solution)]
pub struct SolutionJson {
    /// Mate length (the shortest unless `shortest` is false), or null for no mate in N.
    pub mate: Option<u32>,
    /// Whether `mate` is proven the shortest: always in the exact mode; in the find mode only
    /// when tightened (`shortest`) and the next shorter length was disproven.
    pub shortest: bool,
    /// Keys in UCI.
    pub keys: Vec<String>,
    /// Exactly one key (all keys searched).
    pub unique: bool,
    /// Whether every key was searched for.
    pub all_keys: bool,
    /// Main line in SAN.
    pub line: Vec<String>,
    /// Main line in UCI.
    pub line_uci: Vec<String>,
    /// The tree of the first key.
    pub tree: Option<TreeJson>,
    /// The trees of the other keys (a cooked problem).
    pub cooks: Vec<TreeJson>,
    /// Every first move mating within N (when asked for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keys_within: Option<Vec<String>>,
    /// Whether the trees are complete.
    pub tree_complete: bool,
    /// Positions searched.
    pub nodes: u64,
    /// Wall time in seconds.
    pub seconds: f64,
}

/// An attacker move with every defence.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[schema(as = MateTree)]
pub struct TreeJson {
    /// SAN.
    #[serde(rename = "move")]
    pub san: String,
    /// UCI.
    pub uci: String,
    /// Attacker moves to mate from here, this one included.
    pub mate_in: u32,
    /// Every legal defence with the answer (empty when the move mates).
    pub defences: Vec<DefenceJson>,
    /// Present (true) when the defences were cut off by the tree size limit.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// A defence and the attacker's answer.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct DefenceJson {
    /// SAN.
    #[serde(rename = "move")]
    pub san: String,
    /// UCI.
    pub uci: String,
    /// The attacker's answer.
    #[schema(no_recursion)]
    pub reply: TreeJson,
}

/// The JSON form of `solution` for the problem `pos`.
pub fn solution_json(pos: &Position, solution: &Solution) -> SolutionJson {
    let uci = |moves: &[Move]| -> Vec<String> {
        let mut p = *pos;
        moves
            .iter()
            .map(|&mv| {
                let text = p.uci(mv);
                p.play_unchecked(mv);
                text
            })
            .collect()
    };
    let root_uci = |moves: &[Move]| moves.iter().map(|&mv| pos.uci(mv)).collect();
    let mut trees = solution.trees.iter().map(|t| tree_json(pos, t));
    SolutionJson {
        mate: solution.mate,
        shortest: solution.shortest_proven,
        keys: root_uci(&solution.keys),
        unique: solution.unique,
        all_keys: solution.all_keys,
        line: solution.main_line.clone(),
        line_uci: uci(&solution.main_line_moves),
        tree: trees.next(),
        cooks: trees.collect(),
        keys_within: solution.keys_within.as_deref().map(root_uci),
        tree_complete: solution.tree_complete,
        nodes: solution.nodes,
        seconds: solution.elapsed.as_secs_f64(),
    }
}

/// The JSON tree of `tree`, whose move is played in `pos`.
fn tree_json(pos: &Position, tree: &MateTree) -> TreeJson {
    let child = pos.after(tree.mv);
    TreeJson {
        san: pos.san(tree.mv),
        uci: pos.uci(tree.mv),
        mate_in: tree.mate_in,
        defences: tree
            .defences
            .iter()
            .map(|d| DefenceJson {
                san: child.san(d.mv),
                uci: child.uci(d.mv),
                reply: tree_json(&child.after(d.mv), &d.reply),
            })
            .collect(),
        truncated: tree.truncated,
    }
}
