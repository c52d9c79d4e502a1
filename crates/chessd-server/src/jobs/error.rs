//! Why a job could not be queued, found or run: the jobs layer's own error, with no knowledge
//! of HTTP (the API maps it to a status and a stable code), and how a job ends without a
//! result.

use crate::admission::AdmissionError;

/// A refused or failed job request. Every variant carries the message people read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JobError {
    /// No job with that id and kind (or it was forgotten).
    #[error("{0}")]
    NotFound(String),
    /// The request carried no secret, and this action needs the job's.
    #[error("{0}")]
    Unauthorized(String),
    /// The secret given is not the job's.
    #[error("{0}")]
    Forbidden(String),
    /// A parameter is malformed or out of its domain.
    #[error("{0}")]
    InvalidRequest(String),
    /// The position could not be read.
    #[error("invalid FEN: {0}")]
    Fen(#[from] chessd_core::FenError),
    /// A board that reads but cannot be solved (e.g. the side not to move is in check).
    #[error("{0}")]
    InvalidPosition(String),
    /// A parameter is over a configured limit (depth, threads, hash, mate length, time).
    #[error("{0}")]
    LimitExceeded(String),
    /// A puzzle's stipulation cannot be solved as asked (its N is not `mate_in`, or `find`
    /// was asked for a helpmate or a selfmate).
    #[error("{0}")]
    InvalidStipulation(String),
    /// The server already runs or queues its limit of jobs.
    #[error("{0}")]
    TooManyJobs(String),
    /// The client may not spend more (its rate or quota).
    #[error(transparent)]
    Admission(#[from] AdmissionError),
    /// Something failed inside the server (e.g. the Grand Chess Tree workers).
    #[error("{0}")]
    Internal(String),
    /// The store could not keep the job, so it was not started.
    #[error("{0}")]
    Store(String),
    /// The job ran past `jobs.max_run_secs` and was stopped.
    #[error("{0}")]
    TimedOut(String),
    /// A remote worker's task result differed from the node's own count of that task.
    #[error("{0}")]
    ResultMismatch(String),
}

impl JobError {
    /// The stable name of the failure, as a failed job's `error.code` carries it.
    pub fn code(&self) -> &'static str {
        match self {
            JobError::NotFound(_) => "job_not_found",
            JobError::Unauthorized(_) => "unauthorized",
            JobError::Forbidden(_) => "forbidden",
            JobError::InvalidRequest(_) => "invalid_request",
            JobError::Fen(_) | JobError::InvalidPosition(_) => "invalid_fen",
            JobError::LimitExceeded(_) => "limit_exceeded",
            JobError::InvalidStipulation(_) => "invalid_stipulation",
            JobError::TooManyJobs(_) => "too_many_jobs",
            JobError::Admission(e) => e.code(),
            JobError::Internal(_) => "internal",
            JobError::Store(_) => "store_unavailable",
            JobError::TimedOut(_) => "job_timed_out",
            JobError::ResultMismatch(_) => "result_mismatch",
        }
    }
}

impl From<crate::store::StoreError> for JobError {
    fn from(e: crate::store::StoreError) -> JobError {
        JobError::Store(e.to_string())
    }
}

/// How a job ended without a result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobEnd {
    /// Its cancel flag was set.
    Cancelled,
    /// It failed.
    Failed(JobError),
}
