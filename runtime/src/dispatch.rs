//! What a `#[toolseal::toolset]` dispatcher returns when a call does not produce output.

/// Why `dispatch` produced no output: the tool failed, or its output is not JSON.
#[derive(Debug, thiserror::Error)]
pub enum DispatchError<E> {
    /// The tool's own error, with its type kept.
    #[error("the tool failed: {0}")]
    Tool(E),
    /// The tool's output could not be serialized to JSON.
    #[error("the tool's output is not JSON: {0}")]
    Output(#[source] serde_json::Error),
}

/// A tool's output as JSON, for the dispatcher.
pub fn output_value<T: serde::Serialize + ?Sized, E>(output: &T) -> Result<serde_json::Value, DispatchError<E>> {
    serde_json::to_value(output).map_err(DispatchError::Output)
}
