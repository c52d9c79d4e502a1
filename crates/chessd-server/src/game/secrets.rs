//! A game's secrets: handed out once at creation, kept (in memory and in the store) only as
//! SHA-256 digests. A secret is 128 random bits, so a plain digest cannot be reversed by search.

use chessd_core::Color;
use sha2::{Digest, Sha256};
use uuid::Uuid;

/// Who sent a request, as established from its secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caller {
    /// The player of a seat.
    Seat(Color),
    /// The administrator.
    Admin,
    /// No or an unknown secret.
    Anonymous,
}

/// The secrets handed out at creation.
#[derive(Clone, Debug)]
pub struct Secrets {
    /// White's seat.
    pub white: String,
    /// Black's seat.
    pub black: String,
    /// The game's administrator.
    pub admin: String,
}

impl Secrets {
    /// Three fresh random secrets.
    pub fn generate() -> Secrets {
        let token = || Uuid::new_v4().simple().to_string();
        Secrets {
            white: token(),
            black: token(),
            admin: token(),
        }
    }

    /// Their digests.
    pub fn digests(&self) -> SecretDigests {
        SecretDigests {
            white: digest(&self.white),
            black: digest(&self.black),
            admin: digest(&self.admin),
        }
    }
}

/// The first 16 bytes of the SHA-256 digest of each of a game's secrets: all a game keeps of
/// them. The secrets are random UUIDs (122 bits), so a 128-bit digest keeps them as safe as
/// the whole one would, in half the bytes of every live and stored game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SecretDigests {
    white: KeptDigest,
    black: KeptDigest,
    admin: KeptDigest,
}

/// A secret's digest as kept.
pub(crate) type KeptDigest = [u8; DIGEST_LEN];

/// Bytes kept of a secret's SHA-256 digest.
const DIGEST_LEN: usize = 16;

/// The digest a game keeps of a secret (the first 16 bytes of its SHA-256).
pub(crate) fn digest(secret: &str) -> KeptDigest {
    let full: [u8; 32] = Sha256::digest(secret.as_bytes()).into();
    let mut kept = [0; DIGEST_LEN];
    kept.copy_from_slice(&full[..DIGEST_LEN]);
    kept
}

impl SecretDigests {
    /// Who presents `token`: the admin, a seat, or nobody in particular.
    pub fn caller(&self, token: Option<&str>) -> Caller {
        let Some(token) = token else {
            return Caller::Anonymous;
        };
        let given = digest(token);
        let eq = |d: &KeptDigest| constant_time_eq::constant_time_eq(d, &given);
        if eq(&self.admin) {
            Caller::Admin
        } else if eq(&self.white) {
            Caller::Seat(Color::White)
        } else if eq(&self.black) {
            Caller::Seat(Color::Black)
        } else {
            Caller::Anonymous
        }
    }

    /// The same digests with `color`'s seat proven by another secret, of which only the
    /// digest ([`digest`]) is known (a seek's owner, whose seat secret the creator never sees).
    pub(crate) fn with_seat(mut self, color: Color, seat: KeptDigest) -> SecretDigests {
        match color {
            Color::White => self.white = seat,
            Color::Black => self.black = seat,
        }
        self
    }

    /// The 48 bytes stored: white's, black's and the admin's digest.
    pub fn to_bytes(&self) -> Vec<u8> {
        [self.white, self.black, self.admin].concat()
    }

    /// Reads [`SecretDigests::to_bytes`] back, or the 96 bytes of whole digests that stores
    /// written before kept (their first 16 bytes each are the same digests).
    pub fn from_bytes(bytes: &[u8]) -> Option<SecretDigests> {
        let stride = match bytes.len() {
            48 => 16,
            96 => 32,
            _ => return None,
        };
        let part = |i: usize| bytes[i * stride..i * stride + DIGEST_LEN].try_into().ok();
        Some(SecretDigests {
            white: part(0)?,
            black: part(1)?,
            admin: part(2)?,
        })
    }
}

/// The secret of a seat's player in the rematch of game `game`, made from the seat's secret
/// in that game: only who holds that secret can work it out, the server keeps only its digest,
/// and asking again gives the same one.
pub(crate) fn rematch_secret(seat_secret: &str, game: Uuid) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"chessd rematch seat\0");
    hasher.update(game.as_bytes());
    hasher.update(seat_secret.as_bytes());
    let full: [u8; 32] = hasher.finalize().into();
    hex::encode(&full[..16])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_tell_the_callers_apart_and_round_trip() {
        let s = Secrets::generate();
        let d = s.digests();
        assert_eq!(d.caller(Some(&s.admin)), Caller::Admin);
        assert_eq!(d.caller(Some(&s.white)), Caller::Seat(Color::White));
        assert_eq!(d.caller(Some(&s.black)), Caller::Seat(Color::Black));
        assert_eq!(d.caller(Some("guess")), Caller::Anonymous);
        assert_eq!(d.caller(None), Caller::Anonymous);
        let bytes = d.to_bytes();
        assert_eq!(bytes.len(), 48);
        assert!(!bytes.windows(16).any(|w| s.admin.as_bytes().starts_with(w)));
        assert_eq!(SecretDigests::from_bytes(&bytes), Some(d.clone()));
        assert_eq!(SecretDigests::from_bytes(&bytes[1..]), None);
        // A store written with whole digests reads the same.
        let whole = |t: &str| -> [u8; 32] { Sha256::digest(t.as_bytes()).into() };
        let old = [whole(&s.white), whole(&s.black), whole(&s.admin)].concat();
        assert_eq!(SecretDigests::from_bytes(&old), Some(d));
    }
}
