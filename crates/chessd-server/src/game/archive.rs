//! A game as an archive shows it: who played it, its clocks, when it was made and how it
//! ended, with its PGN tags. The same record comes from a game in memory (the single-game PGN
//! route) or from the store (the export replays each stored game through the rules), so both
//! write the same tags.

use chessd_core::{game::Reason, pgn::write_noted_game, Color};
use compact_str::CompactString;
use uuid::Uuid;

use crate::{
    game::{
        clock::TimeControl,
        journal::{read_stored_with, replay_stored, Reading},
        replies::GameSnapshot,
        GameError,
    },
    store::StoredGame,
};

/// What the `Player` tags say of a seat nobody named (PGN's "unknown").
pub const UNKNOWN_PLAYER: &str = "?";

/// A game with what the archive knows of it.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// Its id.
    pub id: Uuid,
    /// When it was created (Unix ms).
    pub created_ms: i64,
    /// The game: its start, moves and status.
    pub game: crate::game::Board,
    /// Its clocks, when timed.
    pub time_control: Option<TimeControl>,
    /// The sides engines play and the engines' configured names.
    pub engine_seats: Vec<(Color, String)>,
    /// Whether it can still be played: an unfinished game that is no longer live was stopped
    /// (through the API, an idle timeout or abandonment) before it ended.
    pub live: bool,
    /// The SAN of the game's moves, in order, when reading it from the store wrote them (the
    /// PGN then need not replay the moves to write them).
    pub sans: Option<Vec<CompactString>>,
}

/// How a game ended, as PGN's `Termination` tag says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    /// Ended by the rules or the players: checkmate, stalemate, a draw rule, resignation,
    /// agreement.
    Normal,
    /// A player ran out of time.
    TimeForfeit,
    /// A result set from outside (an administrator's draw or winner).
    Adjudication,
    /// Stopped before it ended (the API's stop, an idle timeout, abandonment).
    Abandoned,
    /// Still being played.
    Unterminated,
}

impl Termination {
    /// The tag's value: `normal`, `time forfeit`, `adjudication`, `abandoned` or
    /// `unterminated` (PGN standard, section 9.8.1).
    pub const fn pgn(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::TimeForfeit => "time forfeit",
            Termination::Adjudication => "adjudication",
            Termination::Abandoned => "abandoned",
            Termination::Unterminated => "unterminated",
        }
    }
}

impl GameRecord {
    /// The record of a game in memory (it is live: a stopped game leaves memory).
    pub fn from_snapshot(snap: &GameSnapshot) -> GameRecord {
        let created_ms = snap
            .created
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        GameRecord {
            id: snap.id,
            created_ms,
            game: snap.game.clone(),
            time_control: snap.time_control,
            engine_seats: snap.engine_seats.clone(),
            live: true,
            sans: None,
        }
    }

    /// The record of a stored game, its journal replayed through the rules, with its moves'
    /// SAN as decoding the record wrote them when it could.
    pub fn from_stored(stored: &StoredGame) -> Result<GameRecord, GameError> {
        let journal = read_stored_with(stored, Reading::Export)?;
        // No event kept: the export needs the game, not the events clients catch up with.
        let replayed = replay_stored(&journal, 0, std::time::Instant::now())?;
        let options = journal.options;
        Ok(GameRecord {
            id: stored.id,
            created_ms: stored.created_ms,
            game: replayed.game,
            time_control: options.time_control,
            engine_seats: options
                .opponents()
                .into_iter()
                .map(|o| (o.plays, o.engine))
                .collect(),
            live: stored.live,
            sans: journal.sans,
        })
    }

    /// The engine playing `color`, by its configured name, if an engine plays it.
    pub fn engine(&self, color: Color) -> Option<&str> {
        self.engine_seats
            .iter()
            .find(|(side, _)| *side == color)
            .map(|(_, name)| name.as_str())
    }

    /// The name of the side `color`: the engine's configured name for an engine seat, else
    /// [`UNKNOWN_PLAYER`] (seats carry no names).
    pub fn player(&self, color: Color) -> &str {
        self.engine(color).unwrap_or(UNKNOWN_PLAYER)
    }

    /// How the game ended.
    pub fn termination(&self) -> Termination {
        let status = self.game.status();
        match status.reason {
            _ if !status.is_over() && self.live => Termination::Unterminated,
            _ if !status.is_over() => Termination::Abandoned,
            Some(Reason::Timeout) => Termination::TimeForfeit,
            Some(Reason::Manual) => Termination::Adjudication,
            _ => Termination::Normal,
        }
    }

    /// The time control as PGN writes it: `base+increment` in seconds (fractions kept, as
    /// `0.5+0`), `-` for an untimed game.
    pub fn time_control_pgn(&self) -> String {
        self.time_control
            .map_or_else(|| "-".to_string(), |tc| tc.pgn())
    }

    /// The PGN tags: the Seven Tag Roster's values (Event, Site, Date of creation in UTC,
    /// Round, White, Black; Result is the game's, written by the core), then UTCTime,
    /// TimeControl and Termination. The core's writer puts the roster first, then Variant
    /// and SetUp/FEN for a Chess960 or non-standard start, then these.
    pub fn pgn_tags(&self) -> Vec<(String, String)> {
        let created = time::OffsetDateTime::from_unix_timestamp_nanos(
            i128::from(self.created_ms) * 1_000_000,
        )
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
        [
            ("Event", "chessd game".to_string()),
            ("Site", format!("chessd {}", self.id)),
            (
                "Date",
                format!(
                    "{:04}.{:02}.{:02}",
                    created.year(),
                    u8::from(created.month()),
                    created.day()
                ),
            ),
            ("Round", "-".to_string()),
            ("White", self.player(Color::White).to_string()),
            ("Black", self.player(Color::Black).to_string()),
            (
                "UTCTime",
                format!(
                    "{:02}:{:02}:{:02}",
                    created.hour(),
                    created.minute(),
                    created.second()
                ),
            ),
            ("TimeControl", self.time_control_pgn()),
            ("Termination", self.termination().pgn().to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    /// The game in PGN export format, with [`GameRecord::pgn_tags`].
    pub fn to_pgn(&self) -> String {
        match &self.game {
            // The SAN are written only when they are as many as the game's moves; without
            // them, the moves are written from the game.
            crate::game::Board::Chess(game) => write_noted_game(
                game,
                self.sans.as_deref().unwrap_or_default(),
                &self.pgn_tags(),
            ),
            crate::game::Board::Chess2(game) => {
                chessd_core::pgn::write_chess2_game(game, &self.pgn_tags())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use chessd_core::{game::Game, Position};

    use super::*;

    fn record(game: Game) -> GameRecord {
        GameRecord {
            id: Uuid::nil(),
            // 2024-02-29 23:59:58 UTC.
            created_ms: 1_709_251_198_000,
            game: game.into(),
            time_control: None,
            engine_seats: Vec::new(),
            live: true,
            sans: None,
        }
    }

    fn tag<'a>(tags: &'a [(String, String)], name: &str) -> &'a str {
        tags.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("no tag {name}"))
    }

    #[test]
    fn a_game_two_engines_play_names_both() {
        let mut r = record(Game::new(Position::startpos()));
        r.engine_seats = vec![
            (Color::White, "stockfish".into()),
            (Color::Black, "toga".into()),
        ];
        let tags = r.pgn_tags();
        assert_eq!(tag(&tags, "White"), "stockfish");
        assert_eq!(tag(&tags, "Black"), "toga");
        assert_eq!(r.engine(Color::Black), Some("toga"));
    }

    #[test]
    fn tags_say_date_players_clock_and_end() {
        let mut game = Game::new(Position::startpos());
        game.play_uci("e2e4").unwrap();
        game.flag(Color::Black).unwrap();
        let mut r = record(game);
        r.time_control = Some(TimeControl {
            initial_ms: 180_000,
            increment_ms: 2_000,
        });
        r.engine_seats = vec![(Color::Black, "builtin".into())];
        let tags = r.pgn_tags();
        assert_eq!(tag(&tags, "Date"), "2024.02.29");
        assert_eq!(tag(&tags, "UTCTime"), "23:59:58");
        assert_eq!(tag(&tags, "White"), "?");
        assert_eq!(tag(&tags, "Black"), "builtin");
        assert_eq!(tag(&tags, "TimeControl"), "180+2");
        assert_eq!(tag(&tags, "Termination"), "time forfeit");
        let pgn = r.to_pgn();
        let roster = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];
        let names: Vec<&str> = pgn
            .lines()
            .take_while(|l| l.starts_with('['))
            .map(|l| l[1..].split(' ').next().unwrap())
            .collect();
        assert_eq!(names[..7], roster, "{pgn}");
        assert!(pgn.contains("[Result \"1-0\"]"), "{pgn}");
    }

    #[test]
    fn termination_follows_the_end() {
        type Play = fn(&mut Game);
        let cases: [(Play, bool, Termination); 6] = [
            (|_| {}, true, Termination::Unterminated),
            (|_| {}, false, Termination::Abandoned),
            (
                |g| g.resign(Color::White).unwrap(),
                false,
                Termination::Normal,
            ),
            (
                |g| g.set_draw(Some("arbiter".into())).unwrap(),
                true,
                Termination::Adjudication,
            ),
            (
                |g| g.flag(Color::White).unwrap(),
                true,
                Termination::TimeForfeit,
            ),
            (
                |g| {
                    for m in ["f2f3", "e7e5", "g2g4", "d8h4"] {
                        g.play_uci(m).unwrap();
                    }
                },
                true,
                Termination::Normal,
            ),
        ];
        for (i, (play, live, expected)) in cases.into_iter().enumerate() {
            let mut game = Game::new(Position::startpos());
            play(&mut game);
            let mut r = record(game);
            r.live = live;
            assert_eq!(r.termination(), expected, "case {i}");
        }
    }

    #[test]
    fn time_controls_in_seconds() {
        let mut r = record(Game::new(Position::startpos()));
        assert_eq!(r.time_control_pgn(), "-");
        r.time_control = Some(TimeControl {
            initial_ms: 500,
            increment_ms: 0,
        });
        assert_eq!(r.time_control_pgn(), "0.5+0");
        r.time_control = Some(TimeControl {
            initial_ms: 300_000,
            increment_ms: 1_500,
        });
        assert_eq!(r.time_control_pgn(), "300+1.5");
    }
}
