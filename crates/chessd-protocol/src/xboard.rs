//! The XBoard protocol (CECP, version 2) as pure functions: `feature` lines and the answers
//! they get, `feature option=…` declarations as UCI-style options, thinking output (`post`
//! lines) as the same [`Info`] UCI engines give, moves in and out (coordinate, SAN, long
//! algebraic, `O-O`), and search limits as `st`/`sd`/`level`/`time`/`otim`/`nps` commands.
//! No I/O: the session is `xboard.rs`.
//!
//! Conventions where engines differ:
//! - Scores are centipawns from the side to move. Mate scores are `100000 + N` / `-100000 - N`
//!   for mate in N moves (the CECP convention), or a large value just below a "mate" constant
//!   minus the plies to mate (Sjeng: 1000000, Phalanx: 30000; also 100000, 32767, 32000):
//!   within 500 of one of those it is read as mate in (plies + 1) / 2 moves.
//! - PV tokens: move numbers (`12.`, `3...`) are skipped, Sjeng's `<Nc3>` (moves from its hash
//!   table) lose their brackets, and the PV ends at the first token that is not a legal move
//!   (Sjeng's `!` fail-high mark, Phalanx's `(book …)` lists).

use std::time::Duration;

use chessd_core::{Move, Position};

use crate::uci::{GoLimits, Info, OptionDecl, OptionType, Score, ScoreValue};

/// The features of a `feature` line (`feature a=1 b="x y"`), as `(name, value)` pairs; quoted
/// values lose their quotes.
pub fn parse_features(args: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = args.trim_start();
    while !rest.is_empty() {
        let Some(eq) = rest.find('=') else {
            break;
        };
        let key = rest[..eq].trim();
        let after = &rest[eq + 1..];
        let (value, next) = if let Some(quoted) = after.strip_prefix('"') {
            match quoted.find('"') {
                Some(end) => (&quoted[..end], &quoted[end + 1..]),
                None => (quoted, ""),
            }
        } else {
            match after.find(char::is_whitespace) {
                Some(end) => (&after[..end], &after[end..]),
                None => (after, ""),
            }
        };
        // A key never contains blanks: a stray word before it is dropped.
        let key = key.rsplit(char::is_whitespace).next().unwrap_or(key);
        if !key.is_empty() {
            out.push((key.to_string(), value.to_string()));
        }
        rest = next.trim_start();
    }
    out
}

/// Whether chessd accepts feature `key` with `value`: the ones it uses or that change nothing
/// for it. Signals are never sent (`sigint`/`sigterm` must be 0), the engine is reused for
/// every game (`reuse` 1), and the obsolete `white`/`black` commands are never sent
/// (`colors` 0).
pub fn accepts_feature(key: &str, value: &str) -> bool {
    match key {
        "sigint" | "sigterm" | "colors" | "pause" => value == "0",
        "reuse" => value == "1",
        "ping" | "setboard" | "playother" | "san" | "usermove" | "time" | "draw" | "analyze"
        | "myname" | "variants" | "ics" | "name" | "nps" | "debug" | "memory" | "smp"
        | "option" | "exclude" | "done" => true,
        _ => false,
    }
}

/// The answer to one feature: `accepted NAME` or `rejected NAME`.
pub fn feature_answer(key: &str, value: &str) -> String {
    if accepts_feature(key, value) {
        format!("accepted {key}")
    } else {
        format!("rejected {key}")
    }
}

/// A `feature option="NAME -TYPE …"` declaration as a UCI-style option: `-check` is a check,
/// `-spin`/`-slider` a spin, `-combo` a combo (`*` marks the default), `-button`/`-save`/
/// `-reset` a button, `-string`/`-file`/`-path` a string.
pub fn parse_option_feature(value: &str) -> Option<OptionDecl> {
    const TYPES: [&str; 10] = [
        "check", "spin", "slider", "combo", "button", "save", "reset", "string", "file", "path",
    ];
    let (at, kind) = value.match_indices(" -").find_map(|(i, _)| {
        let word = value[i + 2..].split_whitespace().next()?;
        TYPES.contains(&word).then_some((i, word))
    })?;
    let name = value[..at].trim().to_string();
    if name.is_empty() {
        return None;
    }
    let args = value[at + 2 + kind.len()..].trim();
    let words: Vec<&str> = args.split_whitespace().collect();
    let mut decl = OptionDecl {
        name,
        kind: OptionType::String,
        default: None,
        min: None,
        max: None,
        vars: Vec::new(),
    };
    match kind {
        "check" => {
            decl.kind = OptionType::Check;
            decl.default = Some((words.first() == Some(&"1")).to_string());
        }
        "spin" | "slider" => {
            decl.kind = OptionType::Spin;
            decl.default = words.first().map(|w| w.to_string());
            decl.min = words.get(1).and_then(|w| w.parse().ok());
            decl.max = words.get(2).and_then(|w| w.parse().ok());
        }
        "combo" => {
            decl.kind = OptionType::Combo;
            for choice in args.split("///").map(str::trim).filter(|c| !c.is_empty()) {
                match choice.strip_prefix('*') {
                    Some(default) => {
                        decl.default = Some(default.trim().to_string());
                        decl.vars.push(default.trim().to_string());
                    }
                    None => decl.vars.push(choice.to_string()),
                }
            }
        }
        "button" | "save" | "reset" => decl.kind = OptionType::Button,
        _ => decl.default = Some(args.to_string()),
    }
    Some(decl)
}

/// The command that sets option `decl` to `value` (checked): `memory N` for `Hash`, `cores N`
/// for `Threads`, else `option NAME=VALUE` (a check as 1/0; a button as `option NAME`).
pub fn option_command(decl: &OptionDecl, value: Option<&str>) -> String {
    let name = &decl.name;
    match (decl.kind.clone(), value) {
        (_, Some(v)) if name == HASH => format!("memory {v}"),
        (_, Some(v)) if name == THREADS => format!("cores {v}"),
        (OptionType::Button, _) | (_, None) => format!("option {name}"),
        (OptionType::Check, Some(v)) => {
            format!("option {name}={}", if v == "true" { 1 } else { 0 })
        }
        (_, Some(v)) => format!("option {name}={v}"),
    }
}

/// The UCI name the `memory` feature is declared under.
pub const HASH: &str = "Hash";

/// The UCI name the `smp` feature is declared under.
pub const THREADS: &str = "Threads";

/// Whether `line` is an error report (`Error (…): …`, `Illegal move (…): …`).
pub fn is_error_line(line: &str) -> bool {
    let line = line.trim_start();
    let rest = if let Some(r) = line.strip_prefix("Error") {
        r
    } else if let Some(r) = line.strip_prefix("Illegal move") {
        r
    } else {
        return false;
    };
    let rest = rest.trim_start();
    let rest = match rest.strip_prefix('(') {
        Some(r) => match r.find(')') {
            Some(end) => r[end + 1..].trim_start(),
            None => return false,
        },
        None => rest,
    };
    rest.starts_with(':')
}

/// Whether `line` announces a game result (`1-0 {…}`, `0-1 {…}`, `1/2-1/2 {…}`).
pub fn is_result_line(line: &str) -> bool {
    let first = line.split_whitespace().next().unwrap_or("");
    matches!(first, "1-0" | "0-1" | "1/2-1/2")
}

/// A score of a `post` line as a UCI score (see the module's conventions).
pub fn post_score(value: i64) -> ScoreValue {
    let sign: i64 = if value < 0 { -1 } else { 1 };
    let a = value.unsigned_abs();
    let mate = |moves: u64| ScoreValue::Mate((sign * moves.min(10_000) as i64) as i32);
    if (100_000..101_000).contains(&a) {
        return mate(a - 100_000);
    }
    for base in [1_000_000u64, 100_000, 32_767, 32_000, 30_000] {
        if a <= base && a > base - 500 {
            let plies = base - a;
            return mate(plies.div_ceil(2));
        }
    }
    ScoreValue::Cp(value.clamp(i32::MIN as i64, i32::MAX as i64) as i32)
}

/// Whether `line` looks like thinking output: at least four integers first.
pub fn is_post_line(line: &str) -> bool {
    line.split_whitespace()
        .take(4)
        .filter(|t| t.parse::<i64>().is_ok())
        .count()
        == 4
}

/// A `post` line (`ply score time nodes [seldepth [nps [tbhits]]] pv…`, time in
/// centiseconds) as an [`Info`] whose PV is in UCI notation from `root`; `None` when the line
/// is not thinking output.
pub fn parse_post(line: &str, root: &Position) -> Option<Info> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let ints: Vec<i64> = tokens.iter().map_while(|t| t.parse::<i64>().ok()).collect();
    if ints.len() < 4 {
        return None;
    }
    let mut info = Info {
        depth: Some(ints[0].clamp(0, u32::MAX as i64) as u32),
        score: Some(Score {
            value: post_score(ints[1]),
            bound: None,
        }),
        time: Some(ints[2].max(0) as u64 * 10),
        nodes: Some(ints[3].max(0) as u64),
        ..Info::default()
    };
    let extra = &ints[4..];
    if let Some(&sel) = extra.first() {
        info.seldepth = Some(sel.clamp(0, u32::MAX as i64) as u32);
    }
    if let Some(&nps) = extra.get(1) {
        info.nps = Some(nps.max(0) as u64);
    }
    if extra.len() > 2 {
        info.tbhits = extra.last().map(|&n| n.max(0) as u64);
    }
    let mut pos = *root;
    for token in &tokens[ints.len()..] {
        if is_move_number(token) {
            continue;
        }
        let Some(mv) = parse_move(&pos, token) else {
            break;
        };
        info.pv.push(pos.uci(mv));
        if pos.play(mv).is_err() {
            break;
        }
    }
    Some(info)
}

/// `12.`, `12...`, `3`.
fn is_move_number(token: &str) -> bool {
    let digits = token.trim_end_matches('.');
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// A move as an XBoard engine writes it, legal in `pos`: coordinate (`e2e4`, `e7e8q`,
/// `e7e8Q`), SAN (`Nf3`, `O-O`, `Rd8#`), long algebraic (`Ng1-f3`, `e2-e4`, `Bb5xc6`), in
/// Sjeng's hash brackets (`<Nc3>`) or not.
pub fn parse_move(pos: &Position, text: &str) -> Option<Move> {
    let text = text.trim_start_matches('<').trim_end_matches('>');
    if text.is_empty() {
        return None;
    }
    if let Ok(mv) = pos.parse_uci(text) {
        return Some(mv);
    }
    if text.len() == 5 {
        if let Ok(mv) = pos.parse_uci(&text.to_ascii_lowercase()) {
            return Some(mv);
        }
    }
    pos.parse_san(text).ok()
}

/// How chessd writes `mv` (legal in `pos`) to an engine: SAN when it asked for SAN, else
/// coordinates (`e2e4`, `e7e8q`), with Chess960 castling as `O-O`/`O-O-O`.
pub fn format_move(pos: &Position, mv: Move, san: bool, chess960: bool) -> String {
    if san {
        return pos.san(mv);
    }
    if chess960 && mv.is_castle() {
        return if mv.to().file() > mv.from().file() {
            "O-O".to_string()
        } else {
            "O-O-O".to_string()
        };
    }
    pos.uci(mv)
}

/// The commands of one search's limits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LimitCommands {
    /// The lines, to send before `go`.
    pub lines: Vec<String>,
    /// When to send `?` (move now): a `movetime` that is not whole seconds, since `st` takes
    /// whole seconds in many engines and is rounded up.
    pub move_now_after: Option<Duration>,
    /// Whether they set a depth limit (`sd`), which only `new` lifts.
    pub sets_depth: bool,
    /// Whether they switch to node counting (`nps`), which only `new` lifts.
    pub sets_nps: bool,
}

/// The XBoard commands of `limits` for the side to move (`white`), or why the engine cannot
/// honour them. `nps`: whether the engine declared `feature nps=1`. `allowance`: the whole time
/// the search may take, the cap of searches without a time limit.
pub fn limit_commands(
    limits: &GoLimits,
    white: bool,
    nps: bool,
    allowance: Option<Duration>,
) -> Result<LimitCommands, String> {
    if limits.mate.is_some() {
        return Err("XBoard engines cannot search for a mate (go mate)".into());
    }
    if !limits.searchmoves.is_empty() {
        return Err("XBoard engines cannot restrict a search to some moves (searchmoves)".into());
    }
    let (own, other, inc) = if white {
        (limits.wtime, limits.btime, limits.winc)
    } else {
        (limits.btime, limits.wtime, limits.binc)
    };
    let mut out = LimitCommands::default();
    if let Some(nodes) = limits.nodes {
        if limits.movetime.is_some() || own.is_some() {
            return Err("XBoard engines cannot mix node and time limits".into());
        }
        if !nps {
            return Err("this XBoard engine does not declare node limits (feature nps=1)".into());
        }
        // One node a second for N seconds: N nodes.
        out.lines.push("nps 1".into());
        out.lines.push(format!("st {}", nodes.max(1)));
        out.sets_nps = true;
    } else if let Some(ms) = limits.movetime {
        out.lines.push(format!("st {}", ms.div_ceil(1000).max(1)));
        if ms % 1000 != 0 {
            out.move_now_after = Some(Duration::from_millis(ms));
        }
    } else if let Some(own) = own {
        let base = (own / 1000).max(1);
        out.lines.push(format!(
            "level {} {}:{:02} {}",
            limits.movestogo.unwrap_or(0),
            base / 60,
            base % 60,
            inc.unwrap_or(0) / 1000
        ));
        out.lines.push(format!("time {}", (own / 10).max(1)));
        if let Some(other) = other {
            out.lines.push(format!("otim {}", (other / 10).max(1)));
        }
    } else {
        // No time limit: at most the allowance.
        let secs = allowance.map_or(3600, |a| a.as_millis().div_ceil(1000).max(1) as u64);
        out.lines.push(format!("st {secs}"));
    }
    if let Some(depth) = limits.depth {
        out.lines.push(format!("sd {}", depth.max(1)));
        out.sets_depth = true;
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use chessd_core::FenMode;

    use super::*;

    #[test]
    fn feature_lines_split_into_pairs() {
        let pairs = parse_features(
            r#"ping=1 setboard=1 myname="Sjeng 11.2" option="Randomizer (0-50) -slider 0 0 50" done=0"#,
        );
        let keys: Vec<&str> = pairs.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["ping", "setboard", "myname", "option", "done"]);
        assert_eq!(pairs[2].1, "Sjeng 11.2");
        assert_eq!(pairs[3].1, "Randomizer (0-50) -slider 0 0 50");
        assert_eq!(parse_features("  "), vec![]);
        assert_eq!(
            parse_features(r#"myname="unterminated"#),
            vec![("myname".to_string(), "unterminated".to_string())]
        );
    }

    #[test]
    fn features_are_accepted_or_rejected_as_chessd_behaves() {
        assert_eq!(feature_answer("ping", "1"), "accepted ping");
        assert_eq!(feature_answer("sigint", "0"), "accepted sigint");
        assert_eq!(feature_answer("sigint", "1"), "rejected sigint");
        assert_eq!(feature_answer("sigterm", "1"), "rejected sigterm");
        assert_eq!(feature_answer("reuse", "0"), "rejected reuse");
        assert_eq!(feature_answer("colors", "1"), "rejected colors");
        assert_eq!(feature_answer("egt", "syzygy"), "rejected egt");
        assert_eq!(feature_answer("usermove", "1"), "accepted usermove");
    }

    #[test]
    fn option_features_become_uci_options() {
        let o = parse_option_feature("Randomizer (0-50) -slider 0 0 50").unwrap();
        assert_eq!(o.name, "Randomizer (0-50)");
        assert_eq!(
            (o.kind.clone(), o.min, o.max),
            (OptionType::Spin, Some(0), Some(50))
        );
        assert_eq!(option_command(&o, Some("7")), "option Randomizer (0-50)=7");
        let o = parse_option_feature("Resign -check 1").unwrap();
        assert_eq!(
            (o.kind.clone(), o.default.as_deref()),
            (OptionType::Check, Some("true"))
        );
        assert_eq!(option_command(&o, Some("false")), "option Resign=0");
        let o = parse_option_feature("Style -combo Solid /// *Normal /// Risky").unwrap();
        assert_eq!(o.vars, ["Solid", "Normal", "Risky"]);
        assert_eq!(o.default.as_deref(), Some("Normal"));
        let o = parse_option_feature("Clear Hash -button").unwrap();
        assert_eq!(option_command(&o, None), "option Clear Hash");
        let o = parse_option_feature("Book File -file book.bin").unwrap();
        assert_eq!(o.default.as_deref(), Some("book.bin"));
        assert!(parse_option_feature("no type here").is_none());
        let hash = OptionDecl {
            name: HASH.into(),
            kind: OptionType::Spin,
            default: None,
            min: Some(1),
            max: None,
            vars: vec![],
        };
        assert_eq!(option_command(&hash, Some("64")), "memory 64");
    }

    #[test]
    fn errors_and_results_are_recognised() {
        assert!(is_error_line("Error (unknown command): protover"));
        assert!(is_error_line("Illegal move (not legal): e2e5"));
        assert!(is_error_line("Illegal move: e2e5"));
        assert!(!is_error_line("Invalid move: uci"));
        assert!(!is_error_line("Errors happen"));
        assert!(is_result_line("1-0 {White mates}"));
        assert!(is_result_line("1/2-1/2 {Stalemate}"));
        assert!(!is_result_line("10 5 0 100 e4"));
    }

    #[test]
    fn mate_scores_follow_the_usual_conventions() {
        assert_eq!(post_score(35), ScoreValue::Cp(35));
        assert_eq!(post_score(-1200), ScoreValue::Cp(-1200));
        assert_eq!(post_score(100_003), ScoreValue::Mate(3));
        assert_eq!(post_score(-100_002), ScoreValue::Mate(-2));
        // Sjeng: 1000000 minus plies; Phalanx: 30000 minus plies.
        assert_eq!(post_score(999_998), ScoreValue::Mate(1));
        assert_eq!(post_score(999_996), ScoreValue::Mate(2));
        assert_eq!(post_score(29_999), ScoreValue::Mate(1));
        assert_eq!(post_score(-29_998), ScoreValue::Mate(-1));
        assert_eq!(post_score(32_765), ScoreValue::Mate(1));
        assert_eq!(post_score(20_000), ScoreValue::Cp(20_000));
    }

    #[test]
    fn post_lines_become_uci_infos() {
        let start = Position::startpos();
        let info = parse_post(
            " 7      10     6    39279  e4 e6 <Nc3> <d5> <Nf3> <dxe4> <Nxe4> <Nc6> ",
            &start,
        )
        .unwrap();
        assert_eq!(info.depth, Some(7));
        assert_eq!(info.score.unwrap().value, ScoreValue::Cp(10));
        assert_eq!(info.time, Some(60));
        assert_eq!(info.nodes, Some(39279));
        assert_eq!(
            info.pv,
            ["e2e4", "e7e6", "b1c3", "d7d5", "g1f3", "d5e4", "c3e4", "b8c6"]
        );
        // A fail-high mark ends the PV.
        let info = parse_post(" 6       1     3    16869  e4 !", &start).unwrap();
        assert_eq!(info.pv, ["e2e4"]);
        // Long algebraic, extra integers, move numbers.
        let info = parse_post(
            "  4     33  12   4816 9 401333 1. e2-e4 e7-e5 2. Ng1-f3 Ke1-e2",
            &start,
        )
        .unwrap();
        assert_eq!((info.seldepth, info.nps), (Some(9), Some(401_333)));
        assert_eq!(info.pv, ["e2e4", "e7e5", "g1f3"]);
        // Phalanx's book list is not a line.
        let info =
            parse_post("  0      0     0        0  (e2-e4  d2-d4  , book1)", &start).unwrap();
        assert!(info.pv.is_empty());
        // A mate found, in SAN with its mark.
        let pos =
            Position::from_fen("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", FenMode::Strict).unwrap();
        let info = parse_post(" 3  999998     0       54  Rd8# ", &pos).unwrap();
        assert_eq!(info.score.unwrap().value, ScoreValue::Mate(1));
        assert_eq!(info.pv, ["d1d8"]);
        assert!(parse_post("Time for move : 100", &start).is_none());
        assert!(parse_post("1 2 3 e4", &start).is_none());
        assert!(is_post_line(" 2       0     0       42  d4 d5 "));
        assert!(!is_post_line("move e2e4"));
    }

    #[test]
    fn moves_in_every_notation_engines_use() {
        let start = Position::startpos();
        for text in ["g1f3", "Nf3", "Ng1-f3", "<Nf3>", "Ng1f3"] {
            let mv = parse_move(&start, text).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(start.uci(mv), "g1f3", "{text}");
        }
        assert!(parse_move(&start, "e2e5").is_none());
        assert!(parse_move(&start, "!").is_none());
        let castle =
            Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", FenMode::Strict).unwrap();
        for text in ["O-O", "0-0", "e1g1"] {
            let mv = parse_move(&castle, text).unwrap();
            assert_eq!(castle.uci(mv), "e1g1", "{text}");
            assert_eq!(format_move(&castle, mv, false, false), "e1g1");
            assert_eq!(format_move(&castle, mv, true, false), "O-O");
        }
        let promo = Position::from_fen("6k1/4P3/8/8/8/8/8/4K3 w - - 0 1", FenMode::Strict).unwrap();
        let mv = parse_move(&promo, "e7e8Q").unwrap();
        assert_eq!(promo.uci(mv), "e7e8q");
        assert_eq!(format_move(&promo, mv, true, false), "e8=Q+");
        // Chess960 castling goes out as O-O.
        let frc = Position::from_fen(
            "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",
            FenMode::Strict,
        )
        .unwrap();
        let mv = parse_move(&frc, "O-O").unwrap();
        assert_eq!(format_move(&frc, mv, false, true), "O-O");
        let mv = parse_move(&frc, "O-O-O").unwrap();
        assert_eq!(format_move(&frc, mv, false, true), "O-O-O");
    }

    #[test]
    fn limits_become_time_controls() {
        let go = |l: GoLimits, white: bool| limit_commands(&l, white, false, None);
        let l = go(
            GoLimits {
                movetime: Some(200),
                ..GoLimits::default()
            },
            true,
        )
        .unwrap();
        assert_eq!(l.lines, ["st 1"]);
        assert_eq!(l.move_now_after, Some(Duration::from_millis(200)));
        let l = go(
            GoLimits {
                movetime: Some(3000),
                ..GoLimits::default()
            },
            true,
        )
        .unwrap();
        assert_eq!(
            (l.lines.clone(), l.move_now_after),
            (vec!["st 3".to_string()], None)
        );
        let clocks = GoLimits {
            wtime: Some(65_000),
            btime: Some(30_500),
            winc: Some(2000),
            binc: Some(1000),
            movestogo: Some(20),
            ..GoLimits::default()
        };
        assert_eq!(
            go(clocks.clone(), true).unwrap().lines,
            ["level 20 1:05 2", "time 6500", "otim 3050"]
        );
        assert_eq!(
            go(clocks, false).unwrap().lines,
            ["level 20 0:30 1", "time 3050", "otim 6500"]
        );
        let l = limit_commands(
            &GoLimits {
                depth: Some(4),
                ..GoLimits::default()
            },
            true,
            false,
            Some(Duration::from_millis(10_500)),
        )
        .unwrap();
        assert_eq!(l.lines, ["st 11", "sd 4"]);
        assert!(l.sets_depth);
        let nodes = GoLimits {
            nodes: Some(5000),
            ..GoLimits::default()
        };
        assert!(go(nodes.clone(), true).unwrap_err().contains("nps"));
        let l = limit_commands(&nodes, true, true, None).unwrap();
        assert_eq!(
            (l.lines.clone(), l.sets_nps),
            (vec!["nps 1".to_string(), "st 5000".to_string()], true)
        );
        assert!(go(
            GoLimits {
                mate: Some(2),
                ..GoLimits::default()
            },
            true
        )
        .is_err());
        assert!(go(
            GoLimits {
                searchmoves: vec!["e2e4".into()],
                movetime: Some(10),
                ..GoLimits::default()
            },
            true
        )
        .is_err());
    }
}
