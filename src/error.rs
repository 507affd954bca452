//! One error type for the whole host side: a sentence a user can act on.

use std::fmt;

/// What went wrong, in words (the CLI prints it as one line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    message: String,
    /// The machine has no usable CUDA GPU (no driver or no device): the CLI
    /// reports this with its own exit code, after running what needs no GPU.
    no_gpu: bool,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Error { message: message.into(), no_gpu: false }
    }

    /// There is no CUDA GPU to run on (as opposed to a GPU that failed).
    pub fn no_gpu(message: impl Into<String>) -> Self {
        Error { message: message.into(), no_gpu: true }
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    /// Whether this error says that no CUDA GPU is available.
    pub fn is_no_gpu(&self) -> bool {
        self.no_gpu
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
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
        self.map_err(|e| Error::new(format!("{doing}: {e} ({e:?})")))
    }
}
