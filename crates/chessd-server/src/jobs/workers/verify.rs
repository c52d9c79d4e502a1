//! Checking remote workers' perft task results before a job is accepted: a random sample of
//! each remote worker's results (`cluster.verify_percent`) is counted again on the job's node.
//! Results of the cluster's nodes themselves (their queue workers) are trusted: they run this
//! very code.

use std::{collections::BTreeMap, sync::atomic::AtomicBool};

use chessd_core::perft::PerftStats;
use uuid::Uuid;

use super::queue_worker;
use crate::jobs::error::JobError;

/// A task result handed over by a remote worker.
#[derive(Clone, Debug)]
pub(crate) struct RemoteResult {
    /// The task's index in the job's split.
    pub index: usize,
    /// The task's position (FEN).
    pub fen: String,
    /// Plies counted below it.
    pub depth: u32,
    /// Who submitted it (`worker:NAME`).
    pub worker: String,
    /// What it submitted.
    pub stats: PerftStats,
}

/// What checking found, when no result differed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Checked {
    /// Results counted again (and equal).
    pub recounted: usize,
    /// Results left unchecked.
    pub unchecked: usize,
}

/// How many of `n` results of one worker are counted again: `percent` percent rounded up, at
/// least one (none of none).
pub(crate) fn sample_size(n: usize, percent: u32) -> usize {
    if n == 0 {
        return 0;
    }
    (n * percent as usize).div_ceil(100).clamp(1, n)
}

/// Counts again a random sample of each worker's `results` (`stats`: whether the statistics
/// are compared, else the nodes only). `Err(ResultMismatch)` at the first difference; `Ok`
/// with the numbers checked otherwise (also when `cancel` stops the checking: the job ends
/// cancelled anyway).
///
/// Any difference fails the job with `result_mismatch`: a worker that submits wrong counts is
/// caught with a probability that grows with every wrong result it submits (all of them, at
/// least one: certainly); results that were not counted again leave the job *unverified*: its
/// result is never answered to later requests.
pub(crate) fn check(
    results: &[RemoteResult],
    stats: bool,
    percent: u32,
    cancel: &AtomicBool,
) -> Result<Checked, JobError> {
    let mut by_worker: BTreeMap<&str, Vec<&RemoteResult>> = BTreeMap::new();
    for r in results {
        by_worker.entry(r.worker.as_str()).or_default().push(r);
    }
    let tables = queue_worker::TaskTables::new(0);
    let mut recounted = 0;
    for (worker, mut mine) in by_worker {
        // A random order (UUIDs are random), then the first ones.
        let mut keyed: Vec<(u128, &RemoteResult)> = mine
            .drain(..)
            .map(|r| (Uuid::new_v4().as_u128(), r))
            .collect();
        keyed.sort_unstable_by_key(|(k, _)| *k);
        for (_, r) in keyed.iter().take(sample_size(keyed.len(), percent)) {
            let counted = queue_worker::count_task(&r.fen, r.depth, stats, cancel, &tables)
                .map_err(JobError::Internal)?;
            let Some(own) = counted else {
                return Ok(Checked {
                    recounted,
                    unchecked: results.len() - recounted,
                });
            };
            let same = if stats {
                own == r.stats
            } else {
                own.nodes == r.stats.nodes
            };
            if !same {
                return Err(JobError::ResultMismatch(format!(
                    "task {} ({}, {} plies) from {worker}: {} nodes submitted, {} counted by the \
                     job's node; the job's result would be wrong, so it is not accepted",
                    r.index, r.fen, r.depth, r.stats.nodes, own.nodes
                )));
            }
            recounted += 1;
        }
    }
    Ok(Checked {
        recounted,
        unchecked: results.len() - recounted,
    })
}

#[cfg(test)]
mod tests {
    use chessd_core::{perft, FenMode, Position};

    use super::*;

    fn result(worker: &str, fen: &str, depth: u32, wrong: bool) -> RemoteResult {
        let pos = Position::from_fen(fen, FenMode::Lenient).unwrap();
        let mut stats = perft::perft_stats(&pos, depth);
        if wrong {
            stats.nodes += 1;
        }
        RemoteResult {
            index: 0,
            fen: fen.into(),
            depth,
            worker: worker.into(),
            stats,
        }
    }

    #[test]
    fn samples_are_a_percent_and_at_least_one() {
        assert_eq!(sample_size(0, 5), 0);
        assert_eq!(sample_size(1, 5), 1);
        assert_eq!(sample_size(400, 5), 20);
        assert_eq!(sample_size(3, 100), 3);
        assert_eq!(sample_size(10, 0), 1);
    }

    #[test]
    fn a_wrong_result_fails_and_right_ones_pass() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        let cancel = AtomicBool::new(false);
        let good = [
            result("worker:a", start, 3, false),
            result("worker:b", e4, 3, false),
        ];
        assert_eq!(
            check(&good, true, 5, &cancel),
            Ok(Checked {
                recounted: 2,
                unchecked: 0
            })
        );
        // One worker's only result is wrong: always caught.
        let bad = [
            result("worker:a", start, 3, false),
            result("worker:b", e4, 3, true),
        ];
        let err = check(&bad, true, 5, &cancel).unwrap_err();
        assert_eq!(err.code(), "result_mismatch");
        assert!(err.to_string().contains("worker:b"), "{err}");
    }
}
