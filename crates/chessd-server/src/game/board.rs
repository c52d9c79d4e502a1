//! [`Board`]: the rules a game is played under, standard chess (and Chess960) or Chess 2,
//! behind the few operations every game has (status, whose turn, results set from outside).
//! What only one variant has is reached through [`Board::chess`] or [`Board::chess2`], which
//! refuse the other variant with `wrong_variant`.

use chessd_core::{
    chess2::{Chess2Game, DuelStage},
    game::{DrawPolicy, Game, Reason, Status},
    Color,
};
use serde::{Deserialize, Serialize};

use crate::game::GameError;

/// The rules of one game, with its moves so far.
#[derive(Clone, Debug)]
pub enum Board {
    /// Standard chess or Chess960.
    Chess(Game),
    /// Chess 2 (boxed: rarer, and larger than a standard game).
    Chess2(Box<Chess2Game>),
}

impl From<Game> for Board {
    fn from(game: Game) -> Board {
        Board::Chess(game)
    }
}

impl From<Chess2Game> for Board {
    fn from(game: Chess2Game) -> Board {
        Board::Chess2(Box::new(game))
    }
}

/// Refuses a request made for the other variant.
fn wrong_variant(wanted: &str) -> GameError {
    GameError::WrongVariant(match wanted {
        "chess" => "this is a Chess 2 game; this request is for standard chess games (read a \
                    Chess 2 game's position at GET /v1/games/{id}, play with POST …/moves)"
            .into(),
        _ => "this request is for Chess 2 games; this is a standard chess game".into(),
    })
}

impl Board {
    /// The variant's name as the API writes it: `standard`, `chess960` or `chess2`.
    pub fn variant(&self) -> &'static str {
        match self {
            Board::Chess(game) if game.start_position().is_chess960() => "chess960",
            Board::Chess(_) => "standard",
            Board::Chess2(_) => "chess2",
        }
    }

    /// The standard game, or `wrong_variant` for a Chess 2 game.
    pub fn chess(&self) -> Result<&Game, GameError> {
        match self {
            Board::Chess(game) => Ok(game),
            Board::Chess2(_) => Err(wrong_variant("chess")),
        }
    }

    /// The Chess 2 game, or `wrong_variant` for a standard game.
    pub fn chess2(&self) -> Result<&Chess2Game, GameError> {
        match self {
            Board::Chess2(game) => Ok(game),
            Board::Chess(_) => Err(wrong_variant("chess2")),
        }
    }

    /// The Chess 2 game to change, or `wrong_variant`.
    pub fn chess2_mut(&mut self) -> Result<&mut Chess2Game, GameError> {
        match self {
            Board::Chess2(game) => Ok(game),
            Board::Chess(_) => Err(wrong_variant("chess2")),
        }
    }

    /// The game's status.
    pub fn status(&self) -> &Status {
        match self {
            Board::Chess(game) => game.status(),
            Board::Chess2(game) => game.status(),
        }
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.status().is_over()
    }

    /// The side whose clock runs: the side to move, or in Chess 2 the side a duel waits for.
    pub fn to_act(&self) -> Color {
        match self {
            Board::Chess(game) => game.turn(),
            Board::Chess2(game) => game.to_act(),
        }
    }

    /// Moves played so far.
    pub fn plies(&self) -> usize {
        match self {
            Board::Chess(game) => game.history().len(),
            Board::Chess2(game) => game.history().len(),
        }
    }

    /// Whether anything was played yet (a Chess 2 step counts: a capture waiting for its
    /// duel is under way).
    pub fn has_started(&self) -> bool {
        match self {
            Board::Chess(game) => !game.history().is_empty(),
            Board::Chess2(game) => !game.steps().is_empty(),
        }
    }

    /// The current position: FEN, or EPD for Chess 2.
    pub fn fen(&self) -> String {
        match self {
            Board::Chess(game) => game.position().fen(),
            Board::Chess2(game) => game.position().to_epd(),
        }
    }

    /// The draw that can be claimed now, if any.
    pub fn claimable_draw(&self) -> Option<Reason> {
        match self {
            Board::Chess(game) => game.claimable_draw(),
            Board::Chess2(game) => game.claimable_draw(),
        }
    }

    /// The starting position: FEN, or EPD for Chess 2.
    pub fn start_fen(&self) -> String {
        match self {
            Board::Chess(game) => game.start_position().fen(),
            Board::Chess2(game) => game.start_position().to_epd(),
        }
    }

    /// The draw policy.
    pub fn policy(&self) -> DrawPolicy {
        match self {
            Board::Chess(game) => game.policy(),
            Board::Chess2(game) => game.policy(),
        }
    }

    /// `loser` resigns.
    pub fn resign(&mut self, loser: Color) -> Result<(), GameError> {
        match self {
            Board::Chess(game) => Ok(game.resign(loser)?),
            Board::Chess2(game) => Ok(game.resign(loser)?),
        }
    }

    /// The players agree to a draw.
    pub fn draw_by_agreement(&mut self) -> Result<(), GameError> {
        match self {
            Board::Chess(game) => Ok(game.draw_by_agreement()?),
            Board::Chess2(game) => Ok(game.draw_by_agreement()?),
        }
    }

    /// A draw is claimed by repetition or the fifty-move rule.
    pub fn claim_draw(&mut self) -> Result<(), GameError> {
        match self {
            Board::Chess(game) => Ok(game.claim_draw()?),
            Board::Chess2(game) => Ok(game.claim_draw()?),
        }
    }

    /// A draw by decision.
    pub fn set_draw(&mut self, note: Option<String>) -> Result<(), GameError> {
        match self {
            Board::Chess(game) => Ok(game.set_draw(note)?),
            Board::Chess2(game) => Ok(game.set_draw(note)?),
        }
    }

    /// A winner by decision.
    pub fn set_winner(&mut self, color: Color, note: Option<String>) -> Result<(), GameError> {
        match self {
            Board::Chess(game) => Ok(game.set_winner(color, note)?),
            Board::Chess2(game) => Ok(game.set_winner(color, note)?),
        }
    }

    /// The game is aborted (over, no result).
    pub fn abort(&mut self) -> Result<(), GameError> {
        match self {
            Board::Chess(game) => Ok(game.abort()?),
            Board::Chess2(game) => Ok(game.abort()?),
        }
    }

    /// Takes back the last `plies` moves of a standard game under way.
    pub fn take_back(&mut self, plies: usize) -> Result<(), GameError> {
        match self {
            Board::Chess(game) => Ok(game.take_back(plies)?),
            Board::Chess2(_) => Err(GameError::WrongVariant(
                "takebacks are for standard games".into(),
            )),
        }
    }

    /// A new game from this game's start position, under the same draw policy (a rematch).
    pub fn fresh(&self) -> Board {
        match self {
            Board::Chess(game) => {
                chessd_core::game::Game::with_policy(*game.start_position(), game.policy()).into()
            }
            Board::Chess2(game) => {
                chessd_core::chess2::Chess2Game::new(*game.start_position(), game.policy()).into()
            }
        }
    }

    /// `loser` ran out of time.
    pub fn flag(&mut self, loser: Color) -> Result<(), GameError> {
        match self {
            Board::Chess(game) => Ok(game.flag(loser)?),
            Board::Chess2(game) => Ok(game.flag(loser)?),
        }
    }

    /// The same game replayed under another draw policy (which may end it).
    pub fn with_policy(&self, policy: DrawPolicy) -> Result<Board, GameError> {
        let replay_error = |e: String| GameError::Internal(format!("replaying the game: {e}"));
        Ok(match self {
            Board::Chess(old) => {
                let mut game = Game::with_policy(*old.start_position(), policy);
                for &mv in old.history() {
                    game.replay(mv).map_err(|e| replay_error(e.to_string()))?;
                }
                Board::Chess(game)
            }
            Board::Chess2(old) => {
                let mut game = Chess2Game::new(*old.start_position(), policy);
                for step in old.steps() {
                    game.replay(*step)
                        .map_err(|e| replay_error(e.to_string()))?;
                }
                game.into()
            }
        })
    }
}

/// A Chess 2 duel waiting to be settled, as everyone may see it: whose bids are in, never
/// their amounts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DuelView {
    /// The capturing move, without duel fields.
    #[serde(rename = "move")]
    pub mv: String,
    /// The side that moved.
    #[schema(value_type = crate::schemas::Side)]
    pub attacker: Color,
    /// The side whose piece is at stake.
    #[schema(value_type = crate::schemas::Side)]
    pub defender: Color,
    /// The square of the piece at stake.
    pub square: String,
    /// `challenge` (the defender challenges or declines) or `bids`.
    pub stage: String,
    /// The sides whose bids are in.
    #[schema(value_type = Vec<crate::schemas::Side>)]
    pub bids_in: Vec<Color>,
    /// The side that must act now.
    #[schema(value_type = crate::schemas::Side)]
    pub to_act: Color,
    /// The duels of this move settled so far, as in its notation (`""` declined, `"12"`:
    /// the defender bid 1, the attacker 2).
    pub settled: Vec<String>,
    /// The stone the defender owes on top of its bid to start this duel (1 when the
    /// capturing piece ranks above the piece at stake).
    #[serde(default)]
    pub challenge_cost: u8,
    /// The bids the defender may make (with the cost paid from its stones).
    #[serde(default)]
    pub defender_bids: Vec<u8>,
    /// The bids the attacker may make.
    #[serde(default)]
    pub attacker_bids: Vec<u8>,
}

impl DuelView {
    /// The public view of `game`'s waiting duel, if any.
    pub fn of(game: &Chess2Game) -> Option<DuelView> {
        let pending = game.pending_duel()?;
        let terms = game.duel_terms()?;
        let (stage, bids_in) = match pending.stage() {
            DuelStage::Challenge => ("challenge", Vec::new()),
            DuelStage::Bids { .. } => (
                "bids",
                Color::ALL
                    .into_iter()
                    .filter(|&c| !pending.awaits_bid_from(c))
                    .collect(),
            ),
        };
        Some(DuelView {
            mv: pending.mv().to_string(),
            attacker: pending.attacker(),
            defender: pending.defender(),
            square: pending.at_stake().0.to_string(),
            stage: stage.to_string(),
            bids_in,
            to_act: pending.to_act(),
            settled: pending.settled().iter().map(|d| d.to_string()).collect(),
            challenge_cost: terms.challenge_cost,
            defender_bids: terms.defender_bids,
            attacker_bids: terms.attacker_bids,
        })
    }
}
