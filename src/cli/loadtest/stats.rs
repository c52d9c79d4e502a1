//! Small measurement helpers: a seeded random generator, latency percentiles, CPU use.

use serde::Serialize;

use super::child::{own_cpu_seconds, ChildServer};

/// A SplitMix64 generator: fast, seedable, good enough to pick random moves.
pub(super) struct Rng(u64);

impl Rng {
    /// A generator for `stream` (a thread or task number), seeded from the clock.
    pub(super) fn new(stream: u64) -> Rng {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Rng(nanos ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    /// A generator that gives the same numbers for the same `seed` at every run.
    pub(super) fn seeded(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    /// The next 64 random bits.
    pub(super) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub(super) fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

/// A game of `plies` random legal moves from the start position that is still going on after
/// the last (a game that ends early is drawn again).
pub(super) fn random_game(rng: &mut Rng, plies: usize) -> Vec<chessd_core::Move> {
    'draw: loop {
        let mut game = chessd_core::game::Game::default();
        let mut moves = Vec::with_capacity(plies);
        for _ in 0..plies {
            let legal = game.position().legal_moves();
            if game.is_over() || legal.is_empty() {
                continue 'draw;
            }
            let mv = legal[rng.below(legal.len())];
            if game.replay(mv).is_err() {
                continue 'draw;
            }
            moves.push(mv);
        }
        if !game.is_over() {
            return moves;
        }
    }
}

/// Latency percentiles in milliseconds.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub(super) struct Latency {
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest sample.
    pub max: f64,
}

impl Latency {
    /// Percentiles of samples in microseconds (nearest-rank); all zero without samples.
    pub(super) fn of(mut micros: Vec<u32>) -> Latency {
        if micros.is_empty() {
            return Latency::default();
        }
        micros.sort_unstable();
        let rank = |p: f64| {
            let i = (p * micros.len() as f64).ceil() as usize;
            f64::from(micros[i.clamp(1, micros.len()) - 1]) / 1000.0
        };
        Latency {
            p50: rank(0.50),
            p95: rank(0.95),
            p99: rank(0.99),
            max: rank(1.0),
        }
    }
}

/// Microseconds of a duration, saturating.
pub(super) fn micros(d: std::time::Duration) -> u32 {
    u32::try_from(d.as_micros()).unwrap_or(u32::MAX)
}

/// CPU used by the server and by this client during a phase, as a share of one core.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub(super) struct CpuUse {
    /// Server CPU seconds per wall second (2.0 = two cores busy).
    pub server: f64,
    /// Client (this process) CPU seconds per wall second.
    pub client: f64,
}

/// CPU seconds used by the server and by this client over some wall time (possibly summed
/// over several windows).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct CpuTotals {
    server: f64,
    client: f64,
    wall: f64,
}

impl CpuTotals {
    /// Adds another measurement.
    pub(super) fn add(&mut self, other: CpuTotals) {
        self.server += other.server;
        self.client += other.client;
        self.wall += other.wall;
    }

    /// CPU seconds per wall second.
    pub(super) fn usage(&self) -> CpuUse {
        let wall = self.wall.max(1e-9);
        CpuUse {
            server: round2(self.server / wall),
            client: round2(self.client / wall),
        }
    }
}

/// Measures CPU use between [`CpuMeter::start`] and [`CpuMeter::stop`].
pub(super) struct CpuMeter {
    at: std::time::Instant,
    server: f64,
    client: f64,
}

impl CpuMeter {
    /// Starts measuring.
    pub(super) fn start(server: &ChildServer) -> CpuMeter {
        CpuMeter {
            at: std::time::Instant::now(),
            server: server.cpu_seconds(),
            client: own_cpu_seconds(),
        }
    }

    /// The CPU seconds used since [`CpuMeter::start`].
    pub(super) fn stop(&self, server: &ChildServer) -> CpuTotals {
        CpuTotals {
            server: server.cpu_seconds() - self.server,
            client: own_cpu_seconds() - self.client,
            wall: self.at.elapsed().as_secs_f64(),
        }
    }
}

/// Rounds to two decimals (for printing and JSON).
pub(super) fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let samples: Vec<u32> = (1..=100).rev().map(|ms| ms * 1000).collect();
        let l = Latency::of(samples);
        assert_eq!((l.p50, l.p95, l.p99, l.max), (50.0, 95.0, 99.0, 100.0));
        let one = Latency::of(vec![1500]);
        assert_eq!((one.p50, one.p99), (1.5, 1.5));
        assert_eq!(Latency::of(Vec::new()).p99, 0.0);
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut rng = Rng::new(7);
        let mut seen = [0u32; 5];
        for _ in 0..1000 {
            seen[rng.below(5)] += 1;
        }
        assert!(seen.iter().all(|&n| n > 100), "{seen:?}");
    }
}
