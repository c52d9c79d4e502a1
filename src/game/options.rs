//! A game's options: timers, webhook, clocks, draw rules.

use std::time::Duration;

use chessd_core::game::DrawPolicy;

use crate::game::clock::TimeControl;

/// A game's options.
#[derive(Clone, Debug)]
pub struct GameOptions {
    /// Stop after this long without a message (`None`: never).
    pub idle_timeout: Option<Duration>,
    /// Stop with reason `abandoned` when no move is played this long after creation (`None`:
    /// never).
    pub abandon_after: Option<Duration>,
    /// POSTed to when the game's actor stops.
    pub webhook: Option<url::Url>,
    /// Clocks, when the game is timed.
    pub time_control: Option<TimeControl>,
    /// Draw rules.
    pub draw_policy: DrawPolicy,
}
