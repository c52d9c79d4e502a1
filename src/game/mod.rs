//! Games as actors: the actor, its registry, clocks, events, saved state and terminate hooks.

pub mod actor;
pub mod clock;
pub mod events;
pub mod hooks;
pub mod registry;
pub mod state;
