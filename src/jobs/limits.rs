//! The `[jobs]` limits with the pool size resolved: what the job specs are checked against and
//! what the supervisor schedules with.

use crate::config::JobsConfig;

/// The configured limits, with the pool size resolved.
#[derive(Clone, Debug)]
pub struct JobLimits {
    /// The `[jobs]` section.
    pub config: JobsConfig,
    /// Threads of the pool (`pool_threads`, 0 resolved to the number of cores).
    pub pool_threads: usize,
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
}
