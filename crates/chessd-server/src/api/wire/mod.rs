//! What the API's bodies and answers look like where several routes (or the command line) share
//! them: moves, jobs, perft statistics, mate solutions.

pub(crate) mod jobs;
pub(crate) mod moves;
pub mod perft;
pub mod solution;
pub mod stipulation;
