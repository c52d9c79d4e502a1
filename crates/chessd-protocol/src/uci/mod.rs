//! The UCI protocol, typed, in both directions: commands a GUI sends an engine ([`GuiCommand`])
//! and lines an engine sends back ([`EngineLine`]). Each parses from one line and prints back
//! with `Display`, so `parse(x.to_string()) == x`, with one exception: an `info` line with tokens
//! this module does not understand ([`Info::other`]) prints them after the fields it does, where
//! they may read differently (`info wdl 1 depth 2 3 4` prints as `info depth 2 wdl 1 3 4`).
//!
//! Parsing never fails: a line that is not a known command is kept as raw text
//! ([`GuiCommand::Unknown`], [`EngineLine::Raw`]), and unknown or malformed tokens inside a known
//! line are skipped (an `info` line keeps them in [`Info::other`]). Moves stay UCI text here; the
//! game layer checks them against its position.

/// Splits a line into whitespace-separated tokens, each with its byte offset in the line (so a
/// "rest of the line" value keeps its inner spacing).
fn tokens(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((s, &line[s..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, &line[s..]));
    }
    out
}

/// The text of `line` from token `i` to the end (trimmed), or `""` past the last token.
fn rest(line: &str, toks: &[(usize, &str)], i: usize) -> String {
    toks.get(i)
        .map(|&(at, _)| line[at..].trim_end().to_string())
        .unwrap_or_default()
}

/// The text of tokens `from..to`, with the line's own spacing between them.
fn span(line: &str, toks: &[(usize, &str)], from: usize, to: usize) -> String {
    if from >= to || from >= toks.len() {
        return String::new();
    }
    let (start, _) = toks[from];
    let (last_at, last) = toks[to.min(toks.len()) - 1];
    line[start..last_at + last.len()].to_string()
}

/// A non-negative integer token; a negative one is clamped to 0 (some GUIs send negative clock
/// times), anything else is `None`.
fn parse_u64(token: &str) -> Option<u64> {
    token
        .parse::<u64>()
        .ok()
        .or_else(|| token.parse::<i64>().ok().map(|n| n.max(0) as u64))
}

mod engine_line;
mod gui;
mod info;
mod options;

pub use engine_line::{BestMove, EngineLine};
pub use gui::{looks_like_uci_move, GoLimits, GuiCommand, StartPosition};
pub use info::{pv_san, Bound, Info, Score, ScoreValue, Wdl};
pub use options::{IdLine, OptionDecl, OptionType};

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn gui_round_trip(line: &str) -> GuiCommand {
        let cmd = GuiCommand::parse(line);
        assert_eq!(GuiCommand::parse(&cmd.to_string()), cmd, "{line}");
        cmd
    }

    fn engine_round_trip(line: &str) -> EngineLine {
        let parsed = EngineLine::parse(line);
        assert_eq!(EngineLine::parse(&parsed.to_string()), parsed, "{line}");
        parsed
    }

    #[test]
    fn gui_commands_parse_and_print() {
        assert_eq!(gui_round_trip("uci"), GuiCommand::Uci);
        assert_eq!(gui_round_trip("isready"), GuiCommand::IsReady);
        assert_eq!(gui_round_trip("debug off"), GuiCommand::Debug(false));
        assert_eq!(gui_round_trip("ucinewgame"), GuiCommand::UciNewGame);
        assert_eq!(gui_round_trip("stop"), GuiCommand::Stop);
        assert_eq!(gui_round_trip("ponderhit"), GuiCommand::PonderHit);
        assert_eq!(gui_round_trip("quit"), GuiCommand::Quit);
        assert_eq!(
            gui_round_trip("setoption name Skill Level value 0"),
            GuiCommand::SetOption {
                name: "Skill Level".into(),
                value: Some("0".into())
            }
        );
        assert_eq!(
            gui_round_trip("setoption name Clear Hash"),
            GuiCommand::SetOption {
                name: "Clear Hash".into(),
                value: None
            }
        );
        assert_eq!(
            gui_round_trip("position startpos moves e2e4 e7e5"),
            GuiCommand::Position {
                start: StartPosition::StartPos,
                moves: vec!["e2e4".into(), "e7e5".into()]
            }
        );
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        assert_eq!(
            gui_round_trip(&format!("position fen {fen}")),
            GuiCommand::Position {
                start: StartPosition::Fen(fen.into()),
                moves: vec![]
            }
        );
        assert_eq!(
            GuiCommand::Position {
                start: StartPosition::StartPos,
                moves: vec!["e2e4".into()]
            }
            .to_string(),
            "position startpos moves e2e4"
        );
        assert!(matches!(gui_round_trip("position"), GuiCommand::Unknown(_)));
        assert_eq!(
            gui_round_trip("  hello   world "),
            GuiCommand::Unknown("hello   world".into())
        );
    }

    #[test]
    fn go_limits_parse_print_and_serde() {
        let cmd = gui_round_trip(
            "go wtime 300000 btime -5 winc 2000 binc 2000 movestogo 40 depth 12 nodes 1000000 \
             mate 3 movetime 100 searchmoves e2e4 d2d4 infinite bogus",
        );
        let GuiCommand::Go(g) = cmd else {
            panic!("not go")
        };
        assert_eq!(g.wtime, Some(300000));
        assert_eq!(g.btime, Some(0));
        assert_eq!(g.movestogo, Some(40));
        assert_eq!(g.depth, Some(12));
        assert_eq!(g.nodes, Some(1_000_000));
        assert_eq!(g.mate, Some(3));
        assert_eq!(g.movetime, Some(100));
        assert_eq!(g.searchmoves, vec!["e2e4", "d2d4"]);
        assert!(g.infinite && !g.ponder);
        assert_eq!(g.time_bound_ms(true), None);
        let g: GoLimits = serde_json::from_str(r#"{"movetime": 500, "ponder": true}"#).unwrap();
        assert_eq!(g.to_string(), "go ponder movetime 500");
        assert!(serde_json::from_str::<GoLimits>(r#"{"movtime": 500}"#).is_err());
        let g: GoLimits = serde_json::from_str(r#"{"wtime": 1000, "winc": 10}"#).unwrap();
        assert_eq!(g.time_bound_ms(true), Some(1010));
        assert_eq!(g.time_bound_ms(false), None);
        assert_eq!(
            serde_json::to_string(&g).unwrap(),
            r#"{"wtime":1000,"winc":10}"#
        );
        assert_eq!(GoLimits::default().to_string(), "go");
        assert!(GoLimits::default().is_empty());
        assert_eq!(
            GuiCommand::parse("go depth x movetime 5"),
            GuiCommand::Go(GoLimits {
                movetime: Some(5),
                ..GoLimits::default()
            })
        );
    }

    #[test]
    fn handshake_lines() {
        assert_eq!(
            engine_round_trip("id name Stockfish 16.1"),
            EngineLine::Id(IdLine::Name("Stockfish 16.1".into()))
        );
        assert_eq!(
            engine_round_trip("id author the Stockfish developers (see AUTHORS file)"),
            EngineLine::Id(IdLine::Author(
                "the Stockfish developers (see AUTHORS file)".into()
            ))
        );
        assert_eq!(engine_round_trip("uciok"), EngineLine::UciOk);
        assert_eq!(engine_round_trip("readyok"), EngineLine::ReadyOk);
        let EngineLine::Option(hash) =
            engine_round_trip("option name Hash type spin default 16 min 1 max 33554432")
        else {
            panic!("not an option")
        };
        assert_eq!(hash.name, "Hash");
        assert_eq!(hash.kind, OptionType::Spin);
        assert_eq!(
            (hash.default.as_deref(), hash.min, hash.max),
            (Some("16"), Some(1), Some(33554432))
        );
        assert!(hash.check_value(Some("64")).is_ok());
        assert!(hash.check_value(Some("0")).is_err());
        assert!(hash.check_value(Some("x")).is_err());
        let EngineLine::Option(combo) = engine_round_trip(
            "option name Analysis Contempt type combo default Both var Off var White var Black var Both",
        ) else {
            panic!("not an option")
        };
        assert_eq!(combo.name, "Analysis Contempt");
        assert_eq!(combo.vars, vec!["Off", "White", "Black", "Both"]);
        assert!(combo.check_value(Some("white")).is_ok());
        assert!(combo.check_value(Some("Grey")).is_err());
        let EngineLine::Option(file) =
            engine_round_trip("option name Debug Log File type string default <empty>")
        else {
            panic!("not an option")
        };
        assert_eq!(file.name, "Debug Log File");
        assert_eq!(file.default.as_deref(), Some("<empty>"));
        let EngineLine::Option(button) = engine_round_trip("option name Clear Hash type button")
        else {
            panic!("not an option")
        };
        assert_eq!(button.kind, OptionType::Button);
        assert!(button.check_value(None).is_ok());
        let EngineLine::Option(check) =
            engine_round_trip("option name Ponder type check default false")
        else {
            panic!("not an option")
        };
        assert!(check.check_value(Some("true")).is_ok());
        assert!(check.check_value(Some("yes")).is_err());
        assert_eq!(
            serde_json::to_value(&hash).unwrap(),
            serde_json::json!({"name":"Hash","type":"spin","default":"16","min":1,"max":33554432})
        );
        assert!(matches!(
            engine_round_trip("option name Broken"),
            EngineLine::Raw(_)
        ));
    }

    #[test]
    fn stockfish_info_lines() {
        let line = "info depth 20 seldepth 28 multipv 1 score cp 31 wdl 62 910 28 nodes 1234567 \
                    nps 987654 hashfull 321 tbhits 0 time 1250 pv e2e4 e7e5 g1f3 b8c6";
        let EngineLine::Info(info) = engine_round_trip(line) else {
            panic!("not info")
        };
        assert_eq!(info.depth, Some(20));
        assert_eq!(info.seldepth, Some(28));
        assert_eq!(info.multipv, Some(1));
        assert_eq!(
            info.score,
            Some(Score {
                value: ScoreValue::Cp(31),
                bound: None
            })
        );
        assert_eq!(
            info.wdl,
            Some(Wdl {
                win: 62,
                draw: 910,
                loss: 28
            })
        );
        assert_eq!(info.nodes, Some(1234567));
        assert_eq!(info.nps, Some(987654));
        assert_eq!(info.hashfull, Some(321));
        assert_eq!(info.tbhits, Some(0));
        assert_eq!(info.time, Some(1250));
        assert_eq!(info.pv, vec!["e2e4", "e7e5", "g1f3", "b8c6"]);
        assert!(info.other.is_empty());

        let EngineLine::Info(bound) = engine_round_trip(
            "info depth 5 seldepth 6 multipv 2 score mate -3 upperbound nodes 10 nps 5 time 2 pv h7h8q",
        ) else {
            panic!("not info")
        };
        assert_eq!(
            bound.score,
            Some(Score {
                value: ScoreValue::Mate(-3),
                bound: Some(Bound::Upper)
            })
        );
        assert_eq!(
            serde_json::to_value(bound.score).unwrap(),
            serde_json::json!({"mate": -3, "bound": "upper"})
        );

        let EngineLine::Info(cur) =
            engine_round_trip("info depth 24 currmove d2d4 currmovenumber 3")
        else {
            panic!("not info")
        };
        assert_eq!(cur.currmove.as_deref(), Some("d2d4"));
        assert_eq!(cur.currmovenumber, Some(3));

        let EngineLine::Info(s) =
            engine_round_trip("info string NNUE evaluation using nn-5af11540bbfe.nnue  enabled")
        else {
            panic!("not info")
        };
        assert_eq!(
            s.string.as_deref(),
            Some("NNUE evaluation using nn-5af11540bbfe.nnue  enabled")
        );

        let EngineLine::Info(odd) =
            engine_round_trip("info depth x refutation d1h5 g6h5 nodes 5 score cp")
        else {
            panic!("not info")
        };
        assert_eq!(odd.depth, None);
        assert_eq!(odd.nodes, Some(5));
        assert_eq!(
            odd.other,
            vec!["depth", "x", "refutation", "d1h5", "g6h5", "score", "cp"]
        );
    }

    /// Found by the `engine_line` fuzz target: tokens that are not understood are kept in
    /// order, and the known fields around them are still read; printed, the unknown tokens come
    /// last, which is why the round trip holds only for lines understood in full.
    #[test]
    fn info_with_tokens_not_understood_keeps_them_in_order() {
        let line = "info depth 7 wdl 100 seldepth 2 1000 000 nodes x";
        let EngineLine::Info(info) = EngineLine::parse(line) else {
            panic!("not info")
        };
        assert_eq!(
            (info.depth, info.seldepth, info.wdl),
            (Some(7), Some(2), None)
        );
        assert_eq!(info.other, vec!["wdl", "100", "1000", "000", "nodes", "x"]);
        assert_eq!(
            info.to_string(),
            "info depth 7 seldepth 2 wdl 100 1000 000 nodes x"
        );
        let EngineLine::Info(again) = EngineLine::parse(&info.to_string()) else {
            panic!("not info")
        };
        assert_eq!(again.wdl.map(|w| w.win), Some(100));
    }

    #[test]
    fn bestmove_lines() {
        assert_eq!(
            engine_round_trip("bestmove e2e4 ponder e7e5"),
            EngineLine::BestMove(BestMove {
                best: Some("e2e4".into()),
                ponder: Some("e7e5".into())
            })
        );
        assert_eq!(
            engine_round_trip("bestmove e7e8q"),
            EngineLine::BestMove(BestMove {
                best: Some("e7e8q".into()),
                ponder: None
            })
        );
        for none in ["bestmove (none)", "bestmove 0000", "bestmove"] {
            assert_eq!(
                engine_round_trip(none),
                EngineLine::BestMove(BestMove {
                    best: None,
                    ponder: None
                }),
                "{none}"
            );
        }
        assert_eq!(
            EngineLine::parse("bestmove 0000").to_string(),
            "bestmove (none)"
        );
    }

    #[test]
    fn anything_else_is_raw_text() {
        for line in [
            "",
            "Stockfish 16.1 by the Stockfish developers (see AUTHORS file)",
            "uciok please",
            "id",
            "\u{fffd}\u{fffd} garbage",
            "copyprotection ok",
        ] {
            assert_eq!(
                engine_round_trip(line),
                EngineLine::Raw(line.trim().into()),
                "{line}"
            );
        }
    }
}
