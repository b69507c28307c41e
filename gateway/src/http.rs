//! Streamable HTTP at `/mcp`: sessions for clients up to 2025-11-25,
//! stateless requests for 2026-07-28, `Host` checked against the allowed
//! hosts, `Origin` (when sent) against the allowed origins, and a bearer
//! token on every request when one is configured (required by the command
//! for any address but loopback). A body that is not one JSON-RPC message is
//! answered a JSON-RPC error (−32700, −32600), as is an `initialize` on a live
//! session; a connection that does not send a request's headers within
//! 10 s is closed, and one beyond [`HttpOptions::max_connections`] open at
//! once is answered 503 and closed. At shutdown the answers of calls in
//! flight (that the gateway is shutting down) are written before the streams end.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest};
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::caller::{Caller, Tokens};
use super::{Gateway, GatewayError};

/// The largest request body accepted (a call over the resolver's 1 MiB limit is refused with a clear error before it).
const MAX_BODY: usize = 2 << 20;

/// How the gateway serves HTTP.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// A token a request may carry as `Authorization: Bearer …` to call as the local principal. When it or any
    /// principal of the manifest has a token, every request must carry one of them (401 otherwise).
    pub bearer: Option<String>,
    /// `Host` values accepted (DNS-rebinding protection); empty: loopback names only.
    pub allowed_hosts: Vec<String>,
    /// Browser origins (`scheme://host[:port]`) accepted as `Origin` besides the loopback ones of the bound port
    /// (`http://127.0.0.1:PORT`, `http://localhost:PORT`, `http://[::1]:PORT`); a request that carries any other
    /// `Origin` is answered 403, one without `Origin` (not from a browser) is not checked.
    pub allowed_origins: Vec<String>,
    /// The most connections open at once (default [`HttpOptions::DEFAULT_MAX_CONNECTIONS`]); one more is answered
    /// 503 and closed at once, so a flood of idle connections cannot use up the process's file descriptors.
    pub max_connections: usize,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions { bearer: None, allowed_hosts: Vec::new(), allowed_origins: Vec::new(), max_connections: HttpOptions::DEFAULT_MAX_CONNECTIONS }
    }
}

impl HttpOptions {
    /// The default of [`HttpOptions::max_connections`]: 256.
    pub const DEFAULT_MAX_CONNECTIONS: usize = 256;

    /// Checks what can be checked before serving: every allowed origin is `http(s)://host[:port]`, and at least one
    /// connection is allowed.
    pub fn check(&self) -> Result<(), GatewayError> {
        if self.max_connections == 0 {
            return Err(GatewayError::Serve("at least one connection must be allowed (max_connections 0)".to_owned()));
        }
        self.allowed_origins.iter().try_for_each(|o| origin(o).map(drop))
    }
}

/// How long a connection may take to send a request's headers (from when it opens, or its previous response ends)
/// before it is closed.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// The most requests one HTTP/2 connection may have in flight at once.
const H2_STREAMS: u32 = 16;

/// A web origin serialised as compared: `scheme://host:port`, scheme and host in lower case, the port always
/// written (80 or 443 when omitted), an IPv6 host in its canonical form. Nothing else (no path, no user, no `null`).
fn origin(value: &str) -> Result<String, GatewayError> {
    let invalid = || GatewayError::Serve(format!("not an origin (http[s]://host[:port]): {value:?}"));
    let (scheme, rest) = value.split_once("://").ok_or_else(invalid)?;
    let scheme = scheme.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => 80,
        "https" => 443,
        _ => return Err(invalid()),
    };
    let (host, port) = if let Some(bracketed) = rest.strip_prefix('[') {
        let (address, after) = bracketed.split_once(']').ok_or_else(invalid)?;
        (format!("[{}]", address.parse::<std::net::Ipv6Addr>().map_err(|_| invalid())?), after)
    } else {
        let end = rest.find(':').unwrap_or(rest.len());
        let host = &rest[..end];
        if host.is_empty() || !host.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_')) {
            return Err(invalid());
        }
        (host.to_ascii_lowercase(), &rest[end..])
    };
    let port = match port.strip_prefix(':') {
        None if port.is_empty() => default_port,
        Some(digits) if (1..=5).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) => digits.parse::<u16>().map_err(|_| invalid())?,
        _ => return Err(invalid()),
    };
    Ok(format!("{scheme}://{host}:{port}"))
}

/// The origins accepted at `port`: the loopback ones, then `extra` (each already checked).
fn allowed_origins(port: u16, extra: &[String]) -> Result<Vec<String>, GatewayError> {
    let mut origins = vec![format!("http://127.0.0.1:{port}"), format!("http://localhost:{port}"), format!("http://[::1]:{port}")];
    for given in extra {
        origins.push(origin(given)?);
    }
    Ok(origins)
}

/// Compares without stopping at the first difference.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A request must carry one of the tokens; it is then made by the principal that token names.
async fn bearer(State(tokens): State<Tokens>, mut request: Request, next: Next) -> Response {
    let given = request.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
    // Every token is compared, whichever matches.
    let caller = given.and_then(|g| tokens.iter().fold(None, |found, (token, name)| if same(g.as_bytes(), token.as_bytes()) { Some(name.clone()) } else { found }));
    match caller {
        Some(name) => {
            request.extensions_mut().insert(Caller(name));
            next.run(request).await
        }
        None => (StatusCode::UNAUTHORIZED, [(header::WWW_AUTHENTICATE, "Bearer")], "a bearer token is required").into_response(),
    }
}

/// A request carrying `Origin` must carry one allowed origin (DNS rebinding, cross-site requests from a browser).
async fn origin_check(State(allowed): State<Arc<[String]>>, request: Request, next: Next) -> Response {
    let mut given = request.headers().get_all(header::ORIGIN).iter();
    let allowed = match (given.next(), given.next()) {
        (None, _) => true,
        (Some(value), None) => value.to_str().ok().and_then(|v| origin(v).ok()).is_some_and(|o| allowed.contains(&o)),
        (Some(_), Some(_)) => false,
    };
    if allowed { next.run(request).await } else { (StatusCode::FORBIDDEN, "Forbidden: Origin is not allowed").into_response() }
}

/// An HTTP 400 answer carrying a JSON-RPC error.
fn jsonrpc_error(id: Value, code: i64, message: String) -> Response {
    let body = json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } });
    (StatusCode::BAD_REQUEST, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

/// Whether the request says its body is JSON (otherwise rmcp answers 415).
fn is_json(headers: &HeaderMap) -> bool {
    headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.split(';').next().unwrap_or_default().trim().eq_ignore_ascii_case("application/json"))
}

/// The body, up to [`MAX_BODY`] bytes (413 beyond).
async fn read_body(mut body: Body) -> Result<Bytes, Response> {
    let too_large = || (StatusCode::PAYLOAD_TOO_LARGE, format!("Payload Too Large: request body exceeds {MAX_BODY} bytes")).into_response();
    let mut collected = Vec::new();
    while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
        let frame = frame.map_err(|e| (StatusCode::BAD_REQUEST, format!("Bad Request: cannot read the body: {e}")).into_response())?;
        if let Ok(data) = frame.into_data() {
            if data.len() > MAX_BODY - collected.len() {
                return Err(too_large());
            }
            collected.extend_from_slice(&data);
        }
    }
    Ok(Bytes::from(collected))
}

/// A JSON POST body must be one JSON-RPC message (−32700 when it is not JSON, −32600 when it is not a message), and
/// an `initialize` request must not reach a live session (its owner's session would change under it).
async fn message_check(State(sessions): State<Arc<LocalSessionManager>>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST || !is_json(request.headers()) {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match read_body(body).await {
        Ok(bytes) => bytes,
        Err(response) => return response,
    };
    match serde_json::from_slice::<ClientJsonRpcMessage>(&bytes) {
        Ok(ClientJsonRpcMessage::Request(request)) if matches!(request.request, ClientRequest::InitializeRequest(_)) || request.request.method() == "initialize" => {
            let session = parts.headers.get("mcp-session-id").and_then(|v| v.to_str().ok());
            if let Some(session) = session
                && sessions.has_session(&session.into()).await.unwrap_or(false)
            {
                let id = serde_json::to_value(&request.id).unwrap_or(Value::Null);
                return jsonrpc_error(id, -32600, "Invalid Request: Server already initialized".to_owned());
            }
        }
        Ok(_) => {}
        // Not a message: is it JSON at all?
        Err(e) => {
            return match serde_json::from_slice::<Value>(&bytes) {
                Ok(value) => {
                    let id = value.get("id").filter(|id| id.is_string() || id.is_number()).cloned().unwrap_or(Value::Null);
                    jsonrpc_error(id, -32600, format!("Invalid Request: not a JSON-RPC message: {e}"))
                }
                Err(e) => jsonrpc_error(Value::Null, -32700, format!("Parse error: {e}")),
            };
        }
    }
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

/// Counts the POST requests whose answers are not written yet (their response bodies not dropped yet): at shutdown,
/// rmcp's streams end only once these answers are out.
#[derive(Default)]
struct Busy {
    count: AtomicUsize,
    idle: tokio::sync::Notify,
}

impl Busy {
    /// Resolves when no answer is being written.
    async fn idle(&self) {
        loop {
            let notified = self.idle.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.count.load(Ordering::SeqCst) == 0 {
                return;
            }
            notified.await;
        }
    }
}

/// One answer being written, counted in [`Busy`] until dropped.
struct Answering(Arc<Busy>);

impl Answering {
    fn new(busy: Arc<Busy>) -> Answering {
        busy.count.fetch_add(1, Ordering::SeqCst);
        Answering(busy)
    }
}

impl Drop for Answering {
    fn drop(&mut self) {
        if self.0.count.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

/// A response body that keeps its request counted until hyper drops it (written whole, or the connection gone).
struct Counted {
    body: Body,
    _answering: Answering,
}

impl HttpBody for Counted {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<hyper::body::Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

/// Counts every POST in [`Busy`] until its answer is written.
async fn count_answers(State(busy): State<Arc<Busy>>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let answering = Answering::new(busy);
    next.run(request).await.map(|body| Body::new(Counted { body, _answering: answering }))
}

/// Serves `gateway` until it shuts down.
pub(super) async fn serve(gateway: Gateway, listener: tokio::net::TcpListener, options: HttpOptions) -> Result<(), GatewayError> {
    let port = listener.local_addr().map_err(|e| GatewayError::Serve(e.to_string()))?.port();
    let origins: Arc<[String]> = allowed_origins(port, &options.allowed_origins)?.into();
    let stop = gateway.core.shutdown.clone();
    // rmcp's streams and sessions end with this token: at shutdown, once the answers in flight are written.
    let streams = CancellationToken::new();
    let _end_streams = streams.clone().drop_guard();
    // Sessions for clients before 2026-07-28; a 2026-07-28 request is served alone, and its
    // answer is one JSON body when nothing comes before it (an event stream otherwise).
    let mut config = StreamableHttpServerConfig::default().with_legacy_session_mode(true).with_json_response(true).with_cancellation_token(streams.clone()).with_max_request_body_bytes(MAX_BODY);
    if !options.allowed_hosts.is_empty() {
        config = config.with_allowed_hosts(options.allowed_hosts.clone());
    }
    let factory = gateway.clone();
    let sessions = Arc::new(LocalSessionManager::default());
    let service = StreamableHttpService::new(move || Ok(factory.service()), sessions.clone(), config);
    // Layers run outermost last: Origin, then the token, then the body.
    let mut router = axum::Router::new().route_service("/mcp", service).layer(axum::middleware::from_fn_with_state(sessions, message_check));
    let tokens = gateway.core.callers.tokens(options.bearer.as_deref());
    if !tokens.is_empty() {
        router = router.layer(axum::middleware::from_fn_with_state(tokens, bearer));
    }
    let busy = Arc::new(Busy::default());
    let router = router.layer(axum::middleware::from_fn_with_state(origins, origin_check)).layer(axum::middleware::from_fn_with_state(busy.clone(), count_answers));
    let mut all_closed = accept(listener, router, stop, options.max_connections.max(1)).await;
    // The answers in flight (those of calls cut by the shutdown among them) go out before rmcp ends its streams;
    // then every connection finishes.
    let _ = tokio::time::timeout(super::DRAIN, busy.idle()).await;
    streams.cancel();
    let _ = tokio::time::timeout(super::DRAIN, all_closed.recv()).await;
    Ok(())
}

/// Answers a connection over the cap 503 and closes it, without reading from it or waiting on it.
fn refuse(stream: &tokio::net::TcpStream, max_connections: usize) {
    let body = format!("Service Unavailable: the gateway has {max_connections} connections open, its most\n");
    let answer = format!("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n{body}", body.len());
    let _ = stream.try_write(answer.as_bytes());
}

/// Serves HTTP/1.1 and HTTP/2 connections, at most `max_connections` at once (one more is refused), until `stop`; then asks the
/// open ones to finish (a stream ends when rmcp's token is cancelled). What it returns hears when all have closed.
/// Unlike `axum::serve`, every connection has a header read timeout.
async fn accept(listener: tokio::net::TcpListener, router: axum::Router, stop: CancellationToken, max_connections: usize) -> tokio::sync::mpsc::Receiver<()> {
    let service = hyper_util::service::TowerToHyperService::new(router);
    let permits = Arc::new(tokio::sync::Semaphore::new(max_connections.min(tokio::sync::Semaphore::MAX_PERMITS)));
    let (open, all_closed) = tokio::sync::mpsc::channel::<()>(1);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of file descriptors and the like: wait rather than spin.
                    if !matches!(e.kind(), std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::ConnectionAborted | std::io::ErrorKind::ConnectionReset) {
                        tracing::warn!("accepting a connection failed: {e}");
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                    continue;
                }
            },
            () = stop.cancelled() => break,
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            tracing::debug!(target: "toolseal::gateway", max_connections, "a connection over the cap was refused");
            refuse(&stream, max_connections);
            continue;
        };
        // A response goes out in pieces (headers, then events): without this, Nagle's algorithm holds the last piece
        // until the client's delayed ACK, 40 ms per call on a keep-alive connection.
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(target: "toolseal::gateway", "TCP_NODELAY could not be set: {e}");
        }
        let (service, stop, open) = (service.clone(), stop.clone(), open.clone());
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(stream);
            match speaks_http2(io.inner()).await {
                // Nothing said within the header timeout: closed.
                None => {}
                Some(false) => {
                    let mut builder = hyper::server::conn::http1::Builder::new();
                    builder.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(HEADER_READ_TIMEOUT);
                    let connection = builder.serve_connection(io, service);
                    until_stopped(connection, stop, |c| c.graceful_shutdown()).await;
                }
                Some(true) => {
                    // A peer that stops answering pings is closed; streams per connection are few, so the
                    // connection cap still bounds the requests in flight.
                    let mut builder = hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new());
                    builder.timer(hyper_util::rt::TokioTimer::new()).keep_alive_interval(Some(HEADER_READ_TIMEOUT)).keep_alive_timeout(HEADER_READ_TIMEOUT).max_concurrent_streams(H2_STREAMS);
                    let connection = builder.serve_connection(io, service);
                    until_stopped(connection, stop, |c| c.graceful_shutdown()).await;
                }
            }
            drop(permit);
            drop(open);
        });
    }
    all_closed
}

/// Whether a new connection speaks HTTP/2 (cleartext, prior knowledge: it opens with the HTTP/2 preface) or
/// HTTP/1.1; `None` when it sends nothing within the header timeout (or closes).
async fn speaks_http2(stream: &tokio::net::TcpStream) -> Option<bool> {
    const PREFACE: &[u8] = b"PRI * HTTP/2.0";
    let deadline = tokio::time::Instant::now() + HEADER_READ_TIMEOUT;
    let mut first = [0; PREFACE.len()];
    loop {
        let n = tokio::time::timeout_at(deadline, stream.peek(&mut first)).await.ok()?.ok()?;
        if n == 0 {
            return None;
        }
        if first[..n] != PREFACE[..n] {
            return Some(false);
        }
        if n == PREFACE.len() {
            return Some(true);
        }
        // The start of the preface: the rest is on its way (looked for again a little later, until the deadline).
        if tokio::time::Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Serves one connection until it ends, or until the gateway stops (then gracefully: answers in flight are written).
async fn until_stopped<C: Future>(connection: C, stop: CancellationToken, shutdown: impl FnOnce(std::pin::Pin<&mut C>)) {
    let mut connection = std::pin::pin!(connection);
    tokio::select! {
        _ = connection.as_mut() => {}
        () = stop.cancelled() => {
            shutdown(connection.as_mut());
            let _ = connection.await;
        }
    }
}
