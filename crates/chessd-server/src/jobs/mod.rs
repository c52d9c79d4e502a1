//! Long computations run as jobs: perft and mate-in-N puzzles, owned by a supervisor, run on a
//! pool off the HTTP threads, and Grand Chess Tree workers they can hand perft tasks to; in a
//! cluster, a shared queue of perft tasks that every node and remote worker takes from.
//!
//! Jobs and their results are kept in the store (see [`supervisor`] and [`record`]): a result
//! is answered again for the same request, and a restart resumes unfinished jobs.
//!
//! The layer takes domain parameters ([`perft_job::PerftParams`], [`puzzle_job::PuzzleParams`])
//! and answers with the core's own values ([`state::JobSnapshot`]); the JSON bodies and views
//! of jobs are the API's (`api/jobs_wire.rs`).

pub mod chess2_perft_job;
pub mod error;
pub mod limits;
pub mod perft_job;
pub mod puzzle_job;
pub mod record;
pub mod state;
pub mod supervisor;
pub mod workers;

pub use error::{JobEnd, JobError};
pub use limits::JobLimits;
