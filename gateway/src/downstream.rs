//! Downstream MCP servers: how one is reached (a stdio child or a Streamable
//! HTTP endpoint), connecting to it over rmcp with any [`ClientHandler`]
//! ([`connect`]) and listing its tools ([`list_tools`], [`Capture`]) — for the
//! gateway and the `toolseal` command alike — and, for the gateway, the
//! connection in force, restarts with backoff when it fails or dies, and the
//! notifications it sends back (`tools/list_changed`, progress).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock, Weak};
use std::time::{Duration, Instant};

use axum::http::{HeaderName, HeaderValue};
use rmcp::model::{ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ErrorData, Implementation, ProgressNotificationParam, ProgressToken, ResourceUpdatedNotificationParam, Tool};
#[allow(deprecated)] // sampling and logging: deprecated by SEP-2577, relayed for servers and clients before 2026-07-28
use rmcp::model::{CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult, ElicitRequest, InputRequest, LoggingMessageNotificationParam};
use rmcp::service::{NotificationContext, Peer, RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient, RoleServer, ServiceExt};
use tokio::sync::Notify;
use toolseal_runtime::mcp::manifest::{DeploymentServer, OAuth, Secrets};

use super::Core;
use super::held::{Ask, Asker};
use super::offered::Offered;
pub use crate::child::MAX_MESSAGE;

/// Why a downstream server could not be reached or listed. The variants
/// are the failures a caller tells apart: the server did not start, did not
/// complete a step, or did not answer in time.
#[derive(Debug, thiserror::Error)]
pub enum DownstreamError {
    /// The command could not be started.
    #[error("cannot start {what}: {source}")]
    Start {
        /// The server, as [`Transport::describe`] says it.
        what: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A step got no answer in time.
    #[error("{what} did not {step} within {secs} s")]
    Timeout {
        /// The server.
        what: String,
        /// What it did not do.
        step: Step,
        /// The wait.
        secs: u64,
    },
    /// A step failed (transport closed, an MCP error, a malformed answer).
    #[error("{what} did not {step}: {message}")]
    Protocol {
        /// The server.
        what: String,
        /// What it did not do.
        step: Step,
        /// rmcp's error, in words.
        message: String,
    },
}

/// A step of reaching a server that can fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The `initialize` handshake.
    Initialize,
    /// `tools/list`, every page of it.
    ListTools,
    /// `prompts/list`, every page of it (a server that offers prompts).
    ListPrompts,
}

impl std::fmt::Display for Step {
    /// What the server did not do: "complete `initialize`", "answer `tools/list`".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Step::Initialize => "complete `initialize`",
            Step::ListTools => "answer `tools/list`",
            Step::ListPrompts => "answer `prompts/list`",
        })
    }
}

/// How a downstream server is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A child process speaking MCP over stdio.
    Command {
        /// The program and its arguments.
        argv: Vec<String>,
        /// Where it runs (the manifest's `cwd`, or its directory).
        cwd: Option<PathBuf>,
        /// What its environment gets on top of this process's own (`env_file`, `env`).
        env: Secrets,
    },
    /// A Streamable HTTP endpoint.
    Http {
        /// Its URL (`http://127.0.0.1:3001/mcp`).
        url: String,
        /// Headers sent with every request (`headers`).
        headers: Secrets,
        /// How the gateway is authorized there, if the server requires OAuth (`oauth`): the server's name
        /// (for messages) and its table.
        oauth: Option<(String, OAuth)>,
    },
}

impl Transport {
    /// How the manifest says `server` is reached: `command` run in its `cwd` (or
    /// `dir`, the manifest's directory) with its `env`, or `url` with its
    /// `headers` — as [`Deployment::expand`](toolseal_runtime::mcp::manifest::Deployment::expand) resolved them
    /// (a server of a deployment not expanded has none).
    pub fn of(server: &DeploymentServer, dir: Option<&std::path::Path>) -> Option<Transport> {
        match (&server.command, &server.url) {
            (Some(argv), _) => Some(Transport::Command { argv: argv.clone(), cwd: server.cwd.clone().or_else(|| dir.map(std::path::Path::to_path_buf)), env: server.env.clone() }),
            (None, Some(url)) => Some(Transport::Http { url: url.clone(), headers: server.headers.clone(), oauth: server.oauth.clone().map(|o| (server.name.clone(), o)) }),
            (None, None) => None,
        }
    }

    /// A stdio server started with `argv` in `cwd`, with this process's environment.
    pub fn command(argv: Vec<String>, cwd: Option<PathBuf>) -> Transport {
        Transport::Command { argv, cwd, env: Secrets::new() }
    }

    /// What to call it in messages (never its environment or headers).
    pub fn describe(&self) -> String {
        match self {
            Transport::Command { argv, .. } => format!("`{}`", argv.join(" ")),
            Transport::Http { url, .. } => url.clone(),
        }
    }
}

/// The connection to one server, as calls see it.
#[derive(Clone)]
pub(crate) enum Link {
    /// Not connected yet.
    Starting,
    /// Connected: calls go to this peer, on connection number `.1`.
    Up(Peer<RoleClient>, u64),
    /// Failed or died, with why; a restart is scheduled.
    Down(String),
}

/// Where a downstream progress notification goes: the client's peer and its own token.
pub(crate) type ProgressRoute = (Peer<RoleServer>, ProgressToken);

/// One downstream server.
pub(crate) struct Downstream {
    /// The manifest's key for it.
    pub name: String,
    /// How it is reached.
    pub transport: Transport,
    /// The longest wait for it to start, list its tools or answer a call
    /// (the manifest's `timeout`, or the gateway's).
    pub timeout: Duration,
    link: RwLock<Link>,
    /// Progress tokens of calls in flight, by connection (rmcp numbers them
    /// afresh on each) → where their progress goes. Held across the send of a
    /// call that asks for progress, so a notification that arrives first waits for its route.
    pub progress: tokio::sync::Mutex<HashMap<(u64, ProgressToken), ProgressRoute>>,
    /// Counts connections: a listing read on an older one is not applied.
    generation: AtomicU64,
    /// The server announced a list change not yet listed.
    dirty: AtomicBool,
    /// Wakes this server's relist loop.
    wake: Notify,
    /// Its prompts, resources and templates as listed on the connection in force.
    offered: RwLock<Offered>,
    /// The clients of the calls in flight to it, by call: where a request the server sends meanwhile
    /// (elicitation, sampling) goes.
    callers: Arc<std::sync::Mutex<Vec<(u64, Caller)>>>,
    /// Numbers the calls in `callers`.
    call_seq: AtomicU64,
    /// The prompts its pin holds, by name (`None`: the pin holds none, so prompts are served as listed).
    pinned_prompts: RwLock<Option<HashMap<String, serde_json::Value>>>,
}

/// A call in flight to a server, from one client: registered while it lives.
pub(crate) struct InFlight {
    callers: Arc<std::sync::Mutex<Vec<(u64, Caller)>>>,
    id: u64,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.callers.lock().unwrap_or_else(|e| e.into_inner()).retain(|(id, _)| *id != self.id);
    }
}

/// The client of a call in flight, as a server's request during the call reaches it.
#[derive(Clone)]
pub(crate) enum Caller {
    /// A client on a session (up to 2025-11-25): asked on it.
    Session(Peer<RoleServer>),
    /// A 2026-07-28 client: asked in an input round (see [`held`](super::held)).
    Rounds(Asker),
}

impl Downstream {
    /// A server not connected yet.
    pub(crate) fn new(name: String, transport: Transport, timeout: Duration) -> Downstream {
        Downstream {
            name,
            transport,
            timeout,
            link: RwLock::new(Link::Starting),
            progress: tokio::sync::Mutex::new(HashMap::new()),
            generation: AtomicU64::new(0),
            dirty: AtomicBool::new(false),
            wake: Notify::new(),
            offered: RwLock::new(Offered::default()),
            callers: Arc::new(std::sync::Mutex::new(Vec::new())),
            call_seq: AtomicU64::new(0),
            pinned_prompts: RwLock::new(None),
        }
    }

    /// The connection in force.
    pub(crate) fn link(&self) -> Link {
        self.link.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn set(&self, link: Link) {
        *self.link.write().unwrap_or_else(|e| e.into_inner()) = link;
    }

    /// Its prompts, resources and templates as last listed.
    pub(crate) fn offered(&self) -> Offered {
        self.offered.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Takes the prompts of its pin (the registry file's `prompts`, if it has the key).
    pub(crate) fn pin_prompts(&self, registry_bytes: &[u8]) {
        let pinned = serde_json::from_slice::<serde_json::Value>(registry_bytes)
            .ok()
            .and_then(|file| file.get("prompts")?.as_array().cloned())
            .map(|prompts| prompts.into_iter().filter_map(|p| Some((p.get("name")?.as_str()?.to_owned(), p))).collect());
        *self.pinned_prompts.write().unwrap_or_else(|e| e.into_inner()) = pinned;
    }

    /// The prompts of its pin, by name, if it has any.
    pub(crate) fn pinned_prompts(&self) -> Option<HashMap<String, serde_json::Value>> {
        self.pinned_prompts.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Registers a call in flight from `client` until the returned guard drops.
    pub(crate) fn in_flight(&self, client: Caller) -> InFlight {
        let id = self.call_seq.fetch_add(1, Ordering::Relaxed);
        self.callers.lock().unwrap_or_else(|e| e.into_inner()).push((id, client));
        InFlight { callers: self.callers.clone(), id }
    }

    /// The client a request from this server is for: the one whose call is in flight to it. With none, or several
    /// (the request could be for any of them), there is no such client: the gateway never guesses.
    fn caller(&self, what: &str) -> Result<Caller, ErrorData> {
        let callers = self.callers.lock().unwrap_or_else(|e| e.into_inner());
        match callers.as_slice() {
            [(_, client)] => Ok(client.clone()),
            [] => Err(ErrorData::invalid_request(format!("the gateway relays {what} only during a call to this server, to the client that made it; no call is in flight"), None)),
            several => Err(ErrorData::invalid_request(format!("the gateway relays {what} to the client whose call is in flight, and {} calls are: it does not guess which", several.len()), None)),
        }
    }

    fn set_offered(&self, offered: Offered) {
        *self.offered.write().unwrap_or_else(|e| e.into_inner()) = offered;
    }
}

/// The client handler of one downstream connection.
#[derive(Clone)]
pub(crate) struct Handler {
    server: usize,
    /// The connection this handler serves.
    generation: u64,
    core: Weak<Core>,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.client_info = Implementation::new("toolseal-gateway", env!("CARGO_PKG_VERSION"));
        // What the gateway relays to the client of a call in flight: elicitation and sampling. Not roots: a server
        // asks for them when it starts, before any client, and they would change what a server such as
        // server-filesystem allows from whichever client happened to be calling.
        #[allow(deprecated)] // sampling: deprecated by SEP-2577, relayed for servers and clients before 2026-07-28
        let relayed = ClientCapabilities::builder().enable_elicitation().enable_sampling().build();
        info.capabilities.elicitation = relayed.elicitation;
        info.capabilities.sampling = relayed.sampling;
        info
    }

    #[allow(deprecated)] // sampling: deprecated by SEP-2577, used by servers and clients before 2026-07-28
    async fn create_message(&self, request: CreateMessageRequestParams, context: RequestContext<RoleClient>) -> Result<CreateMessageResult, ErrorData> {
        let cannot = || ErrorData::invalid_request("the client of this call cannot be asked (no sampling capability)", None);
        match self.caller("sampling")? {
            Caller::Session(client) => {
                if client.peer_info().is_none_or(|info| info.capabilities.sampling.is_none()) {
                    return Err(cannot());
                }
                client.create_message(request).await.map_err(|e| relay_error("sampling", e))
            }
            Caller::Rounds(asker) if asker.sampling => in_round(&asker, InputRequest::CreateMessage(CreateMessageRequest::new(request)), "sampling", &context.ct).await,
            Caller::Rounds(_) => Err(cannot()),
        }
    }

    #[allow(deprecated)] // logging: deprecated by SEP-2577, used by servers and clients before 2026-07-28
    async fn on_logging_message(&self, params: LoggingMessageNotificationParam, _context: NotificationContext<RoleClient>) {
        if let Some(core) = self.core.upgrade() {
            core.relay_log(self.server, params).await;
        }
    }

    async fn on_resource_updated(&self, params: ResourceUpdatedNotificationParam, _context: NotificationContext<RoleClient>) {
        if let Some(core) = self.core.upgrade() {
            core.relay_update(self.server, params).await;
        }
    }

    async fn create_elicitation(&self, request: ElicitRequestParams, context: RequestContext<RoleClient>) -> Result<ElicitResult, ErrorData> {
        let cannot = || ErrorData::invalid_request("the client of this call cannot be asked (no elicitation capability)", None);
        match self.caller("elicitation")? {
            Caller::Session(client) => {
                if client.peer_info().is_none_or(|info| info.capabilities.elicitation.is_none()) {
                    return Err(cannot());
                }
                client.create_elicitation(request).await.map_err(|e| relay_error("elicitation", e))
            }
            Caller::Rounds(asker) if asker.elicitation => in_round(&asker, InputRequest::Elicitation(ElicitRequest::new(request)), "elicitation", &context.ct).await,
            Caller::Rounds(_) => Err(cannot()),
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some(core) = self.core.upgrade() {
            let server = &core.servers[self.server];
            server.dirty.store(true, Ordering::SeqCst);
            server.wake.notify_one();
        }
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.relist_offered(true, false);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.relist_offered(false, true);
    }

    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        let Some(core) = self.core.upgrade() else { return };
        let route = core.servers[self.server].progress.lock().await.get(&(self.generation, params.progress_token.clone())).cloned();
        if let Some((peer, token)) = route {
            let mut forwarded = params;
            forwarded.progress_token = token;
            if let Err(e) = peer.notify_progress(forwarded).await {
                tracing::debug!(target: "toolseal::gateway", server = %core.servers[self.server].name, "progress not relayed: {e}");
            }
        }
    }
}

/// Asks a 2026-07-28 client `request` in an input round of its call, and reads its answer as
/// `T`; the server withdrawing its request (`cancelled`) withdraws the question.
async fn in_round<T: serde::de::DeserializeOwned>(asker: &Asker, request: InputRequest, what: &str, cancelled: &tokio_util::sync::CancellationToken) -> Result<T, ErrorData> {
    let (answer, answered) = tokio::sync::oneshot::channel();
    asker.asks.send(Ask { request, answer }).await.map_err(|_| ErrorData::internal_error(format!("the call this {what} belongs to has ended"), None))?;
    let value = tokio::select! {
        value = answered => value.map_err(|_| ErrorData::internal_error(format!("the client did not answer the relayed {what}"), None))?,
        () = cancelled.cancelled() => return Err(ErrorData::internal_error(format!("the server withdrew its {what}"), None)),
    };
    serde_json::from_value(value).map_err(|e| ErrorData::invalid_params(format!("the client's answer to the relayed {what} is not one: {e}"), None))
}

/// A relayed request the client answered with an error (its own, passed on) or did not answer.
fn relay_error(what: &str, e: rmcp::ServiceError) -> ErrorData {
    match e {
        rmcp::ServiceError::McpError(error) => error,
        e => ErrorData::internal_error(format!("the client did not answer the relayed {what}: {e}"), None),
    }
}

impl Handler {
    /// The client a request of this handler's server is for.
    fn caller(&self, what: &str) -> Result<Caller, ErrorData> {
        let core = self.core.upgrade().ok_or_else(|| ErrorData::internal_error("the gateway is shutting down", None))?;
        core.servers[self.server].caller(what)
    }

    /// Lists the server's prompts, resources and templates again (on this handler's connection, if it is still the
    /// one in force) and tells the clients what changed.
    fn relist_offered(&self, prompts: bool, resources: bool) {
        let (core, server, generation) = (self.core.clone(), self.server, self.generation);
        tokio::spawn(async move {
            let Some(core) = core.upgrade() else { return };
            let downstream = &core.servers[server];
            let Link::Up(peer, current) = downstream.link() else { return };
            if current != generation {
                return;
            }
            let offered = Offered::list(&peer, &downstream.name, downstream.timeout).await;
            if downstream.generation.load(Ordering::SeqCst) == generation {
                downstream.set_offered(offered);
                core.announce_offered(prompts, resources);
            }
        });
    }

    /// A handler for a connection outside any gateway (`toolseal approve`): notifications are dropped.
    fn detached() -> Handler {
        Handler { server: 0, generation: 0, core: Weak::new() }
    }
}

/// What a server says about itself and its tools, for a pin file.
#[derive(Debug, Clone)]
pub struct Capture {
    /// `serverInfo` of the `initialize` result.
    pub server_info: serde_json::Value,
    /// The protocol version agreed.
    pub protocol_version: serde_json::Value,
    /// Its tools, sorted by name.
    pub tools: Vec<serde_json::Value>,
    /// Its prompts, sorted by name, if it offers prompts.
    pub prompts: Option<Vec<serde_json::Value>>,
}

impl Capture {
    /// Lists every tool of the server `connection` reaches (`what` in errors)
    /// and takes what it said of itself at `initialize`.
    pub async fn list<H: ClientHandler>(connection: &Connection<H>, what: &str, timeout: Duration) -> Result<Capture, DownstreamError> {
        let tools = list_tools(connection.peer(), what, timeout).await?;
        let offers_prompts = connection.peer_info().is_some_and(|i| i.capabilities.prompts.is_some());
        let prompts = if offers_prompts { Some(list_prompts(connection.peer(), what, timeout).await?) } else { None };
        let info = connection.peer_info().map(|i| serde_json::to_value(&*i).unwrap_or_default()).unwrap_or_default();
        Ok(Capture { server_info: info.get("serverInfo").cloned().unwrap_or_default(), protocol_version: info.get("protocolVersion").cloned().unwrap_or_default(), tools, prompts })
    }
}

/// Connects to `transport`, lists its tools and disconnects.
pub async fn capture(transport: &Transport, timeout: Duration) -> Result<Capture, DownstreamError> {
    let connection = connect(transport, Handler::detached(), timeout).await?;
    let captured = Capture::list(&connection, &transport.describe(), timeout).await;
    let _ = connection.cancel().await;
    captured
}

/// A running connection to a server, whose notifications `H` handles.
pub type Connection<H> = RunningService<RoleClient, H>;

/// Starts or reaches the server at `transport`, with `handler` for what it
/// sends, and completes `initialize` within `timeout`. A server's messages
/// may be up to [`MAX_MESSAGE`] long (over stdio, an answer over it is an
/// error naming the limit).
pub async fn connect<H: ClientHandler>(transport: &Transport, handler: H, timeout: Duration) -> Result<Connection<H>, DownstreamError> {
    connect_limited(transport, handler, timeout, MAX_MESSAGE).await
}

/// [`connect`], with `max_message` as a server's longest message (over HTTP: one SSE event or JSON body).
async fn connect_limited<H: ClientHandler>(transport: &Transport, handler: H, timeout: Duration, max_message: usize) -> Result<Connection<H>, DownstreamError> {
    let serving = match transport {
        Transport::Command { argv, cwd, env } => {
            let Some((program, args)) = argv.split_first() else {
                return Err(DownstreamError::Start { what: transport.describe(), source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "the command is empty") });
            };
            let mut command = tokio::process::Command::new(program);
            command.args(args);
            if let Some(cwd) = cwd {
                command.current_dir(cwd);
            }
            command.envs(env.iter());
            // The server's stderr is its own log; it must not hold this process's stderr open.
            command.stderr(std::process::Stdio::null());
            let child = crate::child::Child::spawn(command, max_message).map_err(|source| DownstreamError::Start { what: transport.describe(), source })?;
            tokio::time::timeout(timeout, handler.serve(child)).await
        }
        Transport::Http { url, headers, oauth } => {
            install_tls();
            // The same limit on one message as over stdio (rmcp's default is 16 MiB; it refuses what is over).
            let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                .custom_headers(header_map(headers).map_err(|source| DownstreamError::Start { what: transport.describe(), source })?)
                .max_sse_event_size(max_message)
                .max_json_response_size(max_message);
            match oauth {
                None => tokio::time::timeout(timeout, handler.serve(StreamableHttpClientTransport::from_config(config))).await,
                #[cfg(feature = "oauth")]
                Some((name, oauth)) => {
                    let client = tokio::time::timeout(timeout, crate::oauth::authorized_client(name, url, oauth))
                        .await
                        .map_err(|_| DownstreamError::Timeout { what: transport.describe(), step: Step::Initialize, secs: timeout.as_secs() })?
                        .map_err(|e| DownstreamError::Start { what: transport.describe(), source: std::io::Error::other(e.to_string()) })?;
                    tokio::time::timeout(timeout, handler.serve(StreamableHttpClientTransport::with_client(client, config))).await
                }
                #[cfg(not(feature = "oauth"))]
                Some((name, _)) => {
                    let message = format!("server `{name}` requires OAuth, and this gateway was built without its `oauth` feature");
                    return Err(DownstreamError::Start { what: transport.describe(), source: std::io::Error::other(message) });
                }
            }
        }
    };
    serving.map_err(|_| DownstreamError::Timeout { what: transport.describe(), step: Step::Initialize, secs: timeout.as_secs() })?.map_err(|e| DownstreamError::Protocol {
        what: transport.describe(),
        step: Step::Initialize,
        message: e.to_string(),
    })
}

/// reqwest is built without a default TLS provider: ring serves https:// (a second install is a no-op).
/// Before any reqwest client is built.
pub(crate) fn install_tls() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The manifest's `headers` as rmcp sends them, each value marked sensitive; an
/// error names the header, never its value. (rmcp's default client does not
/// follow a redirect to another origin, so they go to `url`'s origin only.)
fn header_map(headers: &Secrets) -> Result<HashMap<HeaderName, HeaderValue>, std::io::Error> {
    let invalid = |name: &str| std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("the manifest's header {name:?} is not a valid HTTP header"));
    headers
        .iter()
        .map(|(name, value)| {
            let header = HeaderName::from_bytes(name.as_bytes()).map_err(|_| invalid(name))?;
            let mut value = HeaderValue::from_str(value).map_err(|_| invalid(name))?;
            value.set_sensitive(true);
            Ok((header, value))
        })
        .collect()
}

/// Every prompt `peer`'s server (`what` in errors) lists, following `nextCursor`, sorted by name, as JSON.
async fn list_prompts(peer: &Peer<RoleClient>, what: &str, timeout: Duration) -> Result<Vec<serde_json::Value>, DownstreamError> {
    let prompts = tokio::time::timeout(timeout, peer.list_all_prompts())
        .await
        .map_err(|_| DownstreamError::Timeout { what: what.to_owned(), step: Step::ListPrompts, secs: timeout.as_secs() })?
        .map_err(|e| DownstreamError::Protocol { what: what.to_owned(), step: Step::ListPrompts, message: e.to_string() })?;
    let mut prompts: Vec<serde_json::Value> = prompts.iter().map(|p| serde_json::to_value(p).unwrap_or_default()).collect();
    prompts.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    Ok(prompts)
}

/// Every tool `peer`'s server (`what` in errors) lists, following `nextCursor`, sorted by name, as JSON.
pub async fn list_tools(peer: &Peer<RoleClient>, what: &str, timeout: Duration) -> Result<Vec<serde_json::Value>, DownstreamError> {
    let tools: Vec<Tool> = tokio::time::timeout(timeout, peer.list_all_tools())
        .await
        .map_err(|_| DownstreamError::Timeout { what: what.to_owned(), step: Step::ListTools, secs: timeout.as_secs() })?
        .map_err(|e| DownstreamError::Protocol { what: what.to_owned(), step: Step::ListTools, message: e.to_string() })?;
    let mut tools: Vec<serde_json::Value> = tools.iter().map(|t| serde_json::to_value(t).unwrap_or_default()).collect();
    tools.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    Ok(tools)
}

/// The shortest and longest wait before a restart.
const BACKOFF: (Duration, Duration) = (Duration::from_millis(250), Duration::from_secs(15));

/// How long a connection must have lived for the next failure to restart it at once again.
const STEADY: Duration = Duration::from_secs(30);

/// Keeps server `s` connected until the gateway shuts down: connects, lists
/// its tools (compared with the pin), serves calls through it until it dies,
/// then restarts it after a delay that grows while it keeps failing.
/// `started` hears the first attempt's outcome.
pub(crate) async fn supervise(core: Arc<Core>, s: usize, started: tokio::sync::oneshot::Sender<()>) {
    let mut started = Some(started);
    let mut delay = BACKOFF.0;
    let server = &core.servers[s];
    loop {
        let generation = server.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let handler = Handler { server: s, generation, core: Arc::downgrade(&core) };
        let attempt = match connect_limited(&server.transport, handler, server.timeout, core.options.max_message).await {
            Ok(connection) => match list_tools(connection.peer(), &server.transport.describe(), server.timeout).await {
                Ok(tools) => Ok((connection, tools)),
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        };
        match attempt {
            Ok((connection, tools)) => {
                core.observe(s, tools);
                server.set_offered(Offered::list(connection.peer(), &server.name, server.timeout).await);
                server.set(Link::Up(connection.peer().clone(), generation));
                // What its clients asked of it before (a log level, subscriptions), asked again.
                let (resumed, peer) = (core.clone(), connection.peer().clone());
                tokio::spawn(async move { resumed.resume_relays(s, &peer).await });
                // A change announced while the first listing was read is listed now.
                if server.dirty.load(Ordering::SeqCst) {
                    server.wake.notify_one();
                }
                // rmcp's client connects with `initialize` (sessions, up to 2025-11-25): list changes arrive unsolicited.
                let version = connection.peer_info().map(|i| i.protocol_version.to_string()).unwrap_or_default();
                tracing::info!(target: "toolseal::gateway", server = %server.name, protocol = %version, "connected");
                if let Some(started) = started.take() {
                    let _ = started.send(());
                }
                let since = Instant::now();
                let stop = connection.cancellation_token();
                let waiting = connection.waiting();
                tokio::pin!(waiting);
                tokio::select! {
                    quit = &mut waiting => {
                        let why = format!("{} exited ({quit:?}); restarting", server.transport.describe());
                        tracing::warn!(target: "toolseal::gateway", server = %server.name, "{why}");
                        server.set(Link::Down(why));
                    }
                    () = core.shutdown.cancelled() => {
                        server.set(Link::Down("the gateway is shutting down".to_owned()));
                        // Close the connection (and stop a child process) before the runtime goes.
                        stop.cancel();
                        let _ = tokio::time::timeout(CLOSE, waiting).await;
                        return;
                    }
                }
                if since.elapsed() >= STEADY {
                    delay = BACKOFF.0;
                }
            }
            Err(why) => {
                tracing::warn!(target: "toolseal::gateway", server = %server.name, "{why}; retrying in {} ms", delay.as_millis());
                server.set(Link::Down(why.to_string()));
                if let Some(started) = started.take() {
                    let _ = started.send(());
                }
            }
        }
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            () = core.shutdown.cancelled() => return,
        }
        delay = (delay * 2).min(BACKOFF.1);
    }
}

/// The longest wait for a connection to close at shutdown.
pub(crate) const CLOSE: Duration = Duration::from_secs(8);

/// Lists server `s`'s tools again each time it announces a change, until the
/// gateway shuts down. A listing that fails (no answer, transport closed) is
/// retried with backoff while the connection lasts; one read on a connection
/// that has since been replaced is dropped (the new one was listed when it started).
pub(crate) async fn relist(core: Arc<Core>, s: usize) {
    let server = &core.servers[s];
    loop {
        tokio::select! {
            () = server.wake.notified() => {}
            () = core.shutdown.cancelled() => return,
        }
        let mut delay = BACKOFF.0;
        while server.dirty.swap(false, Ordering::SeqCst) {
            let Link::Up(peer, generation) = server.link() else {
                // Not connected: `supervise` lists it when it connects, and wakes this loop if a change came meanwhile.
                server.dirty.store(true, Ordering::SeqCst);
                break;
            };
            match list_tools(&peer, &server.transport.describe(), server.timeout).await {
                Ok(tools) if server.generation.load(Ordering::SeqCst) == generation => core.observe(s, tools),
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(target: "toolseal::gateway", server = %server.name, "relisting after a change failed ({e}); retrying in {} ms", delay.as_millis());
                    server.dirty.store(true, Ordering::SeqCst);
                    tokio::select! {
                        () = tokio::time::sleep(delay) => {}
                        () = core.shutdown.cancelled() => return,
                    }
                    delay = (delay * 2).min(BACKOFF.1);
                }
            }
        }
    }
}
