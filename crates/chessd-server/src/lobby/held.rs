//! The rows (seeks, pool entries) this node's lobby sockets hold, with how many sockets hold
//! each: the node keeps those alive in the store, and tells their sockets when they settle.

use std::{collections::HashMap, sync::Mutex};

/// Ids held by this node's sockets, each with its count of holding sockets.
#[derive(Debug, Default)]
pub(crate) struct Held(Mutex<HashMap<String, usize>>);

impl Held {
    /// One more socket holds `id`.
    pub(crate) fn add(&self, id: &str) {
        if let Ok(mut held) = self.0.lock() {
            *held.entry(id.to_string()).or_default() += 1;
        }
    }

    /// One socket fewer holds `id` (the id goes with the last).
    pub(crate) fn release(&self, id: &str) {
        if let Ok(mut held) = self.0.lock() {
            if let Some(n) = held.get_mut(id) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    held.remove(id);
                }
            }
        }
    }

    /// Forgets `id` whoever holds it (it settled and its sockets were told).
    pub(crate) fn forget(&self, id: &str) {
        if let Ok(mut held) = self.0.lock() {
            held.remove(id);
        }
    }

    /// The ids held.
    pub(crate) fn ids(&self) -> Vec<String> {
        self.0
            .lock()
            .map(|h| h.keys().cloned().collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::Held;

    #[test]
    fn an_id_goes_with_its_last_socket_or_when_forgotten() {
        let held = Held::default();
        held.add("a");
        held.add("a");
        held.add("b");
        held.release("a");
        let mut ids = held.ids();
        ids.sort();
        assert_eq!(ids, ["a", "b"]);
        held.release("a");
        held.forget("b");
        assert!(held.ids().is_empty());
    }
}
