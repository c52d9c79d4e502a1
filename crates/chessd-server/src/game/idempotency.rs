//! Exactly-once requests: the answers a game keeps for the idempotency keys its callers sent,
//! and the conditions (a key, an expected version) a state-changing request may carry.
//!
//! A keyed request is carried out once. Its answer (status and body, rendered by the API) is
//! kept by the game, in memory and in the store in the same transaction as the change it made,
//! so that a repeat of the request (same key, same fingerprint) gets the same answer and
//! changes nothing, across restarts, eviction and failover. Each caller (a seat, the admin)
//! keeps its last few keys; older ones are forgotten.

use std::{collections::VecDeque, sync::Arc};

use chessd_core::Color;

use crate::game::{replies::ActionReply, secrets::Caller, GameError};

/// Longest idempotency key accepted, in bytes.
pub(crate) const MAX_KEY_LEN: usize = 64;

/// A status and a JSON body: what a keyed request answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptAnswer {
    /// The HTTP status (or 200 for a WebSocket frame).
    pub status: u16,
    /// The body, exactly as first sent.
    pub body: Arc<str>,
}

/// Renders the answer of a keyed request from the game's reply, or from the error it ended
/// in after changing the game (the API's view of either).
pub(crate) type Render<R = ActionReply> =
    Arc<dyn Fn(Result<&R, &GameError>) -> KeptAnswer + Send + Sync>;

/// A client's idempotency key for one request, whose reply is an `R`.
pub struct IdempotencyKey<R = ActionReply> {
    /// The key as the client sent it (at most [`MAX_KEY_LEN`] bytes).
    pub key: String,
    /// A digest of what was asked (route and body): a repeat must have the same.
    pub fingerprint: [u8; 32],
    /// How the answer is rendered, so that it can be kept.
    pub render: Render<R>,
}

impl<R> Clone for IdempotencyKey<R> {
    fn clone(&self) -> Self {
        IdempotencyKey {
            key: self.key.clone(),
            fingerprint: self.fingerprint,
            render: self.render.clone(),
        }
    }
}

impl<R> std::fmt::Debug for IdempotencyKey<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdempotencyKey")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// What a state-changing request may ask beside its action.
#[derive(Debug)]
pub struct Conditions<R = ActionReply> {
    /// Carry the request out once only.
    pub key: Option<IdempotencyKey<R>>,
    /// Refuse the request unless the game is at this version (`If-Match`).
    pub if_version: Option<u64>,
}

impl<R> Default for Conditions<R> {
    fn default() -> Self {
        Conditions {
            key: None,
            if_version: None,
        }
    }
}

impl<R> Clone for Conditions<R> {
    fn clone(&self) -> Self {
        Conditions {
            key: self.key.clone(),
            if_version: self.if_version,
        }
    }
}

/// How a conditional request came out.
#[derive(Clone, Debug)]
pub enum Acted<R = ActionReply> {
    /// It was carried out now.
    Done(R),
    /// It had been carried out before: its first answer, kept.
    Replayed(KeptAnswer),
}

/// Whose keys a key belongs to: each caller has its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeyScope {
    /// White's seat.
    White,
    /// Black's seat.
    Black,
    /// The admin.
    Admin,
}

impl KeyScope {
    /// The scope of a caller that may change the game (`None` for anyone else).
    pub(crate) fn of(caller: Caller) -> Option<KeyScope> {
        match caller {
            Caller::Seat(Color::White) => Some(KeyScope::White),
            Caller::Seat(Color::Black) => Some(KeyScope::Black),
            Caller::Admin => Some(KeyScope::Admin),
            Caller::Anonymous => None,
        }
    }

    /// The number the store keeps for it.
    pub(crate) fn code(self) -> i64 {
        match self {
            KeyScope::White => 0,
            KeyScope::Black => 1,
            KeyScope::Admin => 2,
        }
    }

    /// The scope the store's number names.
    pub(crate) fn from_code(code: i64) -> Option<KeyScope> {
        match code {
            0 => Some(KeyScope::White),
            1 => Some(KeyScope::Black),
            2 => Some(KeyScope::Admin),
            _ => None,
        }
    }
}

/// One kept key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KeptKey {
    /// Whose it is.
    pub scope: KeyScope,
    /// The key.
    pub key: String,
    /// What was asked with it.
    pub fingerprint: [u8; 32],
    /// What was answered.
    pub answer: KeptAnswer,
}

/// What a key tells about a request before it is carried out.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum KeyCheck {
    /// A new key: carry the request out.
    New,
    /// The same request again: answer this, change nothing.
    Replay(KeptAnswer),
}

/// The keys a game keeps: the last `per_scope` of each caller, oldest first.
#[derive(Clone, Debug, Default)]
pub(crate) struct KeyBook {
    keys: VecDeque<KeptKey>,
    per_scope: usize,
}

impl KeyBook {
    /// A book keeping the last `per_scope` keys of each caller.
    pub(crate) fn new(per_scope: usize) -> KeyBook {
        KeyBook {
            keys: VecDeque::new(),
            per_scope: per_scope.max(1),
        }
    }

    /// Whether a request with `key` is new, a repeat, or a reuse of the key for another request
    /// (refused with [`GameError::KeyReused`]).
    pub(crate) fn check<R>(
        &self,
        scope: KeyScope,
        key: &IdempotencyKey<R>,
    ) -> Result<KeyCheck, GameError> {
        match self
            .keys
            .iter()
            .find(|k| k.scope == scope && k.key == key.key)
        {
            None => Ok(KeyCheck::New),
            Some(kept) if kept.fingerprint == key.fingerprint => {
                Ok(KeyCheck::Replay(kept.answer.clone()))
            }
            Some(_) => Err(GameError::KeyReused(key.key.clone())),
        }
    }

    /// Keeps `kept` (replacing the answer kept under the same key); gives back the keys of its
    /// caller it pushes out (to forget in the store).
    pub(crate) fn keep(&mut self, kept: KeptKey) -> Vec<KeptKey> {
        let scope = kept.scope;
        if let Some(same) = self
            .keys
            .iter_mut()
            .find(|k| k.scope == scope && k.key == kept.key)
        {
            *same = kept;
            return Vec::new();
        }
        self.keys.push_back(kept);
        let mut forgotten = Vec::new();
        while self.keys.iter().filter(|k| k.scope == scope).count() > self.per_scope {
            let Some(at) = self.keys.iter().position(|k| k.scope == scope) else {
                break;
            };
            forgotten.extend(self.keys.remove(at));
        }
        forgotten
    }

    /// How many keys are kept.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(text: &str, fingerprint: u8) -> IdempotencyKey {
        IdempotencyKey {
            key: text.into(),
            fingerprint: [fingerprint; 32],
            render: Arc::new(|_: Result<&ActionReply, &GameError>| KeptAnswer {
                status: 200,
                body: "{}".into(),
            }),
        }
    }

    fn kept(scope: KeyScope, text: &str, fingerprint: u8) -> KeptKey {
        KeptKey {
            scope,
            key: text.into(),
            fingerprint: [fingerprint; 32],
            answer: KeptAnswer {
                status: 200,
                body: format!("{{\"k\":\"{text}\"}}").into(),
            },
        }
    }

    #[test]
    fn a_repeat_is_replayed_and_another_request_under_the_key_refused() {
        let mut book = KeyBook::new(4);
        assert_eq!(book.check(KeyScope::White, &key("a", 1)), Ok(KeyCheck::New));
        book.keep(kept(KeyScope::White, "a", 1));
        assert_eq!(
            book.check(KeyScope::White, &key("a", 1)),
            Ok(KeyCheck::Replay(kept(KeyScope::White, "a", 1).answer))
        );
        assert_eq!(
            book.check(KeyScope::White, &key("a", 2)),
            Err(GameError::KeyReused("a".into()))
        );
        // Black's keys are its own.
        assert_eq!(book.check(KeyScope::Black, &key("a", 2)), Ok(KeyCheck::New));
    }

    #[test]
    fn each_caller_keeps_its_last_keys_and_forgets_older_ones() {
        let mut book = KeyBook::new(2);
        assert!(book.keep(kept(KeyScope::White, "w1", 1)).is_empty());
        assert!(book.keep(kept(KeyScope::Black, "b1", 1)).is_empty());
        assert!(book.keep(kept(KeyScope::White, "w2", 1)).is_empty());
        let forgotten = book.keep(kept(KeyScope::White, "w3", 1));
        assert_eq!(forgotten, vec![kept(KeyScope::White, "w1", 1)]);
        assert_eq!(book.len(), 3);
        assert_eq!(
            book.check(KeyScope::White, &key("w1", 9)),
            Ok(KeyCheck::New)
        );
        assert!(matches!(
            book.check(KeyScope::Black, &key("b1", 1)),
            Ok(KeyCheck::Replay(_))
        ));
    }
}
