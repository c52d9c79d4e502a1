//! A played game in PGN, written by the core's PGN writer with the tags the server's archive
//! gives a game with two engine seats ([`GameRecord::pgn_tags`]: the Seven Tag Roster with the
//! engines' configured names, `UTCTime`, `TimeControl`, `Termination`), filled in for a match:
//! the event, the round, how the game ended, and a comment after the last move saying why when
//! an engine lost by failing (or resigned) or the game was adjudicated.

use std::time::UNIX_EPOCH;

use chessd_core::{game::Game, pgn::PgnGame, Color};
use chessd_server::game::{archive::GameRecord, clock::TimeControl};

use super::referee::Played;

/// The PGN of game `round` (from 1) of the match called `event`; `time_control` when clocks
/// ran (its `TimeControl` tag; none for a fixed move time).
pub(super) fn pgn(
    played: &Played,
    event: &str,
    round: u32,
    time_control: Option<TimeControl>,
) -> String {
    let began_ms = played
        .began
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let seats = vec![
        (Color::White, played.white.clone()),
        (Color::Black, played.black.clone()),
    ];
    let mut tags = record(played.game.clone(), began_ms, time_control, seats).pgn_tags();
    // The archive writes `-` for an untimed game; a match without clocks has a move time.
    tags.retain(|(name, _)| name != "TimeControl" || time_control.is_some());
    for (name, value) in &mut tags {
        match name.as_str() {
            "Event" => *value = event.to_string(),
            "Site" => *value = "?".to_string(),
            "Round" => *value = round.to_string(),
            "Termination" => *value = played.ending.termination().to_string(),
            _ => {}
        }
    }
    let mut pgn = PgnGame::from_game(&played.game, tags);
    if let Some(note) = played.ending.note() {
        match pgn.moves.last_mut() {
            Some(last) => last.comments.push(note.to_string()),
            None => pgn.prelude.push(note.to_string()),
        }
    }
    pgn.to_pgn()
}

/// The archive's record of a finished game nobody plays on.
fn record(
    game: Game,
    created_ms: i64,
    time_control: Option<TimeControl>,
    engine_seats: Vec<(Color, String)>,
) -> GameRecord {
    GameRecord {
        id: uuid::Uuid::nil(),
        created_ms,
        game: game.into(),
        time_control,
        engine_seats,
        live: false,
        sans: None,
    }
}

#[cfg(test)]
mod tests {
    use chessd_core::{game::GameResult, pgn::read_game};

    use super::*;
    use crate::cli::engine_match::referee::Ending;

    fn played(moves: &[&str], ending: Ending) -> Played {
        let mut game = Game::default();
        for mv in moves {
            game.play_uci(mv).unwrap();
        }
        Played {
            game,
            began: UNIX_EPOCH + std::time::Duration::from_secs(1_709_251_198),
            white: "stockfish".into(),
            black: "toga".into(),
            ending,
        }
    }

    #[test]
    fn tags_and_the_reason_read_back() {
        let mut p = played(&["e2e4", "e7e5"], Ending::Normal(None));
        p.game.flag(Color::Black).unwrap();
        p.ending = Ending::TimeForfeit("toga sent no move within 1.05 s".into());
        let tc = TimeControl {
            initial_ms: 1000,
            increment_ms: 50,
        };
        let text = pgn(&p, "chessd match", 3, Some(tc));
        let back = read_game(&text).unwrap();
        assert_eq!(back.tag("Event"), Some("chessd match"));
        assert_eq!(back.tag("Site"), Some("?"));
        assert_eq!(back.tag("Date"), Some("2024.02.29"));
        assert_eq!(back.tag("UTCTime"), Some("23:59:58"));
        assert_eq!(back.tag("Round"), Some("3"));
        assert_eq!(back.tag("White"), Some("stockfish"));
        assert_eq!(back.tag("Black"), Some("toga"));
        assert_eq!(back.tag("Result"), Some("1-0"));
        assert_eq!(back.tag("TimeControl"), Some("1+0.05"));
        assert_eq!(back.tag("Termination"), Some("time forfeit"));
        assert_eq!(back.result, Some(GameResult::WhiteWins));
        assert_eq!(back.moves[1].comments, ["toga sent no move within 1.05 s"]);
        assert_eq!(tc.pgn(), "1+0.05");
        let tc = TimeControl {
            initial_ms: 180_000,
            increment_ms: 2_000,
        };
        assert_eq!(tc.pgn(), "180+2");
    }

    #[test]
    fn a_move_time_game_has_no_time_control_and_a_note_without_moves_comes_first() {
        let mut p = played(&[], Ending::Abandoned("stockfish died: gone".into()));
        p.game.set_winner(Color::Black, None).unwrap();
        let text = pgn(&p, "m", 1, None);
        let back = read_game(&text).unwrap();
        assert_eq!(back.tag("TimeControl"), None);
        assert_eq!(back.tag("Termination"), Some("abandoned"));
        assert_eq!(back.prelude, ["stockfish died: gone"]);
        assert_eq!(back.result, Some(GameResult::BlackWins));
    }
}
