//! Streaming PGN input: a push parser fed with chunks ([`PgnParser`]) and a pull iterator
//! over text or any source of chunks ([`PgnReader`]). Neither does I/O.

use std::collections::VecDeque;

use super::{
    builder::{GameBuilder, Step},
    lexer::{Lexed, Lexer, Token},
    PgnError, PgnGame,
};
use crate::game::DrawPolicy;

/// A push parser: feed it pieces of PGN as they arrive (any split, even inside a UTF-8
/// character), take finished games out with [`PgnParser::next_game`], and call
/// [`PgnParser::finish`] at the end of the input.
///
/// Only the current line and the current game are held, never the whole input. Lines that are
/// not valid UTF-8 are read as Latin-1 (ISO 8859-1), as older PGN files are.
///
/// ```
/// use chessd_core::pgn::PgnParser;
///
/// let mut parser = PgnParser::new();
/// parser.feed("[Event \"a\"]\n\n1. e4 e5 2. N");
/// assert!(parser.next_game().is_none()); // not finished yet
/// parser.feed("f3 *\n\n1. d4 ");
/// let first = parser.next_game().unwrap().unwrap();
/// assert_eq!(first.moves.len(), 3);
/// parser.finish();
/// let second = parser.next_game().unwrap().unwrap();
/// assert_eq!(second.moves[0].san, "d4");
/// assert!(parser.next_game().is_none());
/// ```
#[derive(Debug)]
pub struct PgnParser {
    lexer: Lexer,
    builder: GameBuilder,
    policy: DrawPolicy,
    /// Bytes of a line not yet complete.
    pending: Vec<u8>,
    ready: VecDeque<Result<PgnGame, PgnError>>,
    /// How many games were reported.
    reported: usize,
    /// Whether the next line is the first of the input (for a byte-order mark).
    at_start: bool,
}

impl Default for PgnParser {
    fn default() -> PgnParser {
        PgnParser::new()
    }
}

impl PgnParser {
    /// A parser whose games use [`DrawPolicy::Automatic`] (draws by threefold repetition and
    /// the fifty-move rule end the game, so a main line that goes on after one is an error).
    pub fn new() -> PgnParser {
        PgnParser::with_policy(DrawPolicy::default())
    }

    /// A parser whose games use the given draw policy.
    pub fn with_policy(policy: DrawPolicy) -> PgnParser {
        PgnParser {
            lexer: Lexer::new(),
            builder: GameBuilder::new(1, policy),
            policy,
            pending: Vec::new(),
            ready: VecDeque::new(),
            reported: 0,
            at_start: true,
        }
    }

    /// Feeds a piece of text.
    pub fn feed(&mut self, chunk: &str) {
        self.feed_bytes(chunk.as_bytes());
    }

    /// Feeds a piece of raw input (UTF-8, or Latin-1 line by line where not valid UTF-8).
    pub fn feed_bytes(&mut self, mut chunk: &[u8]) {
        while let Some(nl) = chunk.iter().position(|&b| b == b'\n') {
            if self.pending.is_empty() {
                self.line(&chunk[..nl]);
            } else {
                let mut line = std::mem::take(&mut self.pending);
                line.extend_from_slice(&chunk[..nl]);
                self.line(&line);
            }
            chunk = &chunk[nl + 1..];
        }
        self.pending.extend_from_slice(chunk);
    }

    /// Ends the input: reads the last line and finishes the last game. The parser can then
    /// read a new input (game numbers go on counting).
    pub fn finish(&mut self) {
        if !self.pending.is_empty() {
            let line = std::mem::take(&mut self.pending);
            self.line(&line);
        }
        let Self {
            lexer,
            builder,
            policy,
            ready,
            reported,
            ..
        } = self;
        lexer.finish(&mut |lexed| take_token(builder, *policy, ready, reported, lexed));
        end_game(builder, *policy, ready, reported);
        self.at_start = true;
    }

    /// The next finished game (or the error that stopped it), oldest first.
    pub fn next_game(&mut self) -> Option<Result<PgnGame, PgnError>> {
        self.ready.pop_front()
    }

    /// How many finished games wait to be taken.
    pub fn ready(&self) -> usize {
        self.ready.len()
    }

    /// Reads one complete line (without its `\n`).
    fn line(&mut self, mut bytes: &[u8]) {
        if std::mem::take(&mut self.at_start) {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        let latin1: String;
        let text = match std::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(_) => {
                latin1 = bytes.iter().map(|&b| char::from(b)).collect();
                &latin1
            }
        };
        let Self {
            lexer,
            builder,
            policy,
            ready,
            reported,
            ..
        } = self;
        lexer.line(text, &mut |lexed| {
            take_token(builder, *policy, ready, reported, lexed)
        });
    }
}

/// Gives a token to the current game, starting the next game when this one ends.
fn take_token(
    builder: &mut GameBuilder,
    policy: DrawPolicy,
    ready: &mut VecDeque<Result<PgnGame, PgnError>>,
    reported: &mut usize,
    lexed: Lexed<'_>,
) {
    let (line, text) = (lexed.line, lexed.text);
    match builder.feed(lexed) {
        Step::Continue => {}
        Step::Done => end_game(builder, policy, ready, reported),
        Step::DoneRedo => {
            end_game(builder, policy, ready, reported);
            // Only a `[` ends a game before itself; it starts the next game's tag section
            // (a fresh game never ends on its first token).
            let _ = builder.feed(Lexed {
                token: Ok(Token::TagOpen),
                line,
                text,
            });
        }
    }
}

/// Reports the current game (unless there is nothing to report) and starts the next one.
fn end_game(
    builder: &mut GameBuilder,
    policy: DrawPolicy,
    ready: &mut VecDeque<Result<PgnGame, PgnError>>,
    reported: &mut usize,
) {
    if builder.is_empty() {
        return;
    }
    let done = std::mem::replace(builder, GameBuilder::new(*reported + 1, policy));
    if let Some(game) = done.finish() {
        ready.push_back(game);
        *reported += 1;
        builder.set_number(*reported + 1);
    }
}

/// A pull reader: an iterator of games over a text or over any source of chunks (lines read
/// from a file, network buffers). It reads only as much input as the next game needs.
///
/// ```
/// use chessd_core::pgn::PgnReader;
///
/// let pgn = "[Event \"one\"]\n\n1. e4 e5 1-0\n\n[Event \"two\"]\n\n1. e4 e5?? 2. Qxe9 *\n\n1. d4 *\n";
/// let games: Vec<_> = PgnReader::new(pgn).collect();
/// assert_eq!(games.len(), 3);
/// assert!(games[0].is_ok());
/// let err = games[1].as_ref().unwrap_err();
/// assert_eq!((err.game, err.ply), (2, Some(3)));
/// assert!(err.to_string().starts_with("game 2, ply 3 (\"Qxe9\"): "));
/// assert_eq!(games[2].as_ref().unwrap().moves[0].san, "d4");
/// ```
#[derive(Debug)]
pub struct PgnReader<I> {
    chunks: I,
    parser: PgnParser,
    done: bool,
}

impl<'a> PgnReader<std::str::SplitInclusive<'a, char>> {
    /// A reader over a text, taken line by line.
    pub fn new(text: &'a str) -> Self {
        PgnReader::from_chunks(text.split_inclusive('\n'))
    }
}

impl<I> PgnReader<I>
where
    I: Iterator,
    I::Item: AsRef<[u8]>,
{
    /// A reader over pieces of input (`&str`, `String`, `&[u8]` or `Vec<u8>`), split
    /// anywhere.
    pub fn from_chunks(chunks: I) -> Self {
        PgnReader {
            chunks,
            parser: PgnParser::new(),
            done: false,
        }
    }

    /// Uses `policy` for the games read (call before reading).
    pub fn with_policy(mut self, policy: DrawPolicy) -> Self {
        self.parser.policy = policy;
        self.parser.builder.set_policy(policy);
        self
    }
}

impl<I> Iterator for PgnReader<I>
where
    I: Iterator,
    I::Item: AsRef<[u8]>,
{
    type Item = Result<PgnGame, PgnError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(game) = self.parser.next_game() {
                return Some(game);
            }
            if self.done {
                return None;
            }
            match self.chunks.next() {
                Some(chunk) => self.parser.feed_bytes(chunk.as_ref()),
                None => {
                    self.parser.finish();
                    self.done = true;
                }
            }
        }
    }
}
