//! The one error of both schema compilers (typed and specification): where and why
//! a schema cannot be enforced.

use std::fmt;

/// A schema toolseal cannot compile, with where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// JSON pointer inside the tool's `inputSchema` (or `outputSchema`).
    pub pointer: String,
    /// The keyword at fault.
    pub keyword: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at `#{}`, keyword `{}`: {}", self.pointer, self.keyword, self.message)
    }
}

impl std::error::Error for SchemaError {}

/// `Err` of a [`SchemaError`] at `pointer`, for `keyword`.
pub(crate) fn err<T>(pointer: &str, keyword: &str, message: impl Into<String>) -> Result<T, SchemaError> {
    Err(SchemaError { pointer: pointer.to_owned(), keyword: keyword.to_owned(), message: message.into() })
}
