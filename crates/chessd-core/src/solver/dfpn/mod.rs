//! The find mode: a proven forced mate in at most N moves, not necessarily the shortest, by
//! depth-first proof-number search (df-pn).
//!
//! What is taken from the literature:
//! - Allis's proof-number search: attacker (OR) nodes take the smallest proof number and the
//!   sum of the disproof numbers of their children, defender (AND) nodes the reverse, and the
//!   most-proving node is expanded next;
//! - Nagai's df-pn (2002): the same best-first order searched depth-first with thresholds
//!   (`mid`, in [`search`]), a transposition table of proof and disproof numbers instead of a
//!   tree in memory, and the search's numbers as the table's content;
//! - df-pn+ and the survey of Kishimoto, Winands, Müller and Saito (2012): heuristic initial
//!   numbers (the defender's mobility, checks and captures first, in [`numbers`]), work-based
//!   replacement in the table, and the 1+ε trick of Pawlewicz and Lew against the thrashing
//!   between two branches of nearly equal numbers;
//! - mate-distance bounds: a node is a position with its remaining number of attacker moves,
//!   and a proven entry keeps the length of its mate, so "mate in at most N" is what is proven
//!   and the proof tree is read back with the lengths. Because the remaining depth falls with
//!   each attacker move, the search graph has no cycles, and the graph-history interaction
//!   problem (the subject of most of the survey's fixes) does not arise.
//!
//! Every attacker move is considered (not only checks): the initial numbers put checks and
//! captures with few replies first. After the proof a complete proof tree is built (every
//! legal defence answered down to checkmate, see [`tree`]); a mate is only reported when the
//! search proved it. With `shortest`, the search runs again at the found length minus one,
//! and so on, until a length is disproven (the mate is then the shortest) or a limit stops it.

mod numbers;
mod search;
mod table;
mod tree;

use std::time::Instant;

use super::{
    limits::Limits,
    san_line,
    search::{Searcher, NO_KILLERS},
    table::MateTable,
    MateTree, Solution, SolveError, Solver,
};

/// The leaf solver's table (bytes; less when the whole table is to be smaller).
const LEAF_TABLE_BYTES: usize = 4 << 20;
use search::Search;
use table::Table;
use tree::ProofBuilder;

/// Runs the find mode for `solver` (already validated); `shortest` tightens the mate.
pub(super) fn find(
    solver: &Solver<'_>,
    shortest: bool,
    start: Instant,
) -> Result<Solution, SolveError> {
    let limits = Limits::of(solver);
    let table = Table::with_bytes(solver.table_mb.saturating_mul(1 << 20));
    let leaf_table = MateTable::with_bytes(LEAF_TABLE_BYTES.min(solver.table_mb << 20));
    let leaf = Searcher::new(&leaf_table, &limits, NO_KILLERS);
    let mut search = Search::new(table, leaf, &limits);
    let pos = &solver.pos;
    let num = search.prove(pos, solver.mate_in);
    search.flush();
    if num.dn == 0 {
        return Ok(solution(
            None,
            None,
            true,
            true,
            search.total_nodes(),
            start,
            pos,
        ));
    }
    if num.pn != 0 {
        return Err(SolveError::Stopped {
            reason: limits.stop_reason().unwrap_or(super::StopReason::Cancelled),
            no_mate_within: 0,
            nodes: search.total_nodes(),
            elapsed: start.elapsed(),
        });
    }
    let (mut tree, mut complete) = proof_tree(&mut search, solver, solver.mate_in, num.len);
    let mut shortest_proven = tree.as_ref().is_some_and(|t| t.mate_in == 1 && complete);
    if shortest {
        while let Some(t) = tree.as_ref().filter(|_| !shortest_proven && complete) {
            let target = t.mate_in - 1;
            let num = search.prove(pos, target);
            if num.dn == 0 {
                shortest_proven = true;
            } else if num.pn == 0 {
                let (next, next_complete) = proof_tree(&mut search, solver, target, num.len);
                if next.is_some() && next_complete {
                    tree = next;
                    shortest_proven = tree.as_ref().is_some_and(|t| t.mate_in == 1);
                    continue;
                }
            }
            break;
        }
    }
    search.flush();
    if tree.is_none() {
        complete = false;
    }
    let mate = tree.as_ref().map(|t| t.mate_in).or(Some(num.len));
    Ok(solution(
        mate,
        tree,
        complete,
        shortest_proven,
        search.total_nodes(),
        start,
        pos,
    ))
}

/// The proof tree of a root proven to mate within `depth` (the search's length `len`), and
/// whether it is complete.
fn proof_tree(
    search: &mut Search<'_>,
    solver: &Solver<'_>,
    depth: u32,
    len: u32,
) -> (Option<MateTree>, bool) {
    let mut builder = ProofBuilder::new(search, solver.tree_limit);
    let Some((key, _)) = builder.mating_move(&solver.pos, depth) else {
        return (None, false);
    };
    let mut tree = builder.build(&solver.pos, key, depth);
    if !builder.complete {
        tree.mate_in = tree.mate_in.min(len.max(1));
    }
    (Some(tree), builder.complete)
}

/// The [`Solution`] of a find.
fn solution(
    mate: Option<u32>,
    tree: Option<MateTree>,
    tree_complete: bool,
    shortest_proven: bool,
    nodes: u64,
    start: Instant,
    pos: &crate::Position,
) -> Solution {
    let main_line_moves = tree.as_ref().map(MateTree::main_line).unwrap_or_default();
    Solution {
        mate,
        keys: tree.iter().map(|t| t.mv).collect(),
        all_keys: false,
        unique: false,
        keys_within: None,
        trees: tree.into_iter().collect(),
        tree_complete,
        shortest_proven,
        main_line: san_line(pos, &main_line_moves),
        main_line_moves,
        nodes,
        elapsed: start.elapsed(),
    }
}
