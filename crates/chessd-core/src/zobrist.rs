//! Zobrist hashing keys, generated at compile time from a fixed seed.

use crate::{Color, Role, Square};

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn keys<const N: usize>(seed: u64) -> [u64; N] {
    let mut out = [0u64; N];
    let mut state = seed;
    let mut i = 0;
    while i < N {
        let (s, k) = splitmix(state);
        state = s;
        out[i] = k;
        i += 1;
    }
    out
}

static PIECE_KEYS: [u64; 768] = keys(0x1234_5678);
static CASTLING_KEYS: [u64; 64] = keys(0x00CA_571E);
static EP_KEYS: [u64; 8] = keys(0xE9);
const TURN_KEY: u64 = 0xF8D6_26AA_AF27_8509;

/// The key of a piece on a square.
#[inline]
pub fn piece_key(color: Color, role: Role, sq: Square) -> u64 {
    PIECE_KEYS[(color.index() * 6 + role.index()) * 64 + sq.index()]
}

/// The key of a castling right, by the square of the rook it belongs to.
#[inline]
pub fn castling_key(rook: Square) -> u64 {
    CASTLING_KEYS[rook.index()]
}

/// The key of a (legal) en-passant file.
#[inline]
pub fn en_passant_key(sq: Square) -> u64 {
    EP_KEYS[sq.file().index()]
}

/// The key xored in when Black is to move.
#[inline]
pub const fn turn_key() -> u64 {
    TURN_KEY
}
