//! One error type for the whole host side: a sentence a user can act on.

use std::fmt;

/// What went wrong, in words (the CLI prints it as one line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(String);

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Error(message.into())
    }

    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// Adds what we were doing to a CUDA error: "launching sgemm_naive: an
/// illegal memory access was encountered (IllegalAddress)".
pub trait Context<T> {
    fn context(self, doing: impl fmt::Display) -> Result<T>;
}

impl<T> Context<T> for cust::error::CudaResult<T> {
    fn context(self, doing: impl fmt::Display) -> Result<T> {
        self.map_err(|e| Error(format!("{doing}: {e} ({e:?})")))
    }
}
