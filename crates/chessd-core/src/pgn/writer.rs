//! PGN export: the seven-tag roster, the setup tags, the movetext in SAN with move numbers,
//! comments, NAGs and variations, wrapped at 80 columns.

use std::fmt::Write as _;

use super::{
    setup::{find_tag, variant_is_chess960},
    PgnGame, PgnMove,
};
use crate::{
    game::{Game, GameResult},
    Color, Position, START_FEN,
};

/// Movetext lines are at most this many characters (a single longer token, such as a very long
/// word in a comment, stands alone on its line).
pub const LINE_WIDTH: usize = 80;

/// The seven-tag roster with the values written when a tag is missing (`Result` comes from
/// the game).
const ROSTER: [(&str, &str); 6] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
];

/// Writes a game in PGN export format:
///
/// - the seven-tag roster (Event, Site, Date, Round, White, Black, Result; `?` and
///   `????.??.??` where missing), then `[Variant "Chess960"]` for Chess960 and
///   `[SetUp "1"]`/`[FEN]` when the start is not the standard position, then the other tags
///   in their order;
/// - a blank line, then the movetext: `1. e4 e5`, `12... Nf6` for a black move that starts a
///   line or follows a comment or variation, suffix annotations and `$n` NAGs, `{ comments }`,
///   `( variations )`, and the result (the result token read, else the `Result` tag, else the
///   game's status); lines wrapped at [`LINE_WIDTH`] columns.
pub fn write_game(game: &PgnGame) -> String {
    let result = result_text(game);
    let mut out = String::new();
    write_tags(&mut out, &game.tags, &game.start, result);
    out.push('\n');
    let mut wrap = Wrap::default();
    write_line(
        &mut wrap,
        &game.prelude,
        &game.moves,
        first_ply(&game.start),
    );
    wrap.token(result);
    out.push_str(&wrap.out);
    out.push('\n');
    out
}

/// The result to write: the token read, else a valid `Result` tag, else the game's status.
fn result_text(game: &PgnGame) -> &'static str {
    if let Some(result) = game.result {
        return result.pgn();
    }
    match game.tag("Result").map(str::trim) {
        Some("1-0") => GameResult::WhiteWins.pgn(),
        Some("0-1") => GameResult::BlackWins.pgn(),
        Some("1/2-1/2") => GameResult::Draw.pgn(),
        Some("*") => GameResult::Ongoing.pgn(),
        _ => game.game.status().result.pgn(),
    }
}

/// What [`write_game`] writes for a game played on the server, straight from its moves:
/// `PgnGame::from_game(game, tags).to_pgn()` without copying the game or making a string a
/// move (the export writes many games).
///
/// ```
/// use chessd_core::{game::Game, pgn::{write_played_game, PgnGame}};
///
/// let mut game = Game::default();
/// for uci in ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"] {
///     game.play_uci(uci).unwrap();
/// }
/// let tags = vec![("White".to_string(), "Anna".to_string())];
/// let pgn = write_played_game(&game, &tags);
/// assert!(pgn.ends_with("1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n"));
/// assert_eq!(pgn, PgnGame::from_game(&game, tags).to_pgn());
/// ```
pub fn write_played_game(game: &Game, tags: &[(String, String)]) -> String {
    let mut pos = *game.start_position();
    // A game's moves are legal.
    write_with_san(game, tags, |mv, token| pos.append_san_and_play(mv, token))
}

/// [`write_played_game`] for a game whose moves' SAN is already written: `sans[i]` is the
/// SAN of the game's move `i`, as [`MoveReader::next_noted`](crate::codec::MoveReader::next_noted)
/// writes it while decoding a stored game, so the export need not replay the moves again.
/// SANs of another count than the game's moves are not used: the moves are written from the
/// game, as [`write_played_game`] writes them.
///
/// ```
/// use chessd_core::{game::Game, pgn::{write_noted_game, write_played_game}};
///
/// let mut game = Game::default();
/// for uci in ["e2e4", "e7e5", "g1f3"] {
///     game.play_uci(uci).unwrap();
/// }
/// let tags = [];
/// assert_eq!(
///     write_noted_game(&game, &["e4", "e5", "Nf3"], &tags),
///     write_played_game(&game, &tags)
/// );
/// ```
pub fn write_noted_game<S: AsRef<str>>(
    game: &Game,
    sans: &[S],
    tags: &[(String, String)],
) -> String {
    if sans.len() != game.history().len() {
        return write_played_game(game, tags);
    }
    let mut sans = sans.iter();
    write_with_san(game, tags, |_, token| {
        token.push_str(sans.next().map_or("", AsRef::as_ref));
    })
}

/// Writes `game` with `tags`, each move's SAN written by `san` (called once a move, in order).
fn write_with_san(
    game: &Game,
    tags: &[(String, String)],
    mut san: impl FnMut(crate::Move, &mut String),
) -> String {
    let start = game.start_position();
    let result = game.status().result.pgn();
    let mut out = String::new();
    write_tags(&mut out, tags, start, result);
    out.push('\n');
    let mut wrap = Wrap::default();
    let first = first_ply(start);
    // One buffer for every move's token: no allocation a move.
    let mut token = String::new();
    for (i, &mv) in game.history().iter().enumerate() {
        let ply = first + i;
        token.clear();
        if ply.is_multiple_of(2) {
            let _ = write!(token, "{}. ", ply / 2 + 1);
        } else if i == 0 {
            let _ = write!(token, "{}... ", ply / 2 + 1);
        }
        san(mv, &mut token);
        wrap.token(&token);
    }
    wrap.token(result);
    out.push_str(&wrap.out);
    out.push('\n');
    out
}

/// The half-move of the game at `start` (0 for White's first move).
fn first_ply(start: &Position) -> usize {
    (start.fullmoves() as usize).saturating_sub(1) * 2 + usize::from(start.turn() == Color::Black)
}

fn write_tags(out: &mut String, tags: &[(String, String)], start: &Position, result: &str) {
    let tag = |name: &str| find_tag(tags, name);
    for (name, default) in ROSTER {
        write_tag(out, name, tag(name).unwrap_or(default));
    }
    write_tag(out, "Result", result);
    let chess960 = start.is_chess960();
    match tag("Variant") {
        Some(v) if variant_is_chess960(v) == Some(chess960) => write_tag(out, "Variant", v),
        _ if chess960 => write_tag(out, "Variant", "Chess960"),
        _ => {}
    }
    // The standard start is told without writing its FEN (the export writes many games).
    if chess960 || *start != Position::startpos() {
        let fen = start.fen();
        if chess960 || fen != START_FEN {
            write_tag(out, "SetUp", "1");
            write_tag(out, "FEN", &fen);
        }
    }
    let special = |name: &str| {
        ROSTER.iter().any(|(r, _)| r.eq_ignore_ascii_case(name))
            || ["Result", "Variant", "SetUp", "FEN"]
                .iter()
                .any(|r| r.eq_ignore_ascii_case(name))
    };
    for (name, value) in tags {
        if !special(name) {
            write_tag(out, name, value);
        }
    }
}

/// Writes `[Name "value"]` with `\` and `"` escaped.
fn write_tag(out: &mut String, name: &str, value: &str) {
    out.push('[');
    out.extend(
        name.chars()
            .filter(|c| !c.is_whitespace() && !matches!(c, '"' | '[' | ']')),
    );
    out.push_str(" \"");
    for c in value.chars() {
        match c {
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            _ => out.push(c),
        }
    }
    out.push_str("\"]\n");
}

/// Joins tokens into lines of at most [`LINE_WIDTH`] characters.
#[derive(Default)]
struct Wrap {
    out: String,
    /// Characters on the current line.
    col: usize,
    /// A `(` to keep on the same line as the token after it.
    open: bool,
}

impl Wrap {
    fn token(&mut self, token: &str) {
        if std::mem::take(&mut self.open) {
            return self.token(&format!("( {token}"));
        }
        let len = token.chars().count();
        if self.col > 0 {
            if self.col + 1 + len > LINE_WIDTH {
                self.out.push('\n');
                self.col = 0;
            } else {
                self.out.push(' ');
                self.col += 1;
            }
        }
        self.out.push_str(token);
        self.col += len;
    }

    /// A `;` comment, which ends its line.
    fn rest_of_line(&mut self, token: &str) {
        self.token(token);
        self.out.push('\n');
        self.col = 0;
    }
}

/// Writes a comment as `{ words }`, split into words for wrapping; as a `;` comment if it
/// holds a `}`.
fn write_comment(wrap: &mut Wrap, text: &str) {
    let words: Vec<&str> = text.split_whitespace().collect();
    if text.contains('}') {
        wrap.rest_of_line(&format!("; {}", words.join(" ")));
        return;
    }
    match words.as_slice() {
        [] => wrap.token("{ }"),
        [word] => wrap.token(&format!("{{ {word} }}")),
        [first, middle @ .., last] => {
            wrap.token(&format!("{{ {first}"));
            for word in middle {
                wrap.token(word);
            }
            wrap.token(&format!("{last} }}"));
        }
    }
}

/// Writes a line of moves whose first move is half-move `first` of the game (0 for White's
/// first move).
fn write_line(wrap: &mut Wrap, prelude: &[String], moves: &[PgnMove], first: usize) {
    for comment in prelude {
        write_comment(wrap, comment);
    }
    let mut numbered = false;
    // One buffer for every move's token: no allocation a move.
    let mut token = String::new();
    for (i, mv) in moves.iter().enumerate() {
        let ply = first + i;
        token.clear();
        if ply.is_multiple_of(2) {
            let _ = write!(token, "{}. ", ply / 2 + 1);
        } else if !numbered {
            let _ = write!(token, "{}... ", ply / 2 + 1);
        }
        numbered = true;
        token.push_str(&mv.san);
        let mut nags = mv.nags.as_slice();
        if let Some((&glyph, rest)) = nags.split_first() {
            if let Some(suffix) = suffix(glyph) {
                token.push_str(suffix);
                nags = rest;
            }
        }
        wrap.token(&token);
        for nag in nags {
            wrap.token(&format!("${nag}"));
        }
        for comment in &mv.comments {
            write_comment(wrap, comment);
            numbered = false;
        }
        for variation in &mv.variations {
            wrap.open = true;
            write_line(wrap, &variation.prelude, &variation.moves, ply);
            if std::mem::take(&mut wrap.open) {
                wrap.token("()");
            } else {
                wrap.token(")");
            }
            numbered = false;
        }
    }
}

/// The suffix glyph written for NAGs 1 to 6.
fn suffix(nag: u8) -> Option<&'static str> {
    Some(match nag {
        1 => "!",
        2 => "?",
        3 => "!!",
        4 => "??",
        5 => "!?",
        6 => "?!",
        _ => return None,
    })
}

/// Writes a Chess 2 game in PGN export format: the seven-tag roster, `[Variant "Chess 2"]`,
/// `[SetUp "1"]` and the start as `[FEN]` (an EPD with the armies and stones), then the other
/// `tags`; the movetext holds the Go engine's move strings with their duel fields (Chess 2
/// has no SAN), numbered as in chess, a Two Kings king turn following its side's move.
pub fn write_chess2_game(game: &crate::chess2::Chess2Game, tags: &[(String, String)]) -> String {
    let tag = |name: &str| {
        tags.iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    };
    let result = game.status().result.pgn();
    let mut out = String::new();
    for (name, default) in ROSTER {
        write_tag(&mut out, name, tag(name).unwrap_or(default));
    }
    write_tag(&mut out, "Result", result);
    write_tag(&mut out, "Variant", "Chess 2");
    write_tag(&mut out, "SetUp", "1");
    write_tag(&mut out, "FEN", &game.start_position().to_epd());
    for (name, value) in tags {
        let special = ROSTER.iter().any(|(r, _)| r.eq_ignore_ascii_case(name))
            || ["Result", "Variant", "SetUp", "FEN"]
                .iter()
                .any(|r| r.eq_ignore_ascii_case(name));
        if !special {
            write_tag(&mut out, name, value);
        }
    }
    out.push('\n');
    let mut wrap = Wrap::default();
    let mut number = game.start_position().fullmove_number();
    let mut previous: Option<Color> = None;
    for played in game.history() {
        let mut token = String::new();
        match (played.by, previous) {
            (Color::White, Some(Color::White)) | (Color::Black, Some(_)) => {}
            (Color::White, _) => {
                if previous.is_some() {
                    number += 1;
                }
                let _ = write!(token, "{number}. ");
            }
            (Color::Black, None) => {
                let _ = write!(token, "{number}... ");
            }
        }
        token.push_str(&played.mv.to_string());
        wrap.token(&token);
        previous = Some(played.by);
    }
    wrap.token(result);
    out.push_str(&wrap.out);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_and_comments() {
        let mut wrap = Wrap::default();
        for _ in 0..30 {
            wrap.token("abcd");
        }
        assert!(wrap.out.lines().all(|l| l.chars().count() <= LINE_WIDTH));
        assert_eq!(wrap.out.lines().next().map(str::len), Some(79));

        let mut wrap = Wrap::default();
        write_comment(&mut wrap, "  two\n words ");
        write_comment(&mut wrap, "");
        write_comment(&mut wrap, "has } brace");
        wrap.token("e4");
        assert_eq!(wrap.out, "{ two words } { } ; has } brace\ne4");
    }

    #[test]
    fn a_variation_opens_on_the_line_of_its_first_token() {
        let mut wrap = Wrap::default();
        wrap.token(&"x".repeat(75));
        wrap.open = true;
        wrap.token("1. e4");
        wrap.token(")");
        assert_eq!(wrap.out, format!("{}\n( 1. e4 )", "x".repeat(75)));
    }

    #[test]
    fn tag_escapes() {
        let mut out = String::new();
        write_tag(&mut out, "Event", r#"a "b" \ c"#);
        assert_eq!(out, "[Event \"a \\\"b\\\" \\\\ c\"]\n");
    }
}
