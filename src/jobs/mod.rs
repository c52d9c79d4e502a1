//! Long computations run as jobs: perft and mate-in-N puzzles, owned by a supervisor, run on a
//! pool off the HTTP threads, and Grand Chess Tree workers they can hand perft tasks to.

pub mod error;
pub mod gct;
pub mod limits;
pub mod perft_job;
pub mod puzzle_job;
pub mod solution;
pub mod supervisor;
pub mod view;
pub mod workers;

pub use error::{JobEnd, JobError};
pub use limits::JobLimits;
