//! A game: a starting position, the moves played (two bytes each; their UCI and SAN are
//! written when asked for), the status, and the
//! rules that end a game — checkmate, stalemate, insufficient material, repetition and the
//! fifty/seventy-five-move rules — plus results set from outside (resignation, timeout,
//! agreement, decisions).
//!
//! ```
//! use chessd_core::game::{Game, GameResult, Reason};
//! use chessd_core::Position;
//!
//! let mut game = Game::new(Position::startpos());
//! for mv in ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"] {
//!     game.play_uci(mv).unwrap();
//! }
//! assert_eq!(game.status().result, GameResult::WhiteWins);
//! assert_eq!(game.status().reason, Some(Reason::Checkmate));
//! assert!(game.play_uci("e8f7").is_err());
//! ```

mod error;
mod material;
mod repetition;
mod status;

use std::sync::LazyLock;

pub use error::GameError;
use repetition::RepetitionTable;
pub use status::{DrawPolicy, GameResult, Reason, Status};

use crate::{
    san::SanError, Color, FenError, FenMode, IllegalReason, Move, MoveKind, Position, Role, Square,
};

/// A move with its notation in the position it was played from: what playing a move
/// returns, and [`Game::notated_history`] gives (the game itself keeps only [`Move`]s).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PlayedMove {
    /// The move.
    pub mv: Move,
    /// UCI notation (`e2e4`, `e7e8q`, `e1g1`).
    pub uci: String,
    /// Standard Algebraic Notation with check or mate suffix (`e4`, `exd8=Q+`, `O-O#`).
    pub san: String,
}

/// A game in progress or finished.
///
/// A game keeps its start and current positions, its moves as two-byte [`Move`]s and, for the
/// repetition rules, half the Zobrist keys of the positions since the last irreversible move:
/// a live game costs about 300 bytes plus 2 to 6 bytes a ply. Notation is written when asked
/// for ([`Game::play`] returns the move's, [`Game::notated_history`] replays the game for all
/// of them).
///
/// Cloning copies the moves (two bytes each) and the repetition keys.
#[derive(Clone, Debug)]
pub struct Game {
    /// The start, unless it is the standard starting position (most games: kept once).
    start: Option<Box<Position>>,
    position: Position,
    history: Vec<Move>,
    repetitions: RepetitionTable,
    status: Status,
    policy: DrawPolicy,
}

/// The standard starting position, which most games start from and so do not keep a copy of.
static STANDARD_START: LazyLock<Position> = LazyLock::new(Position::startpos);

impl PlayedMove {
    /// `mv` with its notation in `before`, the position it is played from.
    pub fn new(before: &Position, mv: Move) -> PlayedMove {
        PlayedMove {
            mv,
            uci: before.uci(mv),
            san: before.san(mv),
        }
    }
}

impl Default for Game {
    /// A game from the standard starting position with [`DrawPolicy::Automatic`].
    fn default() -> Game {
        Game::new(Position::startpos())
    }
}

impl Game {
    /// A game from `start` with the default [`DrawPolicy::Automatic`]. If `start` is already
    /// decided (checkmate, stalemate, a dead position, an expired move clock) the game starts
    /// finished.
    pub fn new(start: Position) -> Game {
        Game::with_policy(start, DrawPolicy::default())
    }

    /// A game from `start` with the given draw policy.
    pub fn with_policy(start: Position, policy: DrawPolicy) -> Game {
        let mut game = Game {
            start: (start != *STANDARD_START).then(|| Box::new(start)),
            position: start,
            history: Vec::new(),
            repetitions: RepetitionTable::default(),
            status: Status::ongoing(),
            policy,
        };
        game.status = game.evaluate();
        game
    }

    /// A game from a FEN, checked in strict mode, with [`DrawPolicy::Automatic`].
    pub fn from_fen(fen: &str) -> Result<Game, FenError> {
        Position::from_fen(fen, FenMode::Strict).map(Game::new)
    }

    // ----- Accessors -----

    /// The position the game started from.
    pub fn start_position(&self) -> &Position {
        self.start.as_deref().unwrap_or(&STANDARD_START)
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The moves played so far, oldest first.
    pub fn history(&self) -> &[Move] {
        &self.history
    }

    /// The moves played so far with their UCI and SAN, oldest first (the game is replayed
    /// from its start to write them).
    ///
    /// ```
    /// use chessd_core::game::Game;
    ///
    /// let mut game = Game::default();
    /// for uci in ["e2e4", "e7e5", "g1f3"] {
    ///     game.play_uci(uci).unwrap();
    /// }
    /// let sans: Vec<String> = game.notated_history().into_iter().map(|m| m.san).collect();
    /// assert_eq!(sans, ["e4", "e5", "Nf3"]);
    /// ```
    pub fn notated_history(&self) -> Vec<PlayedMove> {
        self.history_with_san(|pos, mv, san| PlayedMove {
            mv,
            uci: pos.uci(mv),
            san: san.to_string(),
        })
    }

    /// The SAN of the moves played so far, oldest first: [`Game::notated_history`] without
    /// the UCI text (one string a move, as PGN writes them).
    ///
    /// ```
    /// use chessd_core::game::Game;
    ///
    /// let mut game = Game::default();
    /// for uci in ["e2e4", "e7e5", "g1f3"] {
    ///     game.play_uci(uci).unwrap();
    /// }
    /// assert_eq!(game.san_history(), ["e4", "e5", "Nf3"]);
    /// ```
    pub fn san_history(&self) -> Vec<String> {
        self.history_with_san(|_, _, san| san.to_string())
    }

    /// Each move played so far with its SAN, oldest first: `note` gets the position before
    /// the move, the move and its SAN (one buffer for the whole history). Quicker than
    /// [`Position::append_san`] a move: a game's moves are legal, so
    /// writing them generates no moves but a rival piece's and a check's test for mate
    /// ([`Position::append_san_and_play`]), and each is played once.
    ///
    /// ```
    /// use chessd_core::game::Game;
    ///
    /// let mut game = Game::default();
    /// for uci in ["g1f3", "g8f6", "b1c3", "b8c6", "c3e4", "c6e5", "e4g5"] {
    ///     game.play_uci(uci).unwrap();
    /// }
    /// let sans = game.history_with_san(|_, _, san| san.to_string());
    /// assert_eq!(sans, ["Nf3", "Nf6", "Nc3", "Nc6", "Ne4", "Ne5", "Neg5"]);
    /// ```
    pub fn history_with_san<T>(&self, mut note: impl FnMut(&Position, Move, &str) -> T) -> Vec<T> {
        let mut pos = *self.start_position();
        let mut san = String::new();
        self.history
            .iter()
            .map(|&mv| {
                let before = pos;
                san.clear();
                pos.append_san_and_play(mv, &mut san);
                note(&before, mv, &san)
            })
            .collect()
    }

    /// The UCI text of the moves played so far, oldest first.
    pub fn uci_history(&self) -> Vec<String> {
        let start = self.start_position();
        self.history.iter().map(|&mv| start.uci(mv)).collect()
    }

    /// The last move played, if any.
    pub fn last_move(&self) -> Option<Move> {
        self.history.last().copied()
    }

    /// The last move played with its notation, if any (the game is replayed to the position
    /// before it).
    pub fn last_played(&self) -> Option<PlayedMove> {
        let (&last, earlier) = self.history.split_last()?;
        let mut pos = *self.start_position();
        for &mv in earlier {
            pos.play_unchecked(mv);
        }
        Some(PlayedMove::new(&pos, last))
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.position.turn()
    }

    /// The game's status.
    pub fn status(&self) -> &Status {
        &self.status
    }

    /// The draw policy.
    pub fn policy(&self) -> DrawPolicy {
        self.policy
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.status.is_over()
    }

    // ----- Moves -----

    /// Plays a move given as a [`Move`]. Refused with [`GameError::GameOver`] after the end
    /// of the game and with [`GameError::Illegal`] (with the reason
    /// [`Position::why_illegal_move`] gives) if the move is not legal.
    pub fn play(&mut self, mv: Move) -> Result<PlayedMove, GameError> {
        self.ensure_legal(mv)?;
        Ok(self.push(mv))
    }

    /// Why the move from `from` to `to` with an optional promotion role is not legal now, or
    /// `None` when it is: [`Position::why_illegal`] in the current position, except that an
    /// en-passant capture right after the double push is
    /// [`IllegalReason::OwnKingInCheck`] when it would uncover a check (the position alone
    /// keeps only legal en-passant squares). Like [`Position::why_illegal`], a pawn move to
    /// the last rank without a role is [`IllegalReason::MissingPromotion`] (where
    /// [`Game::play_squares`] would promote to a queen), and the game being over is not
    /// looked at.
    ///
    /// ```
    /// use chessd_core::{game::Game, IllegalReason, Square};
    ///
    /// let mut game = Game::from_fen("8/2p5/8/KP5r/8/8/8/6k1 b - - 0 1").unwrap();
    /// game.play_uci("c7c5").unwrap();
    /// // b5xc6 en passant would uncover the rook's check along the fifth rank.
    /// assert_eq!(
    ///     game.why_illegal(Square::B5, Square::C6, None),
    ///     Some(IllegalReason::OwnKingInCheck)
    /// );
    /// assert_eq!(
    ///     game.play_squares(Square::B5, Square::C6, None).unwrap_err().reason(),
    ///     Some(IllegalReason::OwnKingInCheck)
    /// );
    /// ```
    pub fn why_illegal(
        &self,
        from: Square,
        to: Square,
        promotion: Option<Role>,
    ) -> Option<IllegalReason> {
        self.explainer().why_illegal(from, to, promotion)
    }

    /// The position to explain refused moves in: the current one, plus the en-passant square
    /// of a double push just played when the capture is illegal (the position keeps only a
    /// legal one), so that [`Position::why_illegal`] calls that capture
    /// [`IllegalReason::OwnKingInCheck`] rather than [`IllegalReason::CannotMoveThere`].
    fn explainer(&self) -> Position {
        let mut pos = self.position;
        if pos.ep_square().is_none() {
            if let Some(last) = self.history.last() {
                let (from, to) = (last.from(), last.to());
                let double_push = last.kind() == MoveKind::Normal
                    && from.index() ^ to.index() == 16
                    && pos.pieces(!pos.turn(), Role::Pawn).contains(to);
                if double_push {
                    pos.fen_ep_square = Some(Square::new((from.index() + to.index()) as u32 / 2));
                }
            }
        }
        pos
    }

    /// Plays a move in UCI notation (`e2e4`, `e7e8q`; castling as `e1g1` or `e1h1`). As in
    /// Binbo, a promotion without its letter (`e7e8`) promotes to a queen.
    pub fn play_uci(&mut self, text: &str) -> Result<PlayedMove, GameError> {
        self.ensure_playable()?;
        let mv = match self.position.parse_uci(text) {
            Ok(mv) => mv,
            Err(e) => self.queen_promotion_uci(text).ok_or_else(|| {
                GameError::IllegalUci(self.explain(e, |pos| pos.parse_uci(text).err()))
            })?,
        };
        Ok(self.push(mv))
    }

    /// The queen promotion `text` names if `text` is a four-character UCI pawn move to the
    /// last rank.
    fn queen_promotion_uci(&self, text: &str) -> Option<Move> {
        if text.len() != 4 || !text.is_ascii() {
            return None;
        }
        self.position
            .parse_uci(&format!("{text}q"))
            .ok()
            .filter(|mv| mv.is_promotion())
    }

    /// Plays a move in SAN (`e4`, `Nf3`, `exd5`, `O-O`, `a8=Q`). As in Binbo, a promotion
    /// without its piece (`a8`, `bxa8`) promotes to a queen.
    ///
    /// ```
    /// use chessd_core::{game::{Game, GameError}, IllegalReason};
    ///
    /// let mut game = Game::default();
    /// let played = game.play_san("e4").unwrap();
    /// assert_eq!((played.san.as_str(), played.uci.as_str()), ("e4", "e2e4"));
    /// game.play_san("e5").unwrap();
    /// assert_eq!(game.play_san("Nf3").unwrap().uci, "g1f3");
    ///
    /// // Refused moves change nothing and say why.
    /// let err = game.play_san("Qd7").unwrap_err();
    /// assert!(matches!(err, GameError::IllegalSan(_)));
    /// assert_eq!(err.reason(), Some(IllegalReason::OwnPiece));
    /// assert_eq!(err.to_string(),
    ///     "Qd7 is not a legal move in this position: the target square holds one of the mover's own pieces"
    /// );
    /// assert_eq!(game.play_san("Nf6?!").unwrap().san, "Nf6");
    /// assert_eq!(game.history().len(), 4);
    /// ```
    pub fn play_san(&mut self, text: &str) -> Result<PlayedMove, GameError> {
        self.ensure_playable()?;
        let mv = match self.position.parse_san(text) {
            Ok(mv) => mv,
            Err(e) => {
                let queen = match &e {
                    SanError::Ambiguous { candidates, .. } => {
                        self.queen_among_promotions(candidates)
                    }
                    _ => None,
                };
                match queen {
                    Some(mv) => mv,
                    None => {
                        let e = self.explain(e, |pos| pos.parse_san(text).err());
                        return Err(GameError::IllegalSan(e));
                    }
                }
            }
        };
        Ok(self.push(mv))
    }

    /// If the SAN `candidates` are exactly the promotions of one pawn move, the queen
    /// promotion among them.
    fn queen_among_promotions(&self, candidates: &[String]) -> Option<Move> {
        let moves: Vec<Move> = candidates
            .iter()
            .map(|san| self.position.parse_san(san).ok())
            .collect::<Option<_>>()?;
        let first = *moves.first()?;
        let one_pawn_move = moves
            .iter()
            .all(|mv| mv.is_promotion() && mv.from() == first.from() && mv.to() == first.to());
        if !one_pawn_move {
            return None;
        }
        moves
            .into_iter()
            .find(|mv| mv.promotion_role() == Some(Role::Queen))
    }

    /// Plays the move from `from` to `to` with an optional promotion role. As in Binbo's
    /// index moves, a pawn move to the last rank without a role promotes to a queen; a role
    /// given with a move that is not a promotion is refused (Binbo ignores it, which plays a
    /// move the client did not describe).
    pub fn play_squares(
        &mut self,
        from: Square,
        to: Square,
        promo: Option<Role>,
    ) -> Result<PlayedMove, GameError> {
        self.ensure_playable()?;
        let mv = match self.position.move_from_squares(from, to, promo) {
            Ok(mv) => mv,
            Err(e) => {
                let queen = match promo {
                    None => self
                        .position
                        .move_from_squares(from, to, Some(Role::Queen))
                        .ok()
                        .filter(|mv| mv.is_promotion()),
                    Some(_) => None,
                };
                match queen {
                    Some(mv) => mv,
                    None => {
                        let retry = |pos: &Position| pos.move_from_squares(from, to, promo).err();
                        return Err(GameError::IllegalUci(self.explain(e, retry)));
                    }
                }
            }
        };
        Ok(self.push(mv))
    }

    /// `error`, or the error `retry` gives in [`Game::explainer`]'s position when that differs
    /// from the current one (it may tell an en-passant capture apart).
    fn explain<E>(&self, error: E, retry: impl FnOnce(&Position) -> Option<E>) -> E {
        let explainer = self.explainer();
        if explainer == self.position {
            error
        } else {
            retry(&explainer).unwrap_or(error)
        }
    }

    fn ensure_playable(&self) -> Result<(), GameError> {
        if self.status.is_over() {
            Err(GameError::GameOver(self.status.clone()))
        } else {
            Ok(())
        }
    }

    /// Plays a legal move without writing its notation, for replaying a stored game: refused
    /// like [`Game::play`].
    pub fn replay(&mut self, mv: Move) -> Result<(), GameError> {
        self.ensure_legal(mv)?;
        self.apply(mv);
        Ok(())
    }

    /// Plays a move the caller knows to be legal in the current position (one the codec
    /// decoded from this very position, say) without checking it again: refused only when the
    /// game is over. A debug build still checks the move.
    ///
    /// ```
    /// use chessd_core::game::Game;
    ///
    /// let mut game = Game::default();
    /// let mv = game.position().parse_uci("e2e4").unwrap();
    /// game.replay_decoded(mv).unwrap();
    /// assert_eq!(game.history(), [mv]);
    /// ```
    pub fn replay_decoded(&mut self, mv: Move) -> Result<(), GameError> {
        self.ensure_playable()?;
        debug_assert!(self.position.is_legal(mv), "{mv:?} is not legal");
        self.apply(mv);
        Ok(())
    }

    /// Refuses `mv` when the game is over or the move is not legal, saying why.
    fn ensure_legal(&self, mv: Move) -> Result<(), GameError> {
        self.ensure_playable()?;
        if self.position.is_legal(mv) {
            return Ok(());
        }
        let reason = self.explainer().why_illegal_move(mv);
        Err(GameError::Illegal(
            mv,
            reason.unwrap_or(IllegalReason::CannotMoveThere),
        ))
    }

    /// Plays a move known to be legal and returns it with its notation.
    fn push(&mut self, mv: Move) -> PlayedMove {
        let played = PlayedMove::new(&self.position, mv);
        self.apply(mv);
        played
    }

    /// Plays a move known to be legal and updates history, repetitions and status.
    fn apply(&mut self, mv: Move) {
        let before = self.position;
        self.position.play_unchecked(mv);
        self.history.push(mv);
        self.repetitions.push(&before, &self.position);
        self.status = self.evaluate();
    }

    // ----- Rules -----

    /// How many times the current position has occurred (counting this occurrence): same
    /// placement, side to move, castling rights and legal en-passant capture. Only positions
    /// since the last capture, pawn move or castling-right change can match.
    pub fn repetition_count(&self) -> u32 {
        self.repetitions
            .count(&self.position, self.start_position(), &self.history)
    }

    /// Whether `color` still has mating material (the opposite of python-chess's
    /// `has_insufficient_material`).
    pub fn can_mate(&self, color: Color) -> bool {
        !self.position.has_insufficient_material(color)
    }

    /// The status the rules give the current position.
    fn evaluate(&self) -> Status {
        let pos = &self.position;
        if !pos.has_legal_moves() {
            return if pos.is_check() {
                Status::over(GameResult::win_for(!pos.turn()), Reason::Checkmate)
            } else {
                Status::over(GameResult::Draw, Reason::Stalemate)
            };
        }
        if pos.is_insufficient_material() {
            return Status::over(GameResult::Draw, Reason::InsufficientMaterial);
        }
        let (move_limit, move_reason, rep_limit, rep_reason) = match self.policy {
            DrawPolicy::Automatic => (100, Reason::FiftyMoves, 3, Reason::ThreefoldRepetition),
            DrawPolicy::Claims => (150, Reason::SeventyFiveMoves, 5, Reason::FivefoldRepetition),
        };
        if pos.halfmoves() >= move_limit {
            return Status::over(GameResult::Draw, move_reason);
        }
        if self.repetition_count() >= rep_limit {
            return Status::over(GameResult::Draw, rep_reason);
        }
        Status::ongoing()
    }

    /// The draw the player to move (or either player) could claim now: the fifty-move rule
    /// (100 half-moves without a capture or pawn move) or threefold repetition of the current
    /// position. `None` when the game is over (so always `None` under
    /// [`DrawPolicy::Automatic`], where these rules end the game at once).
    pub fn claimable_draw(&self) -> Option<Reason> {
        if self.status.is_over() {
            None
        } else if self.position.halfmoves() >= 100 {
            Some(Reason::FiftyMoves)
        } else if self.repetition_count() >= 3 {
            Some(Reason::ThreefoldRepetition)
        } else {
            None
        }
    }

    /// Ends the game in a draw by the rule [`Game::claimable_draw`] names.
    pub fn claim_draw(&mut self) -> Result<(), GameError> {
        self.ensure_no_status()?;
        let reason = self.claimable_draw().ok_or(GameError::NothingToClaim)?;
        self.status = Status::over(GameResult::Draw, reason);
        Ok(())
    }

    // ----- Results set from outside -----

    fn ensure_no_status(&self) -> Result<(), GameError> {
        if self.status.is_over() {
            Err(GameError::AlreadyHasStatus(self.status.clone()))
        } else {
            Ok(())
        }
    }

    /// Declares a draw by decision (reason [`Reason::Manual`]) with an optional note.
    pub fn set_draw(&mut self, note: Option<String>) -> Result<(), GameError> {
        self.ensure_no_status()?;
        self.status = Status {
            result: GameResult::Draw,
            reason: Some(Reason::Manual),
            note,
        };
        Ok(())
    }

    /// Declares `color` the winner by decision (reason [`Reason::Manual`]) with an optional
    /// note.
    pub fn set_winner(&mut self, color: Color, note: Option<String>) -> Result<(), GameError> {
        self.ensure_no_status()?;
        self.status = Status {
            result: GameResult::win_for(color),
            reason: Some(Reason::Manual),
            note,
        };
        Ok(())
    }

    /// Ends the game in a draw agreed by the players.
    pub fn draw_by_agreement(&mut self) -> Result<(), GameError> {
        self.ensure_no_status()?;
        self.status = Status::over(GameResult::Draw, Reason::Agreement);
        Ok(())
    }

    /// Aborts the game: it is over with no result ([`GameResult::Aborted`], no reason).
    pub fn abort(&mut self) -> Result<(), GameError> {
        self.ensure_no_status()?;
        self.status = Status {
            result: GameResult::Aborted,
            reason: None,
            note: None,
        };
        Ok(())
    }

    /// Takes back the last `plies` moves of a game under way: the game is what it was before
    /// them (replayed from its start, so its repetitions and status are re-derived). Taking
    /// back more moves than were played goes back to the start.
    pub fn take_back(&mut self, plies: usize) -> Result<(), GameError> {
        self.ensure_no_status()?;
        let keep = self.history.len().saturating_sub(plies);
        let mut game = Game::with_policy(*self.start_position(), self.policy);
        for &mv in &self.history[..keep] {
            game.replay(mv)?;
        }
        *self = game;
        Ok(())
    }

    /// `loser` resigns: the opponent wins.
    pub fn resign(&mut self, loser: Color) -> Result<(), GameError> {
        self.ensure_no_status()?;
        self.status = Status::over(GameResult::win_for(!loser), Reason::Resignation);
        Ok(())
    }

    /// `loser` ran out of time: the opponent wins, or the game is drawn if the opponent has
    /// no mating material (see [`Game::can_mate`]). Either way the reason is
    /// [`Reason::Timeout`].
    pub fn flag(&mut self, loser: Color) -> Result<(), GameError> {
        self.ensure_no_status()?;
        let result = if self.can_mate(!loser) {
            GameResult::win_for(!loser)
        } else {
            GameResult::Draw
        };
        self.status = Status::over(result, Reason::Timeout);
        Ok(())
    }
}
