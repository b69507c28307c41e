//! A stdio server's connection: its child process and the JSON lines it
//! exchanges with it — rmcp's `TokioChildProcess`, with a limit of the
//! gateway's own on one message from the server. rmcp's stdio transport drops
//! a line over 16 MiB in silence, so the call it answered waits out the
//! timeout; here the limit is [`MAX_MESSAGE`] by default
//! ([`GatewayOptions::max_message`](crate::GatewayOptions::max_message)), and
//! an answer over it is skimmed for its `id` (never buffered) and delivered as
//! a JSON-RPC error naming the limit, at once; the connection goes on.

use std::sync::Arc;
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{ErrorData, JsonRpcMessage, RequestId, ServerJsonRpcMessage};
use rmcp::service::TxJsonRpcMessage;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};

/// The default limit on one message from a stdio server: 64 MiB.
pub const MAX_MESSAGE: usize = 64 << 20;

/// The mark an answer over the limit carries in its error's `data`.
pub(crate) const TOO_LARGE: &str = "message_too_large";

/// How long a server may take to exit once its stdin is closed, and again after SIGTERM.
const EXIT_WAIT: Duration = Duration::from_secs(3);

/// A running stdio server as an rmcp client transport.
pub(crate) struct Child {
    process: tokio::process::Child,
    read: BufReader<ChildStdout>,
    /// The line being read (never longer than `limit`).
    line: Vec<u8>,
    /// The line being dropped for its size, while its tail is read.
    skim: Option<Skim>,
    write: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    limit: usize,
}

impl Child {
    /// Starts `command` with piped stdin and stdout (its stderr as the caller set it),
    /// killed if the connection is dropped.
    pub(crate) fn spawn(mut command: tokio::process::Command, limit: usize) -> std::io::Result<Child> {
        command.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).kill_on_drop(true);
        let mut process = command.spawn()?;
        let (Some(stdin), Some(stdout)) = (process.stdin.take(), process.stdout.take()) else {
            return Err(std::io::Error::other("the child's stdio was not piped"));
        };
        Ok(Child { process, read: BufReader::with_capacity(64 << 10, stdout), line: Vec::new(), skim: None, write: Arc::new(tokio::sync::Mutex::new(Some(stdin))), limit: limit.max(1) })
    }

    /// Reads up to the end of the next line. Cancel-safe: what was read stays in `self`.
    async fn next_line(&mut self) -> Line {
        loop {
            let available = match self.read.fill_buf().await {
                Ok(available) => available,
                Err(e) => return Line::Io(e),
            };
            if available.is_empty() {
                return Line::Eof;
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            let chunk = &available[..take];
            if let Some(skim) = &mut self.skim {
                skim.feed(chunk);
            } else if self.line.len().saturating_add(take) > self.limit {
                let mut skim = Skim::default();
                skim.feed(&self.line);
                skim.feed(chunk);
                self.line = Vec::new();
                self.skim = Some(skim);
            } else {
                self.line.extend_from_slice(chunk);
            }
            self.read.consume(take);
            if newline.is_some() {
                return match self.skim.take() {
                    Some(skim) => Line::TooLong(skim),
                    None => Line::Whole,
                };
            }
        }
    }

    /// The error delivered for an answer of `size` bytes that was dropped.
    fn too_large(&self, size: usize, id: RequestId) -> ServerJsonRpcMessage {
        let message = format!("the server's answer ({size} bytes) exceeds the gateway's limit of {} for one message from a server; it was dropped", bytes(self.limit));
        JsonRpcMessage::error(ErrorData::internal_error(message, Some(json!({ "toolseal": TOO_LARGE, "limit": self.limit, "size": size }))), Some(id))
    }

    /// Closes stdin and waits for the server to exit; SIGTERM, then SIGKILL, if it does not.
    async fn stop(&mut self) -> std::io::Result<()> {
        drop(self.write.lock().await.take());
        if let Ok(exited) = tokio::time::timeout(EXIT_WAIT, self.process.wait()).await {
            return exited.map(drop);
        }
        #[cfg(unix)]
        if let Some(pid) = self.process.id().and_then(|pid| i32::try_from(pid).ok()) {
            let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGTERM);
            if let Ok(exited) = tokio::time::timeout(EXIT_WAIT, self.process.wait()).await {
                return exited.map(drop);
            }
        }
        self.process.kill().await
    }
}

/// What [`Child::next_line`] read.
enum Line {
    /// A line within the limit, in `line`.
    Whole,
    /// A line over the limit, dropped: what was seen of it.
    TooLong(Skim),
    Eof,
    Io(std::io::Error),
}

/// `size` for people: whole MiB as such, anything else in bytes.
pub(crate) fn bytes(size: usize) -> String {
    if size >= 1 << 20 && size.is_multiple_of(1 << 20) { format!("{} MiB", size >> 20) } else { format!("{size} bytes") }
}

impl rmcp::transport::Transport<RoleClient> for Child {
    type Error = std::io::Error;

    fn send(&mut self, item: TxJsonRpcMessage<RoleClient>) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let encoded = serde_json::to_vec(&item).map_err(std::io::Error::other);
        let write = self.write.clone();
        async move {
            let mut encoded = encoded?;
            encoded.push(b'\n');
            let mut write = write.lock().await;
            let Some(stdin) = write.as_mut() else {
                return Err(std::io::Error::new(std::io::ErrorKind::NotConnected, "the server's stdin is closed"));
            };
            stdin.write_all(&encoded).await?;
            stdin.flush().await
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        loop {
            match self.next_line().await {
                Line::Whole => {}
                Line::TooLong(skim) => match skim.id() {
                    Some(id) if !skim.method => {
                        tracing::warn!(target: "toolseal::gateway", size = skim.size, limit = self.limit, "a server's answer is over the limit; it is answered an error");
                        return Some(self.too_large(skim.size, id));
                    }
                    _ => {
                        tracing::warn!(target: "toolseal::gateway", size = skim.size, limit = self.limit, "a server's message (not an answer to a request) is over the limit; dropped");
                        continue;
                    }
                },
                Line::Eof => return None,
                Line::Io(e) => {
                    tracing::warn!(target: "toolseal::gateway", "reading from a server failed: {e}");
                    return None;
                }
            }
            let parsed = parse(&self.line);
            if self.line.capacity() > 1 << 20 {
                self.line = Vec::new();
            } else {
                self.line.clear();
            }
            if let Some(message) = parsed {
                return Some(message);
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.stop().await
    }
}

/// One line from a server as a message: `None` for a blank line, a notification rmcp does not
/// know, or what is not JSON-RPC. An answer to a request that rmcp cannot read is delivered as
/// an error for its `id`, so its call does not wait out the timeout.
fn parse(line: &[u8]) -> Option<ServerJsonRpcMessage> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let error = match serde_json::from_slice::<ServerJsonRpcMessage>(line) {
        Ok(message) => return Some(message),
        Err(e) => e,
    };
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(_) => {
            tracing::debug!(target: "toolseal::gateway", "a server sent a line that is not JSON: ignored");
            return None;
        }
    };
    match (value.get("method"), value.get("id").and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok())) {
        (None, Some(id)) => {
            tracing::warn!(target: "toolseal::gateway", "a server's answer cannot be read: {error}");
            Some(JsonRpcMessage::error(ErrorData::internal_error(format!("the server's answer cannot be read: {error}"), None), Some(id)))
        }
        _ => {
            tracing::debug!(target: "toolseal::gateway", "a server's message cannot be read ({error}): ignored");
            None
        }
    }
}

/// What is learnt of a message too large to keep, reading it byte by byte:
/// its top-level `id` (raw JSON), whether it has a top-level `method`, and its size.
#[derive(Default)]
struct Skim {
    size: usize,
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// A top-level key may start here.
    expect_key: bool,
    /// Reading a top-level key into `key`.
    in_key: bool,
    key: Vec<u8>,
    /// Reading the top-level `id`'s value into `id`.
    in_id: bool,
    id: Vec<u8>,
    method: bool,
}

impl Skim {
    /// The longest `id` kept.
    const MAX_ID: usize = 256;

    fn feed(&mut self, bytes: &[u8]) {
        self.size += bytes.len();
        for &b in bytes {
            self.byte(b);
        }
    }

    fn keep(&mut self, b: u8) {
        if self.in_id && self.id.len() <= Self::MAX_ID {
            self.id.push(b);
        } else if self.in_key && self.key.len() <= 16 {
            self.key.push(b);
        }
    }

    fn byte(&mut self, b: u8) {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                if self.in_key {
                    self.in_key = false;
                    return;
                }
            }
            self.keep(b);
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.expect_key {
                    self.expect_key = false;
                    self.in_key = true;
                    self.key.clear();
                } else {
                    self.keep(b);
                }
            }
            b'{' | b'[' => {
                self.keep(b);
                self.depth += 1;
                self.expect_key = self.depth == 1 && b == b'{';
            }
            b'}' | b']' if self.depth == 1 => {
                self.in_id = false;
                self.depth = 0;
            }
            b'}' | b']' => {
                self.keep(b);
                self.depth = self.depth.saturating_sub(1);
            }
            b',' if self.depth == 1 => {
                self.in_id = false;
                self.expect_key = true;
            }
            b':' if self.depth == 1 && !self.in_id => match self.key.as_slice() {
                b"id" => {
                    self.in_id = true;
                    self.id.clear();
                }
                b"method" => self.method = true,
                _ => {}
            },
            _ => self.keep(b),
        }
    }

    /// The top-level `id`, if there was one that is a JSON-RPC id.
    fn id(&self) -> Option<RequestId> {
        if self.id.len() > Self::MAX_ID {
            return None;
        }
        serde_json::from_slice(self.id.trim_ascii()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skim(text: &str) -> (Option<RequestId>, bool) {
        let mut skim = Skim::default();
        for chunk in text.as_bytes().chunks(3) {
            skim.feed(chunk);
        }
        (skim.id(), skim.method)
    }

    #[test]
    fn the_top_level_id_is_found_wherever_it_is() {
        let number = RequestId::Number(7);
        assert_eq!(skim(r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"x"}]}}"#), (Some(number.clone()), false));
        assert_eq!(skim(r#"{"result":{"id":1,"text":"a \"id\": 2, }"},"jsonrpc":"2.0", "id" : 7 }"#), (Some(number), false));
        assert_eq!(skim(r#"{"result":{"x":[1,{"id":3}]},"id":"a\"b"}"#), (Some(RequestId::String("a\"b".into())), false));
        assert_eq!(skim(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"id":4}}"#), (None, true));
        assert_eq!(skim(r#"{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage"}"#), (Some(RequestId::Number(5)), true));
        assert_eq!(skim(r#"{"jsonrpc":"2.0","result":{}}"#), (None, false));
        assert_eq!(skim(r#"{"id":{"x":1},"result":{}}"#).0, None, "not an id");
    }

    #[test]
    fn sizes_are_named_in_mib_when_whole() {
        assert_eq!(bytes(64 << 20), "64 MiB");
        assert_eq!(bytes(1000), "1000 bytes");
        assert_eq!(bytes((1 << 20) + 1), "1048577 bytes");
    }
}
