//! Which queued job starts next: fair shares of the pool between clients.
//!
//! - Each client (an API key, else an address; jobs taken back from the store after a restart
//!   form one client of their own) runs its jobs first in, first out.
//! - When threads free up, the client with the fewest running jobs goes first (ties: the client
//!   whose next job has waited longest), so one client's queue never blocks another's.
//! - The running jobs of one client hold at most `jobs.max_client_threads` pool threads together
//!   (by default the pool less one thread): a job asking for more is given what its client has
//!   left, and a client that holds its share waits while another client's job can start. So a
//!   client can never take every thread while another client's job waits.

/// A queued job, as the choice sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Queued<'a> {
    /// Its client (`None`: a job taken back from the store).
    pub client: Option<&'a str>,
    /// Pool threads it asks for (0: it computes elsewhere, on workers).
    pub threads: usize,
}

/// A running job, as the choice sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Running<'a> {
    /// Its client.
    pub client: Option<&'a str>,
    /// Pool threads it holds.
    pub threads: usize,
}

/// The queued job to start next, by its place in `queue` (oldest first), and the pool threads
/// it is given; `None` when no client may start a job now. Whether the pool has the threads
/// free is the caller's to check.
pub(super) fn next(
    queue: &[Queued<'_>],
    running: &[Running<'_>],
    client_threads: usize,
) -> Option<(usize, usize)> {
    let mut seen: Vec<Option<&str>> = Vec::new();
    let mut best: Option<(usize, usize, usize)> = None; // (running jobs, index, threads)
    for (index, job) in queue.iter().enumerate() {
        if seen.contains(&job.client) {
            continue; // not the client's oldest queued job
        }
        seen.push(job.client);
        let mine = running.iter().filter(|r| r.client == job.client);
        let (jobs, held) = mine.fold((0, 0), |(n, t), r| (n + 1, t + r.threads));
        let granted = if job.threads == 0 {
            0
        } else if held >= client_threads {
            continue; // the client holds its share: others go first
        } else {
            job.threads.min(client_threads - held)
        };
        if best.is_none_or(|(fewest, ..)| jobs < fewest) {
            best = Some((jobs, index, granted));
        }
    }
    best.map(|(_, index, granted)| (index, granted))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(client: &str, threads: usize) -> Queued<'_> {
        Queued {
            client: Some(client),
            threads,
        }
    }

    fn r(client: &str, threads: usize) -> Running<'_> {
        Running {
            client: Some(client),
            threads,
        }
    }

    #[test]
    fn the_client_with_fewest_running_jobs_goes_first_fifo_within_a_client() {
        // A queued three jobs before B's one; A runs one already: B goes first.
        let queue = [q("a", 1), q("a", 1), q("b", 1), q("a", 1)];
        assert_eq!(next(&queue, &[r("a", 1)], 4), Some((2, 1)));
        // Nobody runs: the oldest job.
        assert_eq!(next(&queue, &[], 4), Some((0, 1)));
        // B runs two, A one: A's oldest.
        assert_eq!(
            next(&queue, &[r("a", 1), r("b", 1), r("b", 1)], 4),
            Some((0, 1))
        );
    }

    #[test]
    fn a_client_never_holds_more_than_its_share() {
        let queue = [q("a", 2), q("b", 2)];
        // A asks for the whole pool of 2 with a share of 1: it gets 1.
        assert_eq!(next(&queue[..1], &[], 1), Some((0, 1)));
        // A holds its share: only B may start.
        assert_eq!(next(&queue, &[r("a", 1)], 1), Some((1, 1)));
        assert_eq!(next(&queue[..1], &[r("a", 1)], 1), None);
        // Jobs on workers hold no pool threads: never held back.
        assert_eq!(next(&[q("a", 0)], &[r("a", 1)], 1), Some((0, 0)));
        // Jobs taken back from the store are one client of their own.
        let restored = Queued {
            client: None,
            threads: 1,
        };
        assert_eq!(next(&[restored, q("a", 1)], &[r("a", 1)], 1), Some((0, 1)));
    }
}
