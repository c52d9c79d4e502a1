//! How a game shows on the wire: its view (position, moves, status, clocks, options, engines), its
//! secrets and the answer that creates it.

use chessd_core::{
    game::{DrawPolicy, Reason, Status},
    Color,
};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::{
    api::{
        error::ApiError,
        routes::chess2_games::Chess2View,
        wire::moves::{history, MoveView},
    },
    game::{
        clock::{ClockView, TimeControl},
        replies::{ActionReply, GameSnapshot},
        Board,
    },
};

/// Seat and admin secrets.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = Secrets)]
pub(crate) struct SecretsView {
    /// White's seat.
    pub white: String,
    /// Black's seat.
    pub black: String,
    /// The admin.
    pub admin: String,
}

/// The whole public state of a game.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub(crate) struct GameView {
    /// The game id.
    pub id: Uuid,
    /// Event version: bumps with every change.
    pub version: u64,
    /// `standard`, `chess960` or `chess2`.
    pub variant: String,
    /// The current position (an EPD for Chess 2).
    pub fen: String,
    /// The starting position.
    pub start_fen: String,
    /// Side to move.
    #[schema(value_type = crate::schemas::Side)]
    pub turn: Color,
    /// Whether the side to move is in check.
    pub check: bool,
    /// Status.
    #[schema(value_type = crate::schemas::StatusView)]
    pub status: Status,
    /// The moves played.
    pub moves: Vec<MoveView>,
    /// Clocks, when timed.
    pub clocks: Option<ClockView>,
    /// A pending draw offer.
    #[schema(value_type = Option<crate::schemas::Side>)]
    pub draw_offer: Option<Color>,
    /// Whether a draw can be claimed now (claims policy).
    #[schema(value_type = Option<crate::schemas::ReasonName>)]
    pub claimable_draw: Option<Reason>,
    /// Options.
    pub options: OptionsView,
    /// A Chess 2 game's armies, stones and waiting duel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chess2: Option<Chess2View>,
    /// Players' actions around the moves: abort, takeback, rematch, chat.
    #[serde(default)]
    pub in_game: InGameView,
    /// Who plays the game, for a game created with players (an accepted seek): each side's
    /// player (name, or `null` for an anonymous one; rating when the game started) and whether
    /// the game is rated. Absent for other games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<crate::api::routes::players::GamePlayersView>,
}

/// What the players may do around the moves, and the offers waiting.
#[derive(Debug, Default, Serialize, Deserialize, utoipa::ToSchema)]
pub(crate) struct InGameView {
    /// Whether a seat may abort the game now (it goes on, and not both sides have moved).
    pub abortable: bool,
    /// Whether the game allows takebacks (casual standard games).
    pub takebacks: bool,
    /// The side whose takeback offer waits.
    #[schema(value_type = Option<crate::schemas::Side>)]
    pub takeback_offer: Option<Color>,
    /// The side whose rematch offer waits.
    #[schema(value_type = Option<crate::schemas::Side>)]
    pub rematch_offer: Option<Color>,
    /// The rematch, once created.
    pub rematch: Option<Uuid>,
    /// Whether the game has chat (not against an engine).
    pub chat: bool,
}

impl InGameView {
    /// The view of a snapshot.
    pub(crate) fn of(s: &GameSnapshot) -> InGameView {
        use crate::game::offers::{abort_allowed, takebacks_allowed};
        InGameView {
            abortable: abort_allowed(&s.game),
            takebacks: matches!(s.game, Board::Chess(_))
                && takebacks_allowed(&s.game, s.players.as_ref().is_some_and(|p| p.rated)),
            takeback_offer: s.offers.takeback,
            rematch_offer: s.offers.rematch.map(|(by, _)| by),
            rematch: s.offers.rematch_game,
            chat: s.engine_seats.is_empty(),
        }
    }
}

/// A game's options.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub(crate) struct OptionsView {
    /// Idle timeout in seconds (0 = never).
    pub idle_timeout_secs: u64,
    /// Draw rules.
    #[schema(value_type = crate::schemas::DrawPolicyName)]
    pub draw_policy: DrawPolicy,
    /// Clocks.
    pub time_control: Option<TimeControl>,
    /// Whether a terminate webhook is set.
    pub webhook: bool,
    /// The engine opponent, when an engine plays one side by itself (`null` when engines play
    /// both sides: see `opponents`).
    #[serde(default)]
    pub opponent: Option<OpponentView>,
    /// Every side an engine plays (White's first): empty, the opponent, or both engines of an
    /// engine match.
    #[serde(default)]
    #[schema(max_items = 2)]
    pub opponents: Vec<OpponentView>,
}

/// The engine opponent of a game, as its options show it.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub(crate) struct OpponentView {
    /// The configured engine's name.
    pub engine: String,
    /// The side it plays.
    #[schema(value_type = crate::schemas::Side)]
    pub plays: Color,
}

impl From<&GameSnapshot> for GameView {
    fn from(s: &GameSnapshot) -> GameView {
        let (turn, check, chess2) = match &s.game {
            Board::Chess(game) => (game.turn(), game.position().is_check(), None),
            Board::Chess2(game) => {
                let turn = game.position().turn();
                let check = game.position().is_threatened(turn);
                (turn, check, Some(Chess2View::of(game)))
            }
        };
        GameView {
            id: s.id,
            version: s.version,
            variant: s.game.variant().to_string(),
            fen: s.game.fen(),
            start_fen: s.game.start_fen(),
            turn,
            check,
            status: s.game.status().clone(),
            moves: history(&s.game),
            clocks: s.clocks,
            draw_offer: s.draw_offer,
            claimable_draw: s.game.claimable_draw(),
            options: options_view(s),
            chess2,
            in_game: InGameView::of(s),
            players: s
                .players
                .as_deref()
                .map(crate::api::routes::players::GamePlayersView::of),
        }
    }
}

/// The options part of a game's view.
pub(crate) fn options_view(s: &GameSnapshot) -> OptionsView {
    OptionsView {
        idle_timeout_secs: s.idle_timeout_secs,
        draw_policy: s.game.policy(),
        time_control: s.time_control,
        webhook: s.has_webhook,
        opponent: match s.engine_seats.as_slice() {
            [(plays, engine)] => Some(OpponentView {
                engine: engine.clone(),
                plays: *plays,
            }),
            _ => None,
        },
        opponents: s
            .engine_seats
            .iter()
            .map(|(plays, engine)| OpponentView {
                engine: engine.clone(),
                plays: *plays,
            })
            .collect(),
    }
}

/// `201` answer to creation.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub(crate) struct Created {
    /// The game.
    #[serde(flatten)]
    pub game: GameView,
    /// The secrets (shown once).
    pub secrets: SecretsView,
}

/// The game's whole state after an action (what most game routes answer).
pub(crate) fn game_view(reply: &ActionReply) -> Result<GameView, ApiError> {
    Ok(GameView::from(&reply.snapshot))
}

/// The game after the action: the answer of most game routes, as the OpenAPI document names it.
#[allow(
    dead_code,
    reason = "schema-only: utoipa reads its shape, answers are built as GameView"
)]
#[derive(utoipa::ToResponse)]
#[response(
    description = "The game after the action.",
    headers(("Idempotent-Replayed" = String, description = "`true` on the kept first answer to a request sent again with its `Idempotency-Key`."))
)]
pub(crate) struct GameAfterAction(pub GameView);
