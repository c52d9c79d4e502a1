//! A game's options: timers, webhook, clocks, draw rules, and chessd's own Chess 2 player.

use std::time::Duration;

use chessd_core::{game::DrawPolicy, Color};
use serde::{Deserialize, Serialize};

use crate::game::clock::TimeControl;

/// A game's options. The default: no idle timeout, no abandonment, no webhook, no clocks, the
/// default draw rules, no Chess 2 player.
#[derive(Clone, Debug, Default)]
pub struct GameOptions {
    /// Stop after this long without a message (`None`: never).
    pub idle_timeout: Option<Duration>,
    /// Stop with reason `abandoned` when no move is played this long after creation (`None`:
    /// never).
    pub abandon_after: Option<Duration>,
    /// POSTed to when the game's actor stops.
    pub webhook: Option<Box<url::Url>>,
    /// Clocks, when the game is timed.
    pub time_control: Option<TimeControl>,
    /// Draw rules.
    pub draw_policy: DrawPolicy,
    /// Chess 2: chessd's own player, on the sides it plays (none, one, or both).
    pub chess2_bots: Vec<Chess2Bot>,
}

/// chessd's Chess 2 player in a game (`chessd_core::chess2::bot`, run in the server: UCI
/// cannot carry duels, so no engine process plays Chess 2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chess2Bot {
    /// The configured engine it was asked as (a `builtin = true` engine).
    pub engine: String,
    /// The side it plays.
    pub plays: Color,
    /// Its search depth in plies.
    pub depth: u32,
    /// Who created the game ([`ClientKey::stored`](crate::admission::ClientKey::stored)): its
    /// engine sessions count this player, and its searches queue in that client's turn.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub client: String,
}

impl Chess2Bot {
    /// The deepest search a client may ask of it.
    pub const MAX_DEPTH: u32 = 4;
    /// The depth when none is asked.
    pub const DEFAULT_DEPTH: u32 = 3;
    /// Positions searched per move at most: the cost of one move, whatever the depth asked.
    pub const NODE_BUDGET: u64 = 200_000;
}
