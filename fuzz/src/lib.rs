//! The checks behind chessd's fuzz targets (one function per parser), kept in a library so that
//! each target in `fuzz_targets/` is one line and the checks can be read in one place.
//!
//! Every check asserts properties of what the parser accepts, not only that it does not panic:
//! what is parsed prints back to text that parses to the same value, and the moves a notation
//! parser accepts are legal and write back to the same text.

use chessd_protocol::{gct::{Command, Reply, ResultCollector}, uci::{pv_san, EngineLine, GuiCommand}, ws::{ClientFrame, parse_client_frame}};
use chessd_core::{
    pgn::{read_game, PgnError, PgnGame, PgnMove, PgnParser, PgnReader},
    FenMode, Position,
};

/// Positions the move targets start from: the perft suite's classics, Chess960 (with
/// king-takes-rook castling and overlapping castling squares), en passant (also pinned) and
/// promotions. Random plies picked by the input lead on from them.
pub const START_FENS: [&str; 12] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "6k1/8/8/8/8/8/8/RK5R w HA - 0 1",
    "1r2k1r1/8/8/8/8/8/8/1R2K1R1 b GBgb - 0 1",
    "8/8/8/K2pP2r/8/8/8/7k w - d6 0 1",
    "rnbqkb1r/ppppp1pp/7n/4Pp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "r3k3/1P6/8/8/8/8/p7/4K3 w q - 0 1",
];

/// The most plies the input may play from a start position.
const MAX_PLIES: u8 = 24;

/// Splits `data` into a position and the rest: the first byte picks one of [`START_FENS`], the
/// second how many plies follow (at most [`MAX_PLIES`]), and each of the next bytes picks the
/// legal move to play. The rest is the text under test.
pub fn position_from(data: &[u8]) -> (Position, &[u8]) {
    let (pick, plies, mut rest) = match data {
        [pick, plies, rest @ ..] => (*pick, *plies, rest),
        _ => (0, 0, &[][..]),
    };
    let mut pos = Position::from_fen(
        START_FENS[pick as usize % START_FENS.len()],
        FenMode::Lenient,
    )
    .expect("the start positions are valid FENs");
    for _ in 0..plies % (MAX_PLIES + 1) {
        let Some((&choice, tail)) = rest.split_first() else {
            break;
        };
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        rest = tail;
        pos.play_unchecked(moves[choice as usize % moves.len()]);
    }
    (pos, rest)
}

/// FEN: whatever either mode accepts writes back to a FEN that parses (in the same mode) to the
/// same position; strict acceptance implies lenient acceptance of the same position; and every
/// position one legal move on writes a FEN that parses back to it.
pub fn check_fen(text: &str) {
    let strict = Position::from_fen(text, FenMode::Strict);
    let lenient = Position::from_fen(text, FenMode::Lenient);
    if let Ok(pos) = &strict {
        assert_eq!(
            lenient.as_ref(),
            Ok(pos),
            "strict accepts what lenient refuses"
        );
    }
    for (mode, parsed) in [(FenMode::Strict, &strict), (FenMode::Lenient, &lenient)] {
        let Ok(pos) = parsed else { continue };
        let fen = pos.fen();
        let again = Position::from_fen(&fen, mode)
            .unwrap_or_else(|e| panic!("own output {fen:?} refused in {mode:?}: {e}"));
        assert_eq!(&again, pos, "{fen}");
        assert_eq!(again.fen(), fen);
        for &mv in pos.legal_moves().iter() {
            let child = pos.after(mv);
            let child_fen = child.fen();
            let mut back = Position::from_fen(&child_fen, mode).unwrap_or_else(|e| {
                panic!(
                    "{child_fen:?} after {} from {fen:?} refused: {e}",
                    pos.uci(mv)
                )
            });
            // Without castling rights a FEN cannot say that the game is Chess960.
            if child.castling_rooks().is_empty() {
                back.set_chess960(child.is_chess960());
            }
            assert_eq!(back, child, "{child_fen}");
        }
    }
}

/// SAN: an accepted move is legal and its SAN parses back to it; an ambiguity names at least
/// two legal moves; and in the position every legal move's SAN, SAN without its check mark and
/// UCI text (long algebraic) parse back to the move.
pub fn check_san(data: &[u8]) {
    let (pos, rest) = position_from(data);
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    match pos.parse_san(text) {
        Ok(mv) => {
            assert!(pos.is_legal(mv), "{text:?} gave an illegal move");
            assert_eq!(pos.parse_san(&pos.san(mv)), Ok(mv), "{text:?}");
        }
        Err(chessd_core::san::SanError::Ambiguous { candidates, .. }) => {
            assert!(candidates.len() >= 2, "{text:?}: {candidates:?}");
            for c in &candidates {
                assert!(pos.parse_san(c).is_ok(), "candidate {c} of {text:?}");
            }
        }
        Err(_) => {}
    }
    for &mv in pos.legal_moves().iter() {
        let san = pos.san(mv);
        assert_eq!(pos.parse_san(&san), Ok(mv), "{san} in {}", pos.fen());
        let bare = san.trim_end_matches(['+', '#']);
        assert_eq!(pos.parse_san(bare), Ok(mv), "{bare} in {}", pos.fen());
        let uci = pos.uci(mv);
        assert_eq!(pos.parse_san(&uci), Ok(mv), "{uci} as SAN in {}", pos.fen());
    }
}

/// UCI moves: an accepted move is legal, and its UCI text is the input (lower case) or, for
/// castling, the other accepted notation; every legal move's UCI text and squares parse back.
pub fn check_uci_move(data: &[u8]) {
    let (pos, rest) = position_from(data);
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    if let Ok(mv) = pos.parse_uci(text) {
        assert!(pos.is_legal(mv), "{text:?} gave an illegal move");
        let written = pos.uci(mv);
        assert!(
            written == text.to_ascii_lowercase() || mv.is_castle(),
            "{text:?} read as {written}"
        );
        assert_eq!(pos.parse_uci(&written), Ok(mv));
    }
    for &mv in pos.legal_moves().iter() {
        let uci = pos.uci(mv);
        assert_eq!(pos.parse_uci(&uci), Ok(mv), "{uci} in {}", pos.fen());
        assert_eq!(
            pos.move_from_squares(mv.from(), mv.to(), mv.promotion_role()),
            Ok(mv)
        );
    }
}

/// What a PGN game read is, for comparing two readings.
fn game_summary(
    game: &Result<PgnGame, PgnError>,
) -> Result<(usize, String, Vec<PgnMove>), PgnError> {
    game.as_ref()
        .map(|g| (g.number, g.to_pgn(), g.moves.clone()))
        .map_err(Clone::clone)
}

/// The moves of a line and its variations, with NAGs and whitespace-normalised comments (what
/// survives writing and reading back).
fn line_shape(moves: &[PgnMove]) -> Vec<String> {
    let mut out = Vec::new();
    for m in moves {
        out.push(format!("{} {:?}", m.san, m.nags));
        for c in &m.comments {
            out.push(format!(
                "{{{}}}",
                c.split_whitespace().collect::<Vec<_>>().join(" ")
            ));
        }
        for v in &m.variations {
            out.push("(".into());
            out.extend(line_shape(&v.moves));
            out.push(")".into());
        }
    }
    out
}

/// PGN: the push parser fed in pieces (split where the input says) and the pull reader read the
/// same games and errors; and every game read writes PGN that reads back to the same game,
/// whose PGN is then the same text.
pub fn check_pgn(data: &[u8]) {
    let pulled: Vec<_> = PgnReader::from_chunks(std::iter::once(data))
        .map(|g| game_summary(&g))
        .collect();

    let mut parser = PgnParser::new();
    let mut pushed = Vec::new();
    let step = 1 + data.first().map_or(0, |&b| b as usize % 13);
    for (i, chunk) in data.chunks(step).enumerate() {
        parser.feed_bytes(chunk);
        if i % 3 == 0 {
            while let Some(game) = parser.next_game() {
                pushed.push(game_summary(&game));
            }
        }
    }
    parser.finish();
    while let Some(game) = parser.next_game() {
        pushed.push(game_summary(&game));
    }
    assert_eq!(pulled, pushed, "push and pull readers disagree");

    if let Ok(text) = std::str::from_utf8(data) {
        let lines: Vec<_> = PgnReader::new(text).map(|g| game_summary(&g)).collect();
        assert_eq!(pulled, lines, "reading lines and reading bytes disagree");
    }

    for game in PgnReader::from_chunks(std::iter::once(data)).flatten() {
        let text = game.to_pgn();
        let again = read_game(&text).unwrap_or_else(|e| panic!("own output refused: {e}\n{text}"));
        assert_eq!(again.start, game.start, "{text}");
        assert_eq!(line_shape(&again.moves), line_shape(&game.moves), "{text}");
        assert_eq!(again.position(), game.position());
        assert_eq!(again.to_pgn(), text, "writing is not stable");
    }
}

/// Positions engine `info` lines are shown from (their PVs are turned into SAN).
fn info_roots() -> [Position; 2] {
    [
        Position::startpos(),
        Position::from_fen(START_FENS[1], FenMode::Lenient).expect("a valid FEN"),
    ]
}

/// UCI protocol lines, both directions: each line parses, prints back to a line that parses to
/// the same value, unknown lines keep their trimmed text, and `info` lines turn into the JSON
/// view the server sends (PV in SAN) without failing.
pub fn check_uci_protocol(text: &str) {
    let roots = info_roots();
    for line in text.split('\n') {
        let parsed = EngineLine::parse(line);
        let printed = parsed.to_string();
        // Tokens an `info` line does not understand are printed after the fields it does, so
        // they may read differently there (`wdl 1 depth 2 3 4` prints `... wdl 1 3 4`): the
        // round trip is promised only for lines understood in full.
        let understood = !matches!(&parsed, EngineLine::Info(info) if !info.other.is_empty());
        if understood {
            assert_eq!(
                EngineLine::parse(&printed),
                parsed,
                "{line:?} printed as {printed:?}"
            );
        }
        match &parsed {
            EngineLine::Raw(raw) => assert_eq!(raw, line.trim()),
            EngineLine::Info(info) => {
                for root in &roots {
                    assert!(pv_san(root, &info.pv).len() <= info.pv.len());
                    if let Some(score) = info.score {
                        let pov = root.turn();
                        assert_eq!(score.for_white(pov).for_white(pov), score);
                    }
                }
                serde_json::to_string(info).expect("info serialises");
            }
            EngineLine::Option(decl) => {
                let _ = decl.check_value(decl.default.as_deref());
                serde_json::to_string(decl).expect("an option serialises");
            }
            _ => {}
        }

        let command = GuiCommand::parse(line);
        let printed = command.to_string();
        assert_eq!(
            GuiCommand::parse(&printed),
            command,
            "{line:?} printed as {printed:?}"
        );
    }
}

/// Grand Chess Tree commands (what a worker reads): an accepted command prints back to a line
/// that parses to the same command; a refused one gives an `error:` line that is one line and
/// reads back as that error.
pub fn check_gct_command(text: &str) {
    for line in text.split('\n') {
        match Command::parse(line) {
            Ok(Some(command)) => {
                let printed = command.to_string();
                assert_eq!(Command::parse(&printed), Ok(Some(command)), "{line:?}");
            }
            Ok(None) => assert!(line.trim().is_empty()),
            Err(e) => {
                let reply = Reply::Error(e.0.clone()).to_string();
                assert!(!reply.contains('\n'), "{reply:?}");
                assert_eq!(
                    Reply::parse(&reply),
                    Ok(Reply::Error(e.0.trim().to_string()))
                );
            }
        }
    }
}

/// Grand Chess Tree worker output (what the pool reads): each accepted line prints back to a
/// line that parses to the same reply, and collecting the result lines as the pool does either
/// fails cleanly or gives a result whose own lines collect to the same result.
pub fn check_gct_reply(text: &str) {
    let mut collector = ResultCollector::default();
    for line in text.split('\n') {
        let Ok(reply) = Reply::parse(line) else {
            continue;
        };
        let printed = reply.to_string();
        assert_eq!(Reply::parse(&printed).as_ref(), Ok(&reply), "{line:?}");
        match reply {
            Reply::Field(field) => {
                let _ = collector.push(field);
            }
            Reply::Done => {
                if let Ok(result) = std::mem::take(&mut collector).finish() {
                    let mut again = ResultCollector::default();
                    for reply in result.replies(true) {
                        let Reply::Field(field) =
                            Reply::parse(&reply.to_string()).expect("own result lines parse")
                        else {
                            panic!("{reply} is not a result line");
                        };
                        again.push(field).expect("own result lines are distinct");
                    }
                    assert_eq!(again.finish().as_ref(), Ok(&result));
                }
            }
            _ => {}
        }
    }
}

/// WebSocket client frames: a frame is accepted only if it is a JSON object whose `type` names
/// the command it was read as.
pub fn check_ws_client_frame(text: &str) {
    let Ok(frame) = parse_client_frame(text) else {
        return;
    };
    let value: serde_json::Value = serde_json::from_str(text).expect("an accepted frame is JSON");
    let kind = value
        .get("type")
        .and_then(serde_json::Value::as_str)
        .expect("an accepted frame has a string type");
    let expected = match frame {
        ClientFrame::Move { .. } => "move",
        ClientFrame::Resign { .. } => "resign",
        ClientFrame::DrawOffer { .. } => "draw_offer",
        ClientFrame::DrawAccept { .. } => "draw_accept",
        ClientFrame::DrawDecline { .. } => "draw_decline",
        ClientFrame::DrawClaim { .. } => "draw_claim",
        ClientFrame::Duel { .. } => "duel",
        ClientFrame::Abort { .. } => "abort",
        ClientFrame::TakebackOffer { .. } => "takeback_offer",
        ClientFrame::TakebackAccept { .. } => "takeback_accept",
        ClientFrame::TakebackDecline { .. } => "takeback_decline",
        ClientFrame::RematchOffer { .. } => "rematch_offer",
        ClientFrame::RematchAccept { .. } => "rematch_accept",
        ClientFrame::RematchDecline { .. } => "rematch_decline",
        ClientFrame::Chat { .. } => "chat",
        ClientFrame::Ping { .. } => "ping",
    };
    assert_eq!(kind, expected, "{text}");
    // `type` and `ack`, plus `uci`, `san` and `version` for a move, the four duel fields, or a
    // chat's `text`.
    let most = match expected {
        "duel" => 6,
        "move" => 5,
        "chat" => 3,
        _ => 2,
    };
    let fields = value.as_object().expect("an object").len();
    assert!(fields <= most, "{text}");
}
