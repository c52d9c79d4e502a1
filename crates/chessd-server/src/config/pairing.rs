//! The `[pairing]` section: quick pairing's pools and how entries are paired.

use serde::{Deserialize, Serialize};

/// Quick pairing: how often pools are paired, how the rating range widens, how long an entry
/// nobody holds lives, and the pools.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PairingConfig {
    /// Milliseconds between two pairing rounds of a node (while entries wait).
    pub interval_ms: u64,
    /// Seconds an entry lives after its holder last polled it or its lobby socket closed.
    pub grace_secs: u64,
    /// Rating points two entries may differ by when they have just joined.
    pub range_initial: u32,
    /// Rating points the range widens by per second an entry has waited.
    pub range_per_sec: u32,
    /// The widest the range gets.
    pub range_max: u32,
    /// The pools, in the order they are listed.
    pub pools: Vec<PoolConfig>,
}

/// One pool: a variant and a time control.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PoolConfig {
    /// Its id in URLs (letters, digits, `-`, `_` and `.`; at most 32).
    pub id: String,
    /// Its name as shown (`3+2`).
    pub name: String,
    /// `standard` or `chess2`.
    pub variant: String,
    /// Each side's clock at the start, in seconds.
    pub initial_secs: u64,
    /// Seconds added to a side's clock after each of its moves.
    pub increment_secs: u64,
}

impl PairingConfig {
    /// The pool with this id.
    pub fn pool(&self, id: &str) -> Option<&PoolConfig> {
        self.pools.iter().find(|p| p.id == id)
    }

    /// Checks what the types cannot: pool ids are URL-safe and unique, variants known, clocks
    /// running.
    pub fn check(&self) -> Result<(), String> {
        if self.interval_ms == 0 {
            return Err("pairing.interval_ms must be over 0".into());
        }
        for (i, pool) in self.pools.iter().enumerate() {
            let safe = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
            if pool.id.is_empty() || pool.id.len() > 32 || !pool.id.chars().all(safe) {
                return Err(format!(
                    "pairing.pools: id {:?} is not 1 to 32 letters, digits, '-', '_' or '.'",
                    pool.id
                ));
            }
            if self.pools[..i].iter().any(|p| p.id == pool.id) {
                return Err(format!("pairing.pools: id {:?} is there twice", pool.id));
            }
            if !matches!(pool.variant.as_str(), "standard" | "chess2") {
                return Err(format!(
                    "pairing.pools.{}: variant {:?} is not standard or chess2",
                    pool.id, pool.variant
                ));
            }
            if pool.initial_secs == 0 && pool.increment_secs == 0 {
                return Err(format!(
                    "pairing.pools.{}: a pool's clocks need initial_secs or increment_secs",
                    pool.id
                ));
            }
        }
        Ok(())
    }
}
