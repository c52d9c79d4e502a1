use chessd_core::{
    chess2::{Army, Chess2Game, Chess2Position},
    game::{Game, GameResult},
};

use super::*;
use crate::{
    game::{
        clock::TimeControl,
        journal::{setup_of, StoredOpponent},
    },
    test_games::{random_game, Rng},
};

fn mv(uci: &str, clocks: Option<[u64; 2]>) -> Entry {
    Entry::played(uci, clocks)
}

fn numbered(list: Vec<Entry>) -> Vec<(u64, Entry)> {
    (1..).zip(list).collect()
}

fn options(time_control: Option<TimeControl>) -> StoredOptions {
    StoredOptions {
        idle_timeout_secs: 0,
        abandon_after_secs: 600,
        webhook: None,
        time_control,
        draw_policy: DrawPolicy::Automatic,
        opponent: None,
        rival: None,
        chess2_bots: Vec::new(),
    }
}

fn round_trip(
    setup: &SavedState,
    options: Option<&StoredOptions>,
    entries: &[(u64, Entry)],
) -> usize {
    let record = pack(setup, options, entries).unwrap();
    let back = unpack(&record).unwrap();
    assert_eq!(
        back.setup,
        SavedState {
            status: None,
            ..setup.clone()
        }
    );
    assert_eq!(back.options.as_ref(), options);
    assert_eq!(back.entries, entries);
    assert!(back.sans.is_none(), "no SAN unless asked for");
    replays_by_its_hints(setup, options, entries, back.entries);
    notes_its_moves(setup, options, entries, &record);
    record.len()
}

/// Read for an export, a record gives the same entries (the chess moves' without their UCI
/// text and clocks while it gives SAN) and SAN that write the replayed game's PGN as its
/// moves do; none for Chess 2, nor for a journal that starts another game.
fn notes_its_moves(
    setup: &SavedState,
    options: Option<&StoredOptions>,
    entries: &[(u64, Entry)],
    record: &[u8],
) {
    let noted = unpack_with(record, Reading::Export).unwrap();
    let bare: Vec<(u64, Entry)> = entries
        .iter()
        .zip(&noted.entries)
        .map(|((version, entry), (_, read))| {
            let entry = match (entry, read) {
                (Entry::Move { .. }, Entry::Move { decoded, .. }) if noted.sans.is_some() => {
                    Entry::Move {
                        uci: CompactString::const_new(""),
                        clocks: None,
                        decoded: *decoded,
                    }
                }
                _ => entry.clone(),
            };
            (*version, entry)
        })
        .collect();
    assert_eq!(noted.entries, bare);
    let rewinds = entries
        .iter()
        .any(|(_, e)| matches!(e, Entry::Takeback { .. } | Entry::Reset { .. }));
    assert_eq!(
        noted.sans.is_some(),
        setup.variant.is_none() && !rewinds,
        "{entries:?}"
    );
    let policy = options.map(|o| o.draw_policy).unwrap_or_default();
    let now = std::time::Instant::now();
    let (Some(sans), Ok(replayed)) = (
        noted.sans,
        crate::game::journal::replay(setup, policy, entries, 1, now),
    ) else {
        return;
    };
    let Board::Chess(game) = &replayed.game else {
        panic!("SAN for a Chess 2 game");
    };
    assert_eq!(sans.len(), game.history().len());
    assert_eq!(
        chessd_core::pgn::write_noted_game(game, &sans, &[]),
        chessd_core::pgn::write_played_game(game, &[])
    );
}

/// Every chess move read back carries the move as decoded, and replay plays it from that
/// alone: with the texts of those moves spoiled, the unpacked journal still replays to the
/// game the journal gives (when the journal replays at all).
fn replays_by_its_hints(
    setup: &SavedState,
    options: Option<&StoredOptions>,
    entries: &[(u64, Entry)],
    mut back: Vec<(u64, Entry)>,
) {
    for (_, entry) in &mut back {
        if let Entry::Move { uci, decoded, .. } = entry {
            if decoded.0.is_some() {
                *uci = "spoiled".into();
            }
        }
    }
    let policy = options.map(|o| o.draw_policy).unwrap_or_default();
    let now = std::time::Instant::now();
    // Some journals here test the record only (an end the moves do not give, say).
    let Ok(expected) = crate::game::journal::replay(setup, policy, entries, 1, now) else {
        return;
    };
    let got = crate::game::journal::replay(setup, policy, &back, 1, now).unwrap();
    assert_eq!(got.game.fen(), expected.game.fen());
    assert_eq!(got.game.status(), expected.game.status());
}

#[test]
fn a_timed_game_with_offers_and_a_resignation_reads_back() {
    let control = TimeControl {
        initial_ms: 300_000,
        increment_ms: 3_000,
    };
    let setup = setup_of(&Game::new(Position::default()).into(), Some(control));
    let entries = numbered(vec![
        mv("e2e4", Some([300_000, 300_000])),
        mv("e7e5", Some([300_000, 301_250])),
        Entry::DrawOffered { by: Color::White },
        mv("g1f3", Some([298_731, 301_250])),
        Entry::DrawDeclined { by: Color::Black },
        mv("b8c6", Some([298_731, 297_002])),
        Entry::End {
            status: Status {
                result: GameResult::BlackWins,
                reason: Some(Reason::Resignation),
                note: None,
            },
            clocks: Some([290_100, 297_002]),
        },
    ]);
    let bytes = round_trip(&setup, Some(&options(Some(control))), &entries);
    // Setup, options, seven entries and their clocks: far below their text (about 500 bytes).
    assert!(bytes < 40, "{bytes} bytes");
}

#[test]
fn every_start_and_setup_reads_back() {
    // A FEN start, with moves in its setup.
    let mut from_fen = Game::from_fen("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1").unwrap();
    from_fen.play_uci("e2e4").unwrap();
    let setup = setup_of(&from_fen.into(), None);
    assert_eq!(setup.moves, ["e2e4"]);
    round_trip(&setup, None, &numbered(vec![mv("e8d7", None)]));
    // Chess960, castling as its king takes its rook.
    let chess960 =
        Game::from_fen("1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1").unwrap();
    let castles = chess960
        .position()
        .uci(chess960.position().parse_uci("e1b1").unwrap());
    let setup = setup_of(&chess960.into(), None);
    round_trip(
        &setup,
        None,
        &numbered(vec![mv(&castles, None), mv("e8g8", None)]),
    );
    // Chess 2, armies chosen.
    let chess2 = Chess2Game::new(
        Chess2Position::start(Army::Nemesis, Army::Reaper),
        DrawPolicy::Claims,
    );
    let setup = setup_of(&chess2.into(), None);
    let first = {
        let game = Chess2Game::new(
            Chess2Position::start(Army::Nemesis, Army::Reaper),
            DrawPolicy::Claims,
        );
        Chess2Action::Move(game.legal_moves()[3]).to_string()
    };
    round_trip(
        &setup,
        Some(&options(None)),
        &numbered(vec![mv(&first, None)]),
    );
    // A setup with a pending draw offer is kept as its JSON.
    let mut offered = setup_of(&Game::new(Position::default()).into(), None);
    offered.draw_offer = Some(Color::Black);
    round_trip(&offered, None, &[]);
}

#[test]
fn options_with_a_webhook_or_engines_read_back() {
    let setup = setup_of(&Game::new(Position::default()).into(), None);
    let mut with_engine = options(Some(TimeControl {
        initial_ms: 60_000,
        increment_ms: 0,
    }));
    with_engine.opponent = Some(StoredOpponent {
        engine: "builtin".into(),
        plays: Color::Black,
        go: None,
        client: "ip:127.0.0.1".into(),
    });
    with_engine.webhook = Some("http://127.0.0.1:9/end".into());
    round_trip(&setup, Some(&with_engine), &[]);
    // A time control of its own (not the setup's).
    round_trip(
        &setup,
        Some(&with_engine),
        &numbered(vec![mv("d2d4", None)]),
    );
}

#[test]
fn a_re_initialised_game_reads_back() {
    let setup = setup_of(&Game::new(Position::default()).into(), None);
    let mut later = Game::from_fen("8/8/8/8/8/8/k7/4K2R w K - 0 1").unwrap();
    later.play_uci("e1g1").unwrap();
    let state = SavedState::capture(&later.into(), None, None);
    let entries = numbered(vec![
        mv("e2e4", None),
        Entry::Reset {
            state: Box::new(state),
        },
        mv("a2b3", None),
        mv("f1f2", None),
    ]);
    round_trip(&setup, None, &entries);
}

#[test]
fn journals_that_cannot_be_packed_are_refused() {
    let setup = setup_of(&Game::new(Position::default()).into(), None);
    // Clocks in an untimed game.
    let timed_move = numbered(vec![mv("e2e4", Some([1, 2]))]);
    assert!(matches!(
        pack(&setup, None, &timed_move),
        Err(PackError::Unpackable(_))
    ));
    // An illegal move; versions that skip.
    assert!(pack(&setup, None, &numbered(vec![mv("e2e5", None)])).is_err());
    let gap = vec![(1, mv("e2e4", None)), (3, mv("e7e5", None))];
    assert!(matches!(
        pack(&setup, None, &gap),
        Err(PackError::Unpackable(_))
    ));
}

#[test]
fn corrupt_records_are_refused_without_a_panic() {
    let setup = setup_of(
        &Game::new(Position::default()).into(),
        Some(TimeControl {
            initial_ms: 180_000,
            increment_ms: 2_000,
        }),
    );
    let entries = numbered(vec![
        mv("d2d4", Some([180_000, 180_000])),
        mv("d7d5", Some([180_000, 179_000])),
        mv("c2c4", Some([178_000, 179_000])),
    ]);
    let record = pack(
        &setup,
        Some(&options(setup.clock.map(|c| c.control))),
        &entries,
    )
    .unwrap();
    assert!(unpack(&[]).is_err());
    assert!(unpack(&[2]).is_err(), "an unknown format");
    let mut longer = record.clone();
    longer.push(0);
    assert!(unpack(&longer).is_err(), "a byte after the record");
    // Every single bit flipped: refused, or another journal, never a panic.
    for bit in 0..record.len() * 8 {
        let mut flipped = record.clone();
        flipped[bit / 8] ^= 0x80 >> (bit % 8);
        let _ = unpack(&flipped);
    }
}

#[test]
fn a_finished_games_clocks_are_kept_to_the_centisecond() {
    let control = TimeControl {
        initial_ms: 180_000,
        increment_ms: 2_000,
    };
    let setup = setup_of(&Game::new(Position::default()).into(), Some(control));
    let mut entries = numbered(vec![
        mv("d2d4", Some([180_000, 180_000])),
        mv("d7d5", Some([180_000, 178_734])),
        mv("c2c4", Some([176_996, 178_734])),
        Entry::End {
            status: Status {
                result: GameResult::WhiteWins,
                reason: Some(Reason::Timeout),
                note: None,
            },
            clocks: Some([170_505, 0]),
        },
    ]);
    let in_ms = round_trip(&setup, None, &entries);
    to_centiseconds(&mut entries);
    assert_eq!(
        entries[1].1,
        mv("d7d5", Some([180_000, 178_730])),
        "rounded to the nearest centisecond"
    );
    assert!(matches!(
        entries[3].1,
        Entry::End {
            clocks: Some([170_510, 0]),
            ..
        }
    ));
    let in_centis = round_trip(&setup, None, &entries);
    assert!(in_centis < in_ms, "{in_centis} bytes, {in_ms} in ms");
}

#[test]
fn every_result_and_reason_of_an_end_reads_back() {
    let setup = setup_of(&Game::new(Position::default()).into(), None);
    for result in [
        GameResult::WhiteWins,
        GameResult::BlackWins,
        GameResult::Draw,
    ] {
        for reason in Reason::ALL.into_iter().map(Some).chain([None]) {
            let end = Entry::End {
                status: Status {
                    result,
                    reason,
                    note: None,
                },
                clocks: None,
            };
            round_trip(&setup, None, &numbered(vec![mv("e2e4", None), end]));
        }
    }
}

/// A random game of `plies` moves as the journal holds it, 5+3 clocks when `timed`.
fn random_journal(plies: usize, timed: bool) -> Vec<(u64, Entry)> {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let game = random_game(&mut rng, plies);
    let mut clocks = [300_000u64, 300_000];
    let list = game
        .uci_history()
        .into_iter()
        .enumerate()
        .map(|(ply, uci)| {
            let mover = ply % 2;
            clocks[mover] = (clocks[mover] + 3_000).saturating_sub(500 + rng.below(4_000) as u64);
            mv(&uci, timed.then_some(clocks))
        })
        .collect();
    numbered(list)
}

/// A stored game whose journal is all in its packed record.
fn packed_game(
    setup: &SavedState,
    options: &StoredOptions,
    entries: &[(u64, Entry)],
) -> crate::store::StoredGame {
    crate::store::StoredGame {
        seq: 1,
        id: uuid::Uuid::nil(),
        created_ms: 1_764_000_000_000,
        secrets: Vec::new(),
        setup: String::new(),
        options: String::new(),
        live: false,
        result: "ongoing".into(),
        packed: Some(pack(setup, Some(options), entries).unwrap()),
        packed_through: entries.len() as i64,
        has_players: false,
        entries: Vec::new(),
        keys: Vec::new(),
    }
}

/// An export writes a stored game's moves with the SAN its record's decoding wrote while the
/// rows after the record add no move (an end, an offer), and from the replayed game once a
/// row moves, takes back or starts another game: the PGN is the same either way.
#[test]
fn an_export_writes_the_records_san_only_while_no_row_moves() {
    use crate::{game::archive::GameRecord, store::StoredEntry};

    let setup = setup_of(&Game::new(Position::default()).into(), None);
    let entries = random_journal(60, false);
    let base = packed_game(&setup, &options(None), &entries);
    let next = entries.len() as i64 + 1;
    let row = |version: i64, entry: Entry| StoredEntry {
        version,
        body: entry.encode(),
    };
    let resigned = Entry::End {
        status: Status {
            result: GameResult::WhiteWins,
            reason: Some(Reason::Resignation),
            note: None,
        },
        clocks: None,
    };
    let now = std::time::Instant::now();
    let replayed = crate::game::journal::replay(&setup, DrawPolicy::Automatic, &entries, 1, now)
        .unwrap()
        .game;
    let Board::Chess(played) = &replayed else {
        unreachable!("a chess game")
    };
    // A move after the last, and a move instead of the last.
    let after = played.position();
    let next_move = after.uci(after.legal_moves()[0]);
    let history = played.history();
    let (last, earlier) = history.split_last().unwrap();
    let mut before = *played.start_position();
    for &mv in earlier {
        before.play_unchecked(mv);
    }
    let instead = *before.legal_moves().iter().find(|&m| m != last).unwrap();
    let instead = before.uci(instead);
    let cases: Vec<(&str, Vec<StoredEntry>, bool)> = vec![
        ("no rows", Vec::new(), true),
        ("a resignation", vec![row(next, resigned)], true),
        (
            "an offer declined",
            vec![
                row(next, Entry::DrawOffered { by: Color::White }),
                row(next + 1, Entry::DrawDeclined { by: Color::Black }),
            ],
            true,
        ),
        ("a move", vec![row(next, mv(&next_move, None))], false),
        (
            "a takeback and another move",
            vec![
                row(
                    next,
                    Entry::Takeback {
                        plies: 1,
                        clocks: None,
                    },
                ),
                row(next + 1, mv(&instead, None)),
            ],
            false,
        ),
    ];
    for (what, rows, noted) in cases {
        let stored = crate::store::StoredGame {
            entries: rows,
            ..base.clone()
        };
        let record = GameRecord::from_stored(&stored).unwrap();
        assert_eq!(record.sans.is_some(), noted, "{what}");
        let Board::Chess(game) = &record.game else {
            unreachable!("a chess game")
        };
        assert_eq!(
            game.history().len(),
            60 + usize::from(what == "a move"),
            "{what}"
        );
        let from_moves = GameRecord {
            sans: None,
            ..record.clone()
        };
        assert_eq!(record.to_pgn(), from_moves.to_pgn(), "{what}");
    }
}

/// Bringing a packed game back (reading its record, replaying it with the events a live game
/// keeps) and exporting it (replaying it, writing its PGN) allocate nothing a move: a game four
/// times as long makes a few allocations more (vectors doubling), not one or more a move.
#[test]
fn bringing_back_and_exporting_a_packed_game_allocate_nothing_a_move() {
    use crate::{allocations::counted, game::archive::GameRecord};

    let made = |plies: usize, timed: bool| {
        let control = TimeControl {
            initial_ms: 300_000,
            increment_ms: 3_000,
        };
        let control = timed.then_some(control);
        let setup = setup_of(&Game::new(Position::default()).into(), control);
        let entries = random_journal(plies, timed);
        let stored = packed_game(&setup, &options(control), &entries);
        let now = std::time::Instant::now();
        let (back, brought) = counted(|| {
            let journal = crate::game::journal::read_stored(&stored).unwrap();
            crate::game::journal::replay_stored(&journal, 32, now).unwrap()
        });
        assert_eq!(back.game.plies(), plies);
        let (pgn, exported) = counted(|| GameRecord::from_stored(&stored).unwrap().to_pgn());
        assert!(pgn.contains("\n1. "), "{pgn}");
        [brought, exported]
    };
    for timed in [false, true] {
        let (short, long) = (made(40, timed), made(160, timed));
        for (what, short, long) in [
            ("brought back", short[0], long[0]),
            ("exported", short[1], long[1]),
        ] {
            assert!(
                long <= short + 12,
                "{what} (timed: {timed}): {short} allocations for 40 plies, {long} for 160"
            );
        }
    }
}
