//! Long computations run as jobs: perft and mate-in-N puzzles, owned by a supervisor, run on a
//! pool off the HTTP threads, kept in the store (a result is answered again for the same
//! request, and a restart resumes unfinished jobs), and, for perft, counted by workers too
//! ([`workers`]). Domain parameters in, the core's own values out; the JSON is
//! `api/wire/jobs.rs`'s.

pub(crate) mod chess2_perft_job;
pub(crate) mod error;
pub(crate) mod limits;
pub(crate) mod perft_job;
pub(crate) mod puzzle_job;
pub mod record;
pub(crate) mod state;
pub(crate) mod supervisor;
pub mod workers;

pub use error::{JobEnd, JobError};
pub use limits::JobLimits;
