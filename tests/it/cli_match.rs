//! Black-box tests of `chessd match`: the built binary plays real games between configured
//! engines (the built-in engine always; Stockfish, Toga II and Sjeng where Debian's packages
//! are installed, else reported as ignored with the reason), and its score and PGN are checked
//! against each other and against the core's rules.

use std::process::{Command, Output};

use chessd_core::{
    game::{Game, GameResult},
    pgn::{PgnGame, PgnReader},
};

/// How a game may end when the engines behave: by the rules (or a resignation), on time, or
/// adjudicated at the ply limit. `abandoned` and `rules infraction` would mean an engine
/// failed, or the match drove it wrong.
const REAL_ENDS: [&str; 3] = ["normal", "time forfeit", "adjudication"];

/// Runs `chessd match ARGS` with `env` added to the environment.
fn chessd_match(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chessd"))
        .arg("match")
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("the chessd binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// Wins, draws and losses.
type Wdl = (u32, u32, u32);

/// The score line's `+W =D -L of N` for engine `first`.
fn printed_score(stdout: &str, first: &str) -> Wdl {
    let prefix = format!("% score of {first}: ");
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no score line for {first}: {stdout}"));
    let mut words = line.split_whitespace();
    let mut count = |sign: char| -> u32 {
        let word = words.next().unwrap();
        word.strip_prefix(sign)
            .unwrap_or_else(|| panic!("{word:?} in {line:?}"))
            .parse()
            .unwrap()
    };
    (count('+'), count('='), count('-'))
}

/// Reads every game of `pgn` with the core's reader and checks each one: the engines
/// alternate colours (`first` is White in odd rounds), every move replays legally on a fresh
/// `Game`, the `Result` tag is a result and agrees with the movetext's, a game the rules ended
/// has that result and `normal` termination, a game they did not end says why, and it ended
/// for a real reason. Returns the games and the score they give `first`.
fn check_games(pgn: &str, first: &str, second: &str, max_plies: usize) -> (Vec<PgnGame>, Wdl) {
    let games: Vec<PgnGame> = PgnReader::new(pgn)
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("the PGN reads back: {e}\n{pgn}"));
    let mut score = (0, 0, 0);
    for (i, g) in games.iter().enumerate() {
        let (white, black) = if i % 2 == 0 {
            (first, second)
        } else {
            (second, first)
        };
        assert_eq!(g.tag("Round"), Some((i + 1).to_string().as_str()));
        assert_eq!(g.tag("White"), Some(white), "game {}", i + 1);
        assert_eq!(g.tag("Black"), Some(black), "game {}", i + 1);
        let mut replay = Game::default();
        for m in &g.moves {
            replay.play(m.mv).unwrap();
        }
        let result = g.result.unwrap();
        assert_ne!(result, GameResult::Ongoing, "game {} has a result", i + 1);
        assert_eq!(g.tag("Result"), Some(result.pgn()));
        let termination = g.tag("Termination").unwrap();
        assert!(
            REAL_ENDS.contains(&termination),
            "game {}: {termination}",
            i + 1
        );
        let note = g
            .moves
            .last()
            .map(|m| m.comments.join(" "))
            .unwrap_or_default();
        if replay.is_over() {
            assert_eq!(replay.status().result, result, "game {}", i + 1);
            assert_eq!(termination, "normal");
        } else {
            match termination {
                "adjudication" => {
                    assert_eq!(result, GameResult::Draw);
                    assert_eq!(g.moves.len(), max_plies, "adjudicated at the limit");
                }
                "time forfeit" => assert!(note.contains(" time") || note.contains("no move")),
                _ => assert!(note.contains("resigns"), "game {}: {note:?}", i + 1),
            }
        }
        let first_color = if i % 2 == 0 {
            chessd_core::Color::White
        } else {
            chessd_core::Color::Black
        };
        match result.winner() {
            None => score.1 += 1,
            Some(c) if c == first_color => score.0 += 1,
            Some(_) => score.2 += 1,
        }
    }
    (games, score)
}

/// Checks a successful match's stderr: the header and one line per game.
fn check_progress(out: &Output, games: usize) -> String {
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{out:?}\n{stderr}");
    assert!(stderr.starts_with("chessd match: "), "{stderr}");
    let lines = stderr.lines().filter(|l| l.starts_with("game ")).count();
    assert_eq!(lines, games, "{stderr}");
    stderr
}

#[test]
fn the_built_in_engine_plays_itself_and_the_pgn_reads_back_with_the_score() {
    let out = chessd_match(
        &[
            "builtin",
            "builtin",
            "--games",
            "2",
            "--movetime",
            "20",
            "--max-plies",
            "120",
        ],
        &[],
    );
    let stderr = check_progress(&out, 2);
    assert!(stderr.contains("builtin (chessd"), "{stderr}");
    let stdout = text(&out.stdout);
    // Stdout as a whole is PGN: the score as escape lines, then the games.
    let (games, score) = check_games(&stdout, "builtin", "builtin", 120);
    assert_eq!(games.len(), 2);
    assert!(games.iter().all(|g| g.tag("TimeControl").is_none()));
    assert_eq!(printed_score(&stdout, "builtin"), score);
    assert!(stdout.starts_with("% chessd match: builtin vs builtin, 2 games, movetime 20 ms\n"));
}

#[test]
fn tesla_plays_the_built_in_engine_at_equal_nodes_and_every_move_is_legal() {
    // `tesla` is the built-in engine with `Search = "tesla"` (config/default.toml); the
    // referee (the core's Game) checks every move, and check_games replays the PGN.
    let out = chessd_match(
        &[
            "tesla",
            "builtin",
            "--games",
            "2",
            "--nodes",
            "2000",
            "--max-plies",
            "120",
        ],
        &[],
    );
    let stderr = check_progress(&out, 2);
    assert!(stderr.contains("tesla (chessd"), "{stderr}");
    let stdout = text(&out.stdout);
    let (games, score) = check_games(&stdout, "tesla", "builtin", 120);
    assert_eq!(games.len(), 2);
    assert_eq!(printed_score(&stdout, "tesla"), score);
    assert!(stdout.starts_with("% chessd match: tesla vs builtin, 2 games, nodes 2000\n"));
}

#[test]
#[cfg_attr(
    not(all(has_stockfish, has_toga2)),
    ignore = "Stockfish or Toga II is not installed (apt-get install stockfish toga2)"
)]
fn stockfish_and_toga_play_on_clocks_and_the_pgn_goes_to_a_file() {
    let pgn_path = std::env::temp_dir().join(format!("chessd-match-{}.pgn", std::process::id()));
    let out = chessd_match(
        &[
            "stockfish",
            "toga",
            "--games",
            "2",
            "--tc",
            "2+0.05",
            "--max-plies",
            "160",
            "--pgn",
            pgn_path.to_str().unwrap(),
        ],
        &[("CHESSD_ENGINES__TOGA__COMMAND", "toga2")],
    );
    let stderr = check_progress(&out, 2);
    assert!(stderr.contains("toga (Toga II"), "{stderr}");
    let stdout = text(&out.stdout);
    assert!(
        !stdout.contains("[Event"),
        "the PGN went to the file: {stdout}"
    );
    let pgn = std::fs::read_to_string(&pgn_path).unwrap();
    let _ = std::fs::remove_file(&pgn_path);
    let (games, score) = check_games(&pgn, "stockfish", "toga", 160);
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(g.tag("TimeControl"), Some("2+0.05"));
        assert!(!g.moves.is_empty());
    }
    assert_eq!(printed_score(&stdout, "stockfish"), score);
    assert!(stdout.contains("2 games, tc 2+0.05"), "{stdout}");
}

#[test]
#[cfg_attr(
    not(has_sjeng),
    ignore = "sjeng is not installed (apt-get install sjeng)"
)]
fn an_xboard_engine_plays_the_built_in_engine() {
    let out = chessd_match(
        &[
            "sjeng",
            "builtin",
            "--games",
            "1",
            "--movetime",
            "50",
            "--max-plies",
            "100",
        ],
        &[
            ("CHESSD_ENGINES__SJENG__COMMAND", "sjeng"),
            ("CHESSD_ENGINES__SJENG__PROTOCOL", "xboard"),
        ],
    );
    let stderr = check_progress(&out, 1);
    assert!(stderr.contains("sjeng (Sjeng"), "{stderr}");
    assert!(stderr.contains("xboard"), "{stderr}");
    let stdout = text(&out.stdout);
    let (games, score) = check_games(&stdout, "sjeng", "builtin", 100);
    assert_eq!(games.len(), 1);
    // Sjeng moved (as White, it made the first move of the game).
    assert!(!games[0].moves.is_empty());
    assert_eq!(printed_score(&stdout, "sjeng"), score);
}

#[test]
fn an_unknown_engine_is_refused_with_the_configured_names() {
    let out = chessd_match(&["builtin", "nosuch"], &[]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(r#"no engine named "nosuch" is configured"#),
        "{stderr}"
    );
    let listed = stderr.split("configured: ").nth(1).unwrap_or_default();
    assert!(
        listed.contains("builtin") && listed.contains("stockfish"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "no match was played");
}

#[test]
fn an_engine_that_cannot_start_and_a_bad_time_control_are_errors() {
    let out = chessd_match(
        &["builtin", "broken"],
        &[("CHESSD_ENGINES__BROKEN__COMMAND", "no-such-engine-chessd")],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = text(&out.stderr);
    assert!(stderr.contains("cannot start engine broken: "), "{stderr}");
    assert!(stderr.contains("no-such-engine-chessd"), "{stderr}");
    for bad in ["0+1", "ten", "1+x"] {
        let out = chessd_match(&["--tc", bad], &[]);
        assert_eq!(out.status.code(), Some(2), "{bad}: {out:?}");
        assert!(text(&out.stderr).contains("--tc"), "{bad}: {out:?}");
    }
    let out = chessd_match(&["builtin"], &[]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(text(&out.stderr).contains("name two engines"));
}
