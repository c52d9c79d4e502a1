//! Turns the tokens of one game into a [`PgnGame`]: tag pairs, then movetext played on a
//! [`Game`] (main line) and on positions (variations).
//!
//! After the first error the builder stops checking moves but keeps following the structure
//! (comments, variations) so that it knows where the game ends: at its result token, or at
//! the `[` of the next game's tag section.

use super::{
    lexer::{shorten, LexError, Lexed, Token},
    setup::start_position,
    PgnError, PgnErrorKind, PgnGame, PgnMove, Variation, MAX_VARIATION_DEPTH,
};
use crate::{
    game::{DrawPolicy, Game, GameResult},
    Position,
};

/// What the reader should do after a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// The game goes on.
    Continue,
    /// The game ended with this token (its result).
    Done,
    /// The game ended before this token, which starts the next game.
    DoneRedo,
}

/// Where a tag pair stands while it is read.
#[derive(Clone, Debug, PartialEq, Eq)]
enum TagState {
    /// Not inside a tag pair.
    Idle,
    /// After `[`.
    Open,
    /// After `[Name`.
    Named(String),
    /// After `[Name "value"`.
    Valued(String, String),
}

/// One line of play being read: the main line or a variation.
#[derive(Clone, Debug)]
struct Frame {
    prelude: Vec<String>,
    moves: Vec<PgnMove>,
    /// The position before the last move of `moves` (where a variation branches off).
    before_last: Position,
    /// The position after the last move.
    pos: Position,
    /// The ply number of the line's first move.
    first_ply: usize,
}

impl Frame {
    fn new(pos: Position, first_ply: usize) -> Frame {
        Frame {
            prelude: Vec::new(),
            moves: Vec::new(),
            before_last: pos,
            pos,
            first_ply,
        }
    }

    /// The ply number of the next move.
    fn next_ply(&self) -> usize {
        self.first_ply + self.moves.len()
    }
}

/// The movetext part: the game and the stack of open lines (`lines[0]` is the main line).
#[derive(Clone, Debug)]
struct Movetext {
    start: Position,
    game: Game,
    lines: Vec<Frame>,
}

/// Builds one game from its tokens.
#[derive(Debug)]
pub(crate) struct GameBuilder {
    number: usize,
    policy: DrawPolicy,
    tags: Vec<(String, String)>,
    tag_state: TagState,
    /// Comments before the movetext starts (kept as the main line's prelude).
    prelude: Vec<String>,
    /// Set once the first movetext token arrives (and the start position was valid).
    movetext: Option<Movetext>,
    in_movetext: bool,
    result: Option<GameResult>,
    error: Option<PgnError>,
    /// Variation depth, followed even after an error.
    depth: usize,
    /// Whether any token was seen.
    touched: bool,
    /// The line of the last token.
    line: usize,
}

/// What a movetext symbol is.
enum Symbol<'a> {
    Result(GameResult),
    /// A move number, with the move written right after it if any (`1.e4`).
    MoveNumber(&'a str),
    /// A standalone annotation (`!?`, `+-`) as a NAG.
    Nag(u8),
    /// Text to ignore (`e.p.`).
    Ignore,
    Move(&'a str),
}

fn classify(s: &str) -> Symbol<'_> {
    match s {
        "1-0" => return Symbol::Result(GameResult::WhiteWins),
        "0-1" => return Symbol::Result(GameResult::BlackWins),
        "1/2-1/2" | "½-½" | "1/2" => return Symbol::Result(GameResult::Draw),
        "e.p." | "ep" => return Symbol::Ignore,
        _ => {}
    }
    if let Some(nag) = annotation_nag(s) {
        return Symbol::Nag(nag);
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) && !s.starts_with("0-0") {
        let digits_end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let rest = &s[digits_end..];
        let after_dots = rest.trim_start_matches('.');
        if after_dots.len() < rest.len() || rest.is_empty() {
            return Symbol::MoveNumber(after_dots);
        }
    }
    Symbol::Move(s)
}

/// The NAG of a move-suffix glyph (`!` … `?!`) or a standalone evaluation symbol.
pub(crate) fn annotation_nag(s: &str) -> Option<u8> {
    Some(match s {
        "!" => 1,
        "?" => 2,
        "!!" => 3,
        "??" => 4,
        "!?" => 5,
        "?!" => 6,
        "□" => 7,
        "=" => 10,
        "∞" => 13,
        "+=" | "+/=" | "⩲" => 14,
        "=+" | "=/+" | "⩱" => 15,
        "+/-" | "±" => 16,
        "-/+" | "∓" => 17,
        "+-" => 18,
        "-+" => 19,
        _ => return None,
    })
}

/// Splits a move token into SAN (with any `+`/`#`) and its suffix annotation as a NAG.
fn split_annotation(token: &str) -> Result<(String, Option<u8>), PgnErrorKind> {
    let head = token.trim_end_matches(['!', '?', '+', '#']);
    let tail = &token[head.len()..];
    let glyph: String = tail.chars().filter(|c| matches!(c, '!' | '?')).collect();
    let checks: String = tail.chars().filter(|c| matches!(c, '+' | '#')).collect();
    let nag = if glyph.is_empty() {
        None
    } else {
        Some(annotation_nag(&glyph).ok_or(PgnErrorKind::BadAnnotation)?)
    };
    Ok((format!("{head}{checks}"), nag))
}

impl GameBuilder {
    /// A builder for game number `number` (from 1).
    pub(crate) fn new(number: usize, policy: DrawPolicy) -> GameBuilder {
        GameBuilder {
            number,
            policy,
            tags: Vec::new(),
            tag_state: TagState::Idle,
            prelude: Vec::new(),
            movetext: None,
            in_movetext: false,
            result: None,
            error: None,
            depth: 0,
            touched: false,
            line: 0,
        }
    }

    /// Whether no token was seen.
    pub(crate) fn is_empty(&self) -> bool {
        !self.touched
    }

    /// Renumbers a game that has not started.
    pub(crate) fn set_number(&mut self, number: usize) {
        self.number = number;
    }

    /// Uses `policy` for the game (effective if the movetext has not started).
    pub(crate) fn set_policy(&mut self, policy: DrawPolicy) {
        self.policy = policy;
    }

    /// Whether there is anything to report: an error, a tag, a move or a result (text made
    /// only of comments is not a game).
    fn is_reportable(&self) -> bool {
        self.error.is_some()
            || self.tag_state != TagState::Idle
            || self.depth > 0
            || !self.tags.is_empty()
            || self.result.is_some()
            || self
                .movetext
                .as_ref()
                .is_some_and(|m| m.lines.iter().any(|l| !l.moves.is_empty()))
    }

    /// The ply of the next move in the current line (`None` before the movetext starts).
    fn next_ply(&self) -> Option<usize> {
        if !self.in_movetext {
            return None;
        }
        Some(
            self.movetext
                .as_ref()
                .and_then(|m| m.lines.last())
                .map_or(1, Frame::next_ply),
        )
    }

    /// Records an error (only the first counts).
    fn fail(&mut self, kind: PgnErrorKind, token: Option<&str>) {
        if self.error.is_none() {
            self.error = Some(PgnError {
                game: self.number,
                ply: self.next_ply(),
                token: token.map(|t| shorten(t).to_string()),
                line: self.line,
                kind,
            });
        }
    }

    /// Takes one token.
    pub(crate) fn feed(&mut self, lexed: Lexed<'_>) -> Step {
        self.line = lexed.line;
        let token = match lexed.token {
            Ok(token) => token,
            Err(e) => {
                self.touched = true;
                let kind = match e {
                    LexError::UnterminatedString => PgnErrorKind::UnterminatedString,
                    LexError::UnterminatedComment => PgnErrorKind::UnterminatedComment,
                    LexError::BadNag => PgnErrorKind::BadNag,
                    LexError::UnexpectedChar(c) => PgnErrorKind::UnexpectedChar(c),
                };
                self.fail(kind, Some(lexed.text));
                return Step::Continue;
            }
        };
        if !self.in_movetext {
            if let Some(step) = self.tag_token(&token, lexed.text) {
                return step;
            }
            self.start_movetext();
        }
        self.touched = true;
        self.movetext_token(token, lexed.text)
    }

    /// Handles a token before the movetext; `None` when the token starts the movetext.
    fn tag_token(&mut self, token: &Token<'_>, text: &str) -> Option<Step> {
        let state = std::mem::replace(&mut self.tag_state, TagState::Idle);
        match (state, token) {
            (TagState::Idle, Token::TagOpen) => self.tag_state = TagState::Open,
            (TagState::Open, Token::Symbol(name)) => {
                self.tag_state = TagState::Named(name.to_string());
            }
            (TagState::Named(name), Token::Str(value)) => {
                self.tag_state = TagState::Valued(name, value.clone());
            }
            (TagState::Valued(name, value), Token::TagClose) => self.tags.push((name, value)),
            (TagState::Idle, Token::Comment(c)) => self.prelude.push(c.clone()),
            (TagState::Idle, Token::Str(_) | Token::TagClose) => {
                self.fail(PgnErrorKind::UnexpectedToken, Some(text));
            }
            (TagState::Idle, _) => return None,
            (_, Token::TagOpen) => {
                // The previous pair was cut short; this starts a new one.
                self.fail(PgnErrorKind::BadTag, Some(text));
                self.tag_state = TagState::Open;
            }
            (_, _) => self.fail(PgnErrorKind::BadTag, Some(text)),
        }
        self.touched = true;
        Some(Step::Continue)
    }

    /// Sets up the start position and the game when the movetext begins.
    fn start_movetext(&mut self) {
        self.in_movetext = true;
        match start_position(&self.tags) {
            Ok(start) => {
                let mut main = Frame::new(start, 1);
                main.prelude = std::mem::take(&mut self.prelude);
                self.movetext = Some(Movetext {
                    start,
                    game: Game::with_policy(start, self.policy),
                    lines: vec![main],
                });
            }
            Err((kind, value)) => {
                self.in_movetext = false;
                self.fail(kind, Some(&value));
                self.in_movetext = true;
            }
        }
    }

    /// Handles a movetext token.
    fn movetext_token(&mut self, token: Token<'_>, text: &str) -> Step {
        match token {
            Token::TagOpen => {
                if self.depth > 0 {
                    self.fail(PgnErrorKind::UnterminatedVariation, None);
                }
                return Step::DoneRedo;
            }
            Token::Star => return self.result_token(GameResult::Ongoing, text),
            Token::Symbol(s) => match classify(s) {
                Symbol::Result(result) => return self.result_token(result, text),
                Symbol::MoveNumber("") | Symbol::Ignore => {}
                Symbol::MoveNumber(san) | Symbol::Move(san) => self.san_token(san),
                Symbol::Nag(nag) => self.nag(nag),
            },
            Token::Nag(nag) => self.nag(nag),
            Token::Comment(c) => {
                if let Some(line) = self.line_mut() {
                    match line.moves.last_mut() {
                        Some(mv) => mv.comments.push(c),
                        None => line.prelude.push(c),
                    }
                }
            }
            Token::Open => self.open(),
            Token::Close => self.close(),
            Token::Str(_) | Token::TagClose => {
                self.fail(PgnErrorKind::UnexpectedToken, Some(text));
            }
        }
        Step::Continue
    }

    /// The current line, while no error happened.
    fn line_mut(&mut self) -> Option<&mut Frame> {
        if self.error.is_some() {
            return None;
        }
        self.movetext.as_mut().and_then(|m| m.lines.last_mut())
    }

    fn result_token(&mut self, result: GameResult, text: &str) -> Step {
        if self.depth > 0 {
            self.fail(PgnErrorKind::ResultInVariation, Some(text));
            return Step::Continue;
        }
        self.result = Some(result);
        Step::Done
    }

    fn nag(&mut self, nag: u8) {
        if let Some(mv) = self.line_mut().and_then(|l| l.moves.last_mut()) {
            mv.nags.push(nag);
        }
    }

    fn open(&mut self) {
        if self.depth >= MAX_VARIATION_DEPTH {
            self.fail(PgnErrorKind::VariationTooDeep, Some("("));
        }
        self.depth += 1;
        let Some(line) = self.line_mut() else { return };
        if line.moves.is_empty() {
            self.fail(PgnErrorKind::VariationWithoutMove, Some("("));
            return;
        }
        let frame = Frame::new(line.before_last, line.next_ply() - 1);
        if let Some(m) = self.movetext.as_mut() {
            m.lines.push(frame);
        }
    }

    fn close(&mut self) {
        if self.depth == 0 {
            self.fail(PgnErrorKind::UnmatchedClose, Some(")"));
            return;
        }
        self.depth -= 1;
        if self.error.is_some() {
            return;
        }
        let Some(m) = self.movetext.as_mut() else {
            return;
        };
        if m.lines.len() < 2 {
            return;
        }
        let Some(frame) = m.lines.pop() else { return };
        if let Some(parent) = m.lines.last_mut().and_then(|l| l.moves.last_mut()) {
            parent.variations.push(Variation {
                prelude: frame.prelude,
                moves: frame.moves,
            });
        }
    }

    /// Plays a move on the current line.
    fn san_token(&mut self, token: &str) {
        if self.error.is_some() {
            return;
        }
        let Some(m) = self.movetext.as_mut() else {
            return;
        };
        let (san, nag) = match split_annotation(token) {
            Ok(split) => split,
            Err(kind) => return self.fail(kind, Some(token)),
        };
        let main = m.lines.len() == 1;
        let Some(line) = m.lines.last_mut() else {
            return;
        };
        let mv = match line.pos.parse_san(&san) {
            Ok(mv) => mv,
            Err(e) => return self.fail(PgnErrorKind::San(e), Some(token)),
        };
        let written = if main {
            match m.game.play(mv) {
                Ok(played) => played.san,
                Err(e) => return self.fail(PgnErrorKind::Game(e), Some(token)),
            }
        } else {
            line.pos.san(mv)
        };
        line.before_last = line.pos;
        line.pos = line.pos.after(mv);
        line.moves.push(PgnMove {
            mv,
            san: written,
            nags: nag.into_iter().collect(),
            comments: Vec::new(),
            variations: Vec::new(),
        });
    }

    /// Ends the game: the finished game or its first error, or `None` if there is nothing
    /// to report.
    pub(crate) fn finish(self) -> Option<Result<PgnGame, PgnError>> {
        if self.is_reportable() {
            Some(self.finish_game())
        } else {
            None
        }
    }

    fn finish_game(mut self) -> Result<PgnGame, PgnError> {
        if !self.in_movetext {
            if self.tag_state != TagState::Idle {
                self.fail(PgnErrorKind::BadTag, None);
            }
            self.start_movetext();
        }
        if self.depth > 0 {
            self.fail(PgnErrorKind::UnterminatedVariation, None);
        }
        if let Some(e) = self.error {
            return Err(e);
        }
        let Some(Movetext {
            start,
            game,
            mut lines,
        }) = self.movetext
        else {
            return Err(PgnError {
                game: self.number,
                ply: None,
                token: None,
                line: self.line,
                kind: PgnErrorKind::NoGame,
            });
        };
        let main = if lines.is_empty() {
            Frame::new(start, 1)
        } else {
            lines.swap_remove(0)
        };
        Ok(PgnGame {
            number: self.number,
            tags: self.tags,
            start,
            prelude: main.prelude,
            moves: main.moves,
            result: self.result,
            game,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols() {
        assert!(matches!(
            classify("1-0"),
            Symbol::Result(GameResult::WhiteWins)
        ));
        assert!(matches!(
            classify("1/2-1/2"),
            Symbol::Result(GameResult::Draw)
        ));
        assert!(matches!(classify("12."), Symbol::MoveNumber("")));
        assert!(matches!(classify("12"), Symbol::MoveNumber("")));
        assert!(matches!(classify("1...e5"), Symbol::MoveNumber("e5")));
        assert!(matches!(classify("3.0-0-0"), Symbol::MoveNumber("0-0-0")));
        assert!(matches!(classify("0-0"), Symbol::Move("0-0")));
        assert!(matches!(classify("!?"), Symbol::Nag(5)));
        assert!(matches!(classify("+-"), Symbol::Nag(18)));
        assert!(matches!(classify("Nf3"), Symbol::Move("Nf3")));
    }

    #[test]
    fn annotations() {
        assert_eq!(split_annotation("e4"), Ok(("e4".to_string(), None)));
        assert_eq!(split_annotation("e4!?"), Ok(("e4".to_string(), Some(5))));
        assert_eq!(
            split_annotation("Qxf7#!!"),
            Ok(("Qxf7#".to_string(), Some(3)))
        );
        assert_eq!(split_annotation("Nf3?+"), Ok(("Nf3+".to_string(), Some(2))));
        assert_eq!(split_annotation("e4!!!"), Err(PgnErrorKind::BadAnnotation));
    }
}
