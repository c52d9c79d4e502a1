//! Initial proof and disproof numbers of a node not yet searched (the heuristic of df-pn+).
//!
//! After an attacking check, the defender's mobility estimates how hard the position is to
//! prove (every defence must be answered): the proof number is the number of legal replies
//! (counting them costs a move generation, so only checks, which are few, are counted). A
//! capture and a quiet move get fixed, larger proof numbers, the capture's smaller. The
//! disproof number is 1 (one good defence suffices). After a defence both numbers are 1.

use crate::{Move, Position};

/// The proof number of a capture that does not check.
const CAPTURE_PN: u32 = 8;

/// The proof number of a quiet move.
const QUIET_PN: u32 = 20;

/// The numbers of the defender node reached by the attacker's `mv` from `pos`, the defender
/// `check` telling whether it is in check and `replies` its legal moves (counted for checks).
#[inline]
pub(super) fn after_attack(pos: &Position, mv: Move, replies: u32, check: bool) -> (u32, u32) {
    let pn = if check {
        replies.max(1)
    } else if pos.is_capture(mv) {
        CAPTURE_PN
    } else {
        QUIET_PN
    };
    (pn, 1)
}

/// The numbers of the attacker node reached by a defence.
#[inline]
pub(super) fn after_defence() -> (u32, u32) {
    (1, 1)
}
