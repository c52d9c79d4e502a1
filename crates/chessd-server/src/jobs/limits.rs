//! The `[jobs]` limits with the pool size resolved: what the job specs are checked against and
//! what the supervisor schedules with. Clients without an API key are checked against the
//! lower `jobs.anonymous_*` limits ([`JobLimits::anonymous`]).

use crate::config::JobsConfig;

/// The configured limits, with the pool size resolved.
#[derive(Clone, Debug)]
pub struct JobLimits {
    /// The `[jobs]` section (for an anonymous client: with its lower limits in the `max_*`
    /// fields it is checked against).
    pub config: JobsConfig,
    /// Threads of the pool (`pool_threads`, 0 resolved to the number of cores).
    pub pool_threads: usize,
    /// The limits (`perft_depth`, `threads`, `hash_mb`) lowered by a `jobs.anonymous_max_*`
    /// key: messages name that key.
    pub anonymous: Vec<&'static str>,
}

impl JobLimits {
    /// The limits of a configuration.
    pub fn new(config: JobsConfig) -> JobLimits {
        let pool_threads = match config.pool_threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        JobLimits {
            config,
            pool_threads,
            anonymous: Vec::new(),
        }
    }

    /// The limits a client without an API key is checked against: `jobs.anonymous_*` (never
    /// above the limits of clients with a key).
    pub fn anonymous(&self) -> JobLimits {
        let mut config = self.config.clone();
        let mut anonymous = Vec::new();
        if config.anonymous_max_perft_depth < config.max_perft_depth {
            config.max_perft_depth = config.anonymous_max_perft_depth;
            anonymous.push("perft_depth");
        }
        if config.anonymous_max_hash_mb < config.max_hash_mb {
            config.max_hash_mb = config.anonymous_max_hash_mb;
            anonymous.push("hash_mb");
        }
        if config.anonymous_max_threads > 0 && config.anonymous_max_threads < self.max_threads() {
            config.max_threads = config.anonymous_max_threads;
            anonymous.push("threads");
        }
        JobLimits {
            config,
            pool_threads: self.pool_threads,
            anonymous,
        }
    }

    /// The full name of the key of a limit (`perft_depth`, `threads`, `hash_mb`) in force
    /// here: `jobs.anonymous_max_…` where that key lowered it, else `jobs.max_…`.
    pub fn key(&self, name: &str) -> String {
        if self.anonymous.contains(&name) {
            format!("jobs.anonymous_max_{name}")
        } else {
            format!("jobs.max_{name}")
        }
    }

    /// The most threads one job may have: `max_threads` (0: the pool size), never more than
    /// the pool.
    pub fn max_threads(&self) -> usize {
        match self.config.max_threads {
            0 => self.pool_threads,
            n => n.min(self.pool_threads),
        }
    }

    /// The most pool threads one client's running jobs hold together: `max_client_threads`
    /// (0: the pool less one, at least one), never more than the pool.
    pub fn client_threads(&self) -> usize {
        match self.config.max_client_threads {
            0 => self.pool_threads.saturating_sub(1).max(1),
            n => n.min(self.pool_threads),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    #[test]
    fn anonymous_limits_are_the_lower_ones_and_named_so() {
        let mut config = Config::defaults().jobs;
        config.pool_threads = 4;
        let keyed = JobLimits::new(config);
        let anonymous = keyed.anonymous();
        assert_eq!(keyed.max_threads(), 4);
        assert_eq!(anonymous.max_threads(), 1);
        assert_eq!(anonymous.config.max_perft_depth, 8);
        assert_eq!(anonymous.config.max_hash_mb, 64);
        assert_eq!(anonymous.key("threads"), "jobs.anonymous_max_threads");
        assert_eq!(keyed.key("threads"), "jobs.max_threads");
        assert_eq!(keyed.client_threads(), 3);
        // A limit the anonymous key does not lower is named by the keyed one.
        let mut config = Config::defaults().jobs;
        config.max_hash_mb = 16;
        assert_eq!(
            JobLimits::new(config).anonymous().key("hash_mb"),
            "jobs.max_hash_mb"
        );
    }
}
