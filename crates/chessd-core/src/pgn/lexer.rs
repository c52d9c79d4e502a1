//! PGN tokens, read one line at a time so that input can arrive in pieces.
//!
//! The lexer keeps only the state that crosses line ends: an open `{ ... }` comment. It knows
//! nothing about games; the builder (`builder.rs`) gives the tokens their meaning.

/// One PGN token. Symbols borrow from the line being read; text that may span lines
/// (comments) or needs unescaping (strings) is owned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Token<'a> {
    /// `[`, opening a tag pair.
    TagOpen,
    /// `]`, closing a tag pair.
    TagClose,
    /// A quoted string with `\"` and `\\` unescaped.
    Str(String),
    /// A run of symbol characters: a tag name, a move number, SAN, a result.
    Symbol(&'a str),
    /// A numeric annotation glyph, `$0` … `$255`.
    Nag(u8),
    /// A `{ ... }` or `; ...` comment, trimmed.
    Comment(String),
    /// `(`, opening a variation.
    Open,
    /// `)`, closing a variation.
    Close,
    /// `*`, the unknown-result marker.
    Star,
}

/// A lexical error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LexError {
    /// A string that does not end on its line.
    UnterminatedString,
    /// A `{` comment still open at the end of the input or before the next tag section.
    UnterminatedComment,
    /// `$` not followed by a number 0..=255.
    BadNag,
    /// A character that cannot start a token (such as a stray `}`).
    UnexpectedChar(char),
}

/// A token or a lexical error, with its line (1-based) and its text for error messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Lexed<'a> {
    /// The token, or what is wrong with the text.
    pub token: Result<Token<'a>, LexError>,
    /// The line the token starts on.
    pub line: usize,
    /// The token as written (shortened for long comments and strings).
    pub text: &'a str,
}

/// Characters that end a symbol.
fn is_delimiter(c: char) -> bool {
    c.is_whitespace() || matches!(c, '{' | '}' | '(' | ')' | '[' | ']' | ';' | '"' | '$' | '*')
}

/// Whether a line looks like a complete tag pair (`[Name "value"]`).
fn looks_like_tag_line(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('[') && t.ends_with(']') && t.contains('"') && t.len() > 4
}

/// The line-at-a-time PGN lexer.
#[derive(Debug, Default)]
pub(crate) struct Lexer {
    /// The text of a `{` comment still open at the end of the previous line.
    comment: Option<String>,
    /// The line that comment started on.
    comment_line: usize,
    /// The line number of the last line read.
    line: usize,
    /// Whether the previous line was blank.
    prev_blank: bool,
}

/// The comment texts a lexer keeps: at most this many bytes (the rest is dropped), so that an
/// unterminated `{` cannot make the lexer hold an unbounded amount of text.
const MAX_COMMENT: usize = 1 << 20;

impl Lexer {
    /// A lexer at the start of the input.
    pub(crate) fn new() -> Lexer {
        Lexer::default()
    }

    /// Lexes one line (without its line terminator) and hands each token to `emit`.
    pub(crate) fn line<'a>(&mut self, text: &'a str, emit: &mut impl FnMut(Lexed<'a>)) {
        self.line += 1;
        let text = text.strip_suffix('\r').unwrap_or(text);
        let blank = text.trim().is_empty();
        let mut rest = text;
        if let Some(mut comment) = self.comment.take() {
            if self.prev_blank && looks_like_tag_line(text) {
                // A tag section after a blank line: the comment was never closed.
                emit(Lexed {
                    token: Err(LexError::UnterminatedComment),
                    line: self.comment_line,
                    text: "{",
                });
            } else if let Some(end) = text.find('}') {
                push_capped(&mut comment, &text[..end]);
                emit(Lexed {
                    token: Ok(Token::Comment(comment.trim().to_string())),
                    line: self.comment_line,
                    text: "{",
                });
                rest = &text[end + 1..];
            } else {
                push_capped(&mut comment, text);
                push_capped(&mut comment, "\n");
                self.comment = Some(comment);
                self.prev_blank = blank;
                return;
            }
        } else if text.starts_with('%') {
            // An escape line: ignored entirely.
            self.prev_blank = blank;
            return;
        }
        self.lex_rest(rest, emit);
        self.prev_blank = blank;
    }

    /// Lexes the part of a line outside any comment.
    fn lex_rest<'a>(&mut self, mut rest: &'a str, emit: &mut impl FnMut(Lexed<'a>)) {
        let line = self.line;
        loop {
            rest = rest.trim_start();
            let mut chars = rest.chars();
            let Some(c) = chars.next() else { return };
            let after = chars.as_str();
            let single = |token| Lexed {
                token,
                line,
                text: &rest[..c.len_utf8()],
            };
            match c {
                '{' => match after.find('}') {
                    Some(end) => {
                        emit(Lexed {
                            token: Ok(Token::Comment(after[..end].trim().to_string())),
                            line,
                            text: "{",
                        });
                        rest = &after[end + 1..];
                    }
                    None => {
                        let mut comment = String::new();
                        push_capped(&mut comment, after);
                        comment.push('\n');
                        self.comment = Some(comment);
                        self.comment_line = line;
                        return;
                    }
                },
                ';' => {
                    emit(Lexed {
                        token: Ok(Token::Comment(after.trim().to_string())),
                        line,
                        text: ";",
                    });
                    return;
                }
                '[' | ']' | '(' | ')' | '*' => {
                    let token = match c {
                        '[' => Token::TagOpen,
                        ']' => Token::TagClose,
                        '(' => Token::Open,
                        ')' => Token::Close,
                        _ => Token::Star,
                    };
                    emit(single(Ok(token)));
                    rest = after;
                }
                '"' => {
                    let (token, len) = lex_string(after);
                    emit(Lexed {
                        token,
                        line,
                        text: shorten(&rest[..1 + len]),
                    });
                    rest = &after[len..];
                }
                '$' => {
                    let digits = after
                        .find(|c: char| !c.is_ascii_digit())
                        .unwrap_or(after.len());
                    let nag = if (1..=3).contains(&digits) {
                        after[..digits].parse::<u8>().ok()
                    } else {
                        None
                    };
                    emit(Lexed {
                        token: nag.map(Token::Nag).ok_or(LexError::BadNag),
                        line,
                        text: &rest[..1 + digits],
                    });
                    rest = &after[digits..];
                }
                '}' => {
                    emit(single(Err(LexError::UnexpectedChar('}'))));
                    rest = after;
                }
                _ => {
                    let end = rest.find(is_delimiter).unwrap_or(rest.len());
                    emit(Lexed {
                        token: Ok(Token::Symbol(&rest[..end])),
                        line,
                        text: &rest[..end],
                    });
                    rest = &rest[end..];
                }
            }
        }
    }

    /// Ends the input: reports a comment that was never closed.
    pub(crate) fn finish<'a>(&mut self, emit: &mut impl FnMut(Lexed<'a>)) {
        if self.comment.take().is_some() {
            emit(Lexed {
                token: Err(LexError::UnterminatedComment),
                line: self.comment_line,
                text: "{",
            });
        }
        *self = Lexer::new();
    }
}

/// Appends to a comment while it is shorter than [`MAX_COMMENT`].
fn push_capped(comment: &mut String, text: &str) {
    if comment.len() < MAX_COMMENT {
        comment.push_str(text);
    }
}

/// Reads a string after its opening quote: the token and the number of bytes used
/// (including the closing quote).
fn lex_string(text: &str) -> (Result<Token<'static>, LexError>, usize) {
    let mut value = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return (Ok(Token::Str(value)), i + 1),
            '\\' => match chars.next() {
                Some((_, e @ ('"' | '\\'))) => value.push(e),
                Some((_, other)) => {
                    value.push('\\');
                    value.push(other);
                }
                None => value.push('\\'),
            },
            _ => value.push(c),
        }
    }
    (Err(LexError::UnterminatedString), text.len())
}

/// At most 40 characters of `text`, for error messages.
pub(crate) fn shorten(text: &str) -> &str {
    match text.char_indices().nth(40) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex(lines: &[&str]) -> Vec<Result<Token<'static>, LexError>> {
        let mut lexer = Lexer::new();
        let mut out = Vec::new();
        let mut push = |l: Lexed<'_>| {
            out.push(l.token.map(|t| match t {
                Token::Symbol(s) => Token::Str(format!("sym:{s}")),
                Token::TagOpen => Token::TagOpen,
                Token::TagClose => Token::TagClose,
                Token::Str(s) => Token::Str(s),
                Token::Nag(n) => Token::Nag(n),
                Token::Comment(c) => Token::Comment(c),
                Token::Open => Token::Open,
                Token::Close => Token::Close,
                Token::Star => Token::Star,
            }))
        };
        for line in lines {
            lexer.line(line, &mut push);
        }
        lexer.finish(&mut push);
        out
    }

    fn sym(s: &str) -> Result<Token<'static>, LexError> {
        Ok(Token::Str(format!("sym:{s}")))
    }

    #[test]
    fn tag_pair_with_escapes() {
        assert_eq!(
            lex(&[r#"[Event "A \"big\" one \\ ]"]"#]),
            vec![
                Ok(Token::TagOpen),
                sym("Event"),
                Ok(Token::Str(r#"A "big" one \ ]"#.to_string())),
                Ok(Token::TagClose),
            ]
        );
    }

    #[test]
    fn movetext_tokens() {
        assert_eq!(
            lex(&[
                "1.e4 e5!? $14 (1...c5) {a [%clk 0:03:00] ]} 2. Nf3 ; rest { of line",
                "*"
            ]),
            vec![
                sym("1.e4"),
                sym("e5!?"),
                Ok(Token::Nag(14)),
                Ok(Token::Open),
                sym("1...c5"),
                Ok(Token::Close),
                Ok(Token::Comment("a [%clk 0:03:00] ]".to_string())),
                sym("2."),
                sym("Nf3"),
                Ok(Token::Comment("rest { of line".to_string())),
                Ok(Token::Star),
            ]
        );
    }

    #[test]
    fn multi_line_comment_and_escape_line() {
        assert_eq!(
            lex(&[
                "e4 { one",
                "% not an escape inside a comment",
                "two } e5",
                "% escaped e6",
                "d4"
            ]),
            vec![
                sym("e4"),
                Ok(Token::Comment(
                    "one\n% not an escape inside a comment\ntwo".to_string()
                )),
                sym("e5"),
                sym("d4"),
            ]
        );
    }

    #[test]
    fn errors() {
        assert_eq!(
            lex(&["$ $256 $12x } \"open"]),
            vec![
                Err(LexError::BadNag),
                Err(LexError::BadNag),
                Ok(Token::Nag(12)),
                sym("x"),
                Err(LexError::UnexpectedChar('}')),
                Err(LexError::UnterminatedString),
            ]
        );
        assert_eq!(
            lex(&["e4 { never closed"]),
            vec![sym("e4"), Err(LexError::UnterminatedComment)]
        );
    }

    #[test]
    fn unterminated_comment_stops_at_next_tag_section() {
        assert_eq!(
            lex(&["e4 { never closed", "", "[Event \"x\"]"]),
            vec![
                sym("e4"),
                Err(LexError::UnterminatedComment),
                Ok(Token::TagOpen),
                sym("Event"),
                Ok(Token::Str("x".to_string())),
                Ok(Token::TagClose),
            ]
        );
        // Without the blank line, the tag-like line is comment text.
        assert_eq!(
            lex(&["{ a", "[Event \"x\"] }"]),
            vec![Ok(Token::Comment("a\n[Event \"x\"]".to_string()))]
        );
    }
}
