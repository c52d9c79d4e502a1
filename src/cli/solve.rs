//! `chessd solve <FEN> --mate N [--first-key] [--within] [--threads N] [--table MiB]
//! [--time-limit-ms T] [--json]`, or `chessd solve <FEN> --find --mate N [--shortest] ...`,
//! or `chessd solve <FEN> --stipulation h#N|s#N|#N ...` (helpmates and selfmates: see
//! [`chessd_core::solver::Stipulation`]; `--mate N` is `--stipulation '#N'`).
//!
//! Like the puzzle API, it finds every key and decides uniqueness unless told to stop at the
//! first key. With `--find` it proves a mate in at most N (up to 32), not necessarily the
//! shortest, by proof-number search, with one complete proof tree; `--shortest` then tightens
//! it within the time limit.

use std::{
    process::ExitCode,
    time::{Duration, Instant},
};

use chessd_core::{
    solver::{
        HelpSolution, MateTree, SelfSolution, SelfTree, Solution, SolveError, Solver, Stipulation,
        DEFAULT_TABLE_MB,
    },
    Color, FenMode, Move, Position,
};
use chessd_server::api::wire::{
    solution::solution_json,
    stipulation::{help_json, self_json},
};
use clap::Args;
use serde::Serialize;

use super::usage_error;

/// The longest mate the command accepts in the exact mode.
const MAX_MATE: u32 = 8;

/// The longest mate the command accepts in the find mode.
const MAX_FIND_MATE: i64 = chessd_core::solver::MAX_MATE as i64;

/// Arguments of `chessd solve`.
#[derive(Debug, Args)]
pub(crate) struct SolveArgs {
    /// The position (strict FEN); the side to move is the one that mates.
    #[arg(value_name = "FEN")]
    pub fen: String,
    /// Mate in at most this many moves of the side to move (1 to 8; with --find 1 to 32).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=MAX_FIND_MATE),
          required_unless_present = "stipulation", conflicts_with = "stipulation")]
    pub mate: Option<u32>,
    /// What the problem asks: `#N` (as --mate N), `h#N` (helpmate: the side to move begins
    /// and is mated, both cooperating; every solution listed) or `s#N` (selfmate: the side to
    /// move begins and forces the other side to mate it; every key with its tree). N is 1 to 8.
    #[arg(long, value_name = "STIP")]
    pub stipulation: Option<String>,
    /// Find a proven mate in at most N, not necessarily the shortest (proof-number search,
    /// one thread, one key), with a complete proof tree.
    #[arg(long, conflicts_with_all = ["all_keys", "first_key", "within"])]
    pub find: bool,
    /// With --find: search again at the found length minus one, and so on, within the time
    /// limit, and say whether the mate is proven the shortest.
    #[arg(long, requires = "find")]
    pub shortest: bool,
    /// Find every key at the shortest length and decide uniqueness (the default, as in the
    /// puzzle API; kept so that older command lines still work).
    #[arg(long, conflicts_with = "first_key")]
    pub all_keys: bool,
    /// Stop at the first key (faster; uniqueness is then not decided).
    #[arg(long)]
    pub first_key: bool,
    /// Also list every first move that mates within N, not only in the fewest moves.
    #[arg(long)]
    pub within: bool,
    /// Search threads (0: one per core).
    #[arg(long, short = 't', value_name = "N", default_value_t = 1)]
    pub threads: usize,
    /// Most memory for the transposition table, in MiB.
    #[arg(long, value_name = "MiB", default_value_t = DEFAULT_TABLE_MB)]
    pub table: usize,
    /// Give up after this many milliseconds.
    #[arg(long, value_name = "T")]
    pub time_limit_ms: Option<u64>,
    /// Print exactly one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Runs `chessd solve`.
pub(crate) fn run(args: &SolveArgs) -> ExitCode {
    let pos = match Position::from_fen(&args.fen, FenMode::Strict) {
        Ok(pos) => pos,
        Err(e) => return usage_error("solve", &format!("invalid FEN '{}': {e}", args.fen)),
    };
    let stipulation = match (&args.stipulation, args.mate) {
        (Some(text), _) => match text.parse::<Stipulation>() {
            Ok(s) => s,
            Err(e) => return usage_error("solve", &e.to_string()),
        },
        (None, Some(n)) => Stipulation::Direct(n),
        // clap requires one of the two.
        (None, None) => return usage_error("solve", "give --mate N or --stipulation"),
    };
    let mate = stipulation.moves();
    if !args.find && mate > MAX_MATE {
        return usage_error(
            "solve",
            &format!("{stipulation} is over {MAX_MATE} moves without --find"),
        );
    }
    if !matches!(stipulation, Stipulation::Direct(_)) {
        if args.find || args.within || args.first_key || args.shortest {
            return usage_error(
                "solve",
                "--find, --shortest, --within and --first-key are for #N only",
            );
        }
        return run_other(pos, stipulation, args);
    }
    let mut solver = Solver::new(pos)
        .mate_in(mate)
        .threads(args.threads)
        .table_mb(args.table)
        .find_all_keys(!args.first_key)
        .keys_within(args.within)
        .shortest(args.shortest);
    if let Some(ms) = args.time_limit_ms {
        solver = solver.deadline(Instant::now() + Duration::from_millis(ms));
    }
    let result = if args.find {
        solver.find()
    } else {
        solver.solve()
    };
    match result {
        Ok(solution) => {
            if args.json {
                return print_json(&solution_json(&pos, &solution));
            }
            print!("{}", human_output(&pos, &solution, args, mate));
            ExitCode::SUCCESS
        }
        Err(e) => solve_failed(e, args.json),
    }
}

/// Reports a search that gave no answer: a bad problem is a usage error, a stopped search a
/// failure (with its JSON when asked).
fn solve_failed(e: SolveError, json: bool) -> ExitCode {
    match e {
        SolveError::InvalidMateLength(_) | SolveError::OpponentInCheck => {
            usage_error("solve", &e.to_string())
        }
        SolveError::Stopped { .. } => {
            eprintln!("chessd solve: {e}");
            if json {
                print_json(&stopped_json(&e));
            }
            ExitCode::FAILURE
        }
    }
}

/// Solves a helpmate or selfmate and prints it.
fn run_other(pos: Position, stipulation: Stipulation, args: &SolveArgs) -> ExitCode {
    let mut solver = Solver::new(pos)
        .mate_in(stipulation.moves())
        .table_mb(args.table);
    if let Some(ms) = args.time_limit_ms {
        solver = solver.deadline(Instant::now() + Duration::from_millis(ms));
    }
    let result = match stipulation {
        Stipulation::Help(_) => solver.helpmate().map(Solved::Help),
        _ => solver.selfmate().map(Solved::Self_),
    };
    match result {
        Ok(Solved::Help(help)) if args.json => print_json(&help_json(&pos, &help)),
        Ok(Solved::Self_(sol)) if args.json => print_json(&self_json(&pos, &sol)),
        Ok(Solved::Help(help)) => {
            print!("{}", help_output(&pos, &help));
            ExitCode::SUCCESS
        }
        Ok(Solved::Self_(sol)) => {
            print!("{}", self_output(&pos, &sol));
            ExitCode::SUCCESS
        }
        Err(e) => solve_failed(e, args.json),
    }
}

/// A solved helpmate or selfmate.
enum Solved {
    Help(HelpSolution),
    Self_(SelfSolution),
}

fn help_output(pos: &Position, help: &HelpSolution) -> String {
    let mut out = format!("fen: {}\nh#{}: ", pos.fen(), help.moves);
    match help.solutions.len() {
        0 => out.push_str("no solution\n"),
        1 => out.push_str("1 solution (sound)\n"),
        n => out.push_str(&format!("{n} solutions (not sound)\n")),
    }
    for line in &help.solutions {
        out.push_str(&format!("  {}\n", numbered_line(pos, line)));
    }
    out.push_str(&format!(
        "nodes: {}  seconds: {:.3}\n",
        help.nodes,
        help.elapsed.as_secs_f64()
    ));
    out
}

fn self_output(pos: &Position, sol: &SelfSolution) -> String {
    let mut out = format!("fen: {}\ns#{}: ", pos.fen(), sol.moves);
    let keys: Vec<String> = sol.keys.iter().map(|&k| pos.san(k)).collect();
    match keys.len() {
        0 => out.push_str("no solution\n"),
        1 => out.push_str(&format!("key {} (sound)\n", keys[0])),
        n => out.push_str(&format!("{n} keys (not sound): {}\n", keys.join(" "))),
    }
    for tree in &sol.trees {
        out.push('\n');
        write_self_tree(pos, tree, 1, &mut out);
    }
    if !sol.tree_complete {
        out.push_str("(tree cut at the size limit)\n");
    }
    out.push_str(&format!(
        "\nnodes: {}  seconds: {:.3}\n",
        sol.nodes,
        sol.elapsed.as_secs_f64()
    ));
    out
}

/// Writes a selfmate tree: the move, then each defence (`#` when it mates) with the answer.
fn write_self_tree(pos: &Position, tree: &SelfTree, depth: usize, out: &mut String) {
    out.push_str(&format!(
        "{}{} {}{}\n",
        "  ".repeat(depth),
        number(pos),
        pos.san(tree.mv),
        if tree.truncated {
            "  (tree cut here)"
        } else {
            ""
        }
    ));
    let child = pos.after(tree.mv);
    for d in &tree.defences {
        out.push_str(&format!(
            "{}{} {}\n",
            "  ".repeat(depth + 1),
            number(&child),
            child.san(d.mv)
        ));
        if let Some(reply) = &d.reply {
            write_self_tree(&child.after(d.mv), reply, depth + 2, out);
        }
    }
}

fn print_json(value: &impl Serialize) -> ExitCode {
    match serde_json::to_string(value) {
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("chessd solve: cannot write JSON: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The JSON object printed when a limit stopped the search.
#[derive(Debug, Serialize)]
struct StoppedJson {
    mate: Option<u32>,
    error: String,
    no_mate_within: u32,
    nodes: u64,
    seconds: f64,
}

fn stopped_json(e: &SolveError) -> StoppedJson {
    let (no_mate_within, nodes, seconds) = match e {
        SolveError::Stopped {
            no_mate_within,
            nodes,
            elapsed,
            ..
        } => (*no_mate_within, *nodes, elapsed.as_secs_f64()),
        SolveError::InvalidMateLength(_) | SolveError::OpponentInCheck => (0, 0, 0.0),
    };
    StoppedJson {
        mate: None,
        error: e.to_string(),
        no_mate_within,
        nodes,
        seconds,
    }
}

/// A move number prefix: `12.` before White's move, `12...` before Black's.
fn number(pos: &Position) -> String {
    match pos.turn() {
        Color::White => format!("{}.", pos.fullmoves()),
        Color::Black => format!("{}...", pos.fullmoves()),
    }
}

fn human_output(pos: &Position, solution: &Solution, args: &SolveArgs, n: u32) -> String {
    let mut out = format!("fen: {}\n", pos.fen());
    let Some(mate) = solution.mate else {
        out.push_str(&format!("no mate in {} or fewer moves\n", n));
        out.push_str(&stats_line(solution));
        return out;
    };
    let how = if !args.find {
        "(shortest)"
    } else if solution.shortest_proven {
        "(found; proven shortest)"
    } else if args.shortest {
        "(found; not proven shortest within the time limit)"
    } else {
        "(found; not necessarily the shortest)"
    };
    out.push_str(&format!("mate in {mate} {how}\n"));
    let keys: Vec<String> = solution.keys.iter().map(|&mv| pos.san(mv)).collect();
    out.push_str(&format!("keys: {}\n", keys.join(" ")));
    let unique = if args.find {
        "not decided (--find: one key)".to_string()
    } else if !solution.all_keys {
        "not decided (--first-key: only the first key was searched for)".to_string()
    } else if solution.unique {
        "yes".to_string()
    } else {
        format!("no: cooked, {} keys", solution.keys.len())
    };
    out.push_str(&format!("unique: {unique}\n"));
    if let Some(within) = &solution.keys_within {
        let within: Vec<String> = within.iter().map(|&mv| pos.san(mv)).collect();
        out.push_str(&format!("keys mating within {}: {}\n", n, within.join(" ")));
    }
    out.push_str(&format!(
        "main line: {}\n",
        numbered_line(pos, &solution.main_line_moves)
    ));
    let count = solution.trees.len();
    for (i, tree) in solution.trees.iter().enumerate() {
        if count == 1 {
            out.push_str("\nsolution tree:\n");
        } else {
            out.push_str(&format!("\nsolution tree of key {} of {count}:\n", i + 1));
        }
        write_tree(pos, tree, 1, &mut out);
    }
    if !solution.tree_complete {
        out.push_str("(tree cut at the size limit)\n");
    }
    out.push('\n');
    out.push_str(&stats_line(solution));
    out
}

fn stats_line(solution: &Solution) -> String {
    format!(
        "nodes: {}  seconds: {:.3}\n",
        solution.nodes,
        solution.elapsed.as_secs_f64()
    )
}

/// `1. Qh5 g6 2. Qxf7#` from `pos`.
fn numbered_line(pos: &Position, line: &[Move]) -> String {
    let mut p = *pos;
    let mut parts = Vec::new();
    for (i, &mv) in line.iter().enumerate() {
        let san = p.san(mv);
        if i == 0 || p.turn() == Color::White {
            parts.push(format!("{} {san}", number(&p)));
        } else {
            parts.push(san);
        }
        p.play_unchecked(mv);
    }
    parts.join(" ")
}

/// Writes `tree` (its move played in `pos`) indented by `depth`, then its defences.
fn write_tree(pos: &Position, tree: &MateTree, depth: usize, out: &mut String) {
    out.push_str(&format!(
        "{}{} {}{}\n",
        "  ".repeat(depth),
        number(pos),
        pos.san(tree.mv),
        cut_note(tree)
    ));
    write_defences(&pos.after(tree.mv), tree, depth + 1, out);
}

/// Writes each defence of `tree` (played in `pos`) with the answer on one line, and the
/// defences against that answer one level deeper.
fn write_defences(pos: &Position, tree: &MateTree, depth: usize, out: &mut String) {
    for d in &tree.defences {
        let grand = pos.after(d.mv);
        // The answer gets a move number only when it starts a new move (White's turn).
        let answer_number = match grand.turn() {
            Color::White => format!("{} ", number(&grand)),
            Color::Black => String::new(),
        };
        out.push_str(&format!(
            "{}{} {} {answer_number}{}{}\n",
            "  ".repeat(depth),
            number(pos),
            pos.san(d.mv),
            grand.san(d.reply.mv),
            cut_note(&d.reply)
        ));
        write_defences(&grand.after(d.reply.mv), &d.reply, depth + 1, out);
    }
}

fn cut_note(tree: &MateTree) -> String {
    if tree.truncated {
        format!("  (mates within {}; tree cut here)", tree.mate_in)
    } else {
        String::new()
    }
}
