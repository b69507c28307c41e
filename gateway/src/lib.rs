//! `toolseal-gateway`: a closed-world MCP gateway in
//! front of a manifest's servers, for any MCP client.
//!
//! The gateway serves one merged tool list — every tool under its qualified
//! name (`server__tool`, reversible through the catalog, stable when servers
//! are added), its definition as pinned by `toolseal capture` — and resolves
//! every `tools/call` before anything is forwarded: the name routes to one
//! `(server, tool)` (M1–M3 by the manifest's tiers, pins and policy), the live
//! definition must still match its pin (M4), and the arguments must meet the
//! routed tool's schema (M5, H2, H3). Only a resolved call reaches a server,
//! with the arguments the client sent; every call leaves one [`AuditRecord`].
//!
//! A server that fails to start or dies is restarted with backoff; its tools
//! answer a clear error meanwhile and the other servers keep serving. A tool
//! whose schema cannot be enforced is quarantined (not listed, calls refused);
//! the rest of its server is served. When a server's listing changes, changed
//! and removed tools are M4 and new tools stay unlisted until the listing is
//! approved (`toolseal approve SERVER`, then a reload, or
//! [`OnChange::Accept`]); the client hears `list_changed` only when what the
//! gateway serves changed.
//!
//! ```no_run
//! # async fn run() -> Result<(), toolseal_gateway::GatewayError> {
//! use toolseal_gateway::{Gateway, GatewayOptions};
//! use toolseal_gateway::Decision;
//!
//! let options = GatewayOptions::default().gate(|call: &toolseal_gateway::GatewayCall<'_>| {
//!     if call.tool == "delete_file" { Decision::deny("deleting is not allowed here") } else { Decision::Allow }
//! });
//! let gateway = Gateway::start(std::path::Path::new("toolseal.toml"), options).await?;
//! gateway.serve_stdio().await?;
//! # Ok(()) }
//! ```

mod call;
mod caller;
mod child;
mod confirm;
pub mod downstream;
mod held;
mod http;
mod listing;
#[cfg(feature = "oauth")]
pub mod oauth;
mod offered;
#[cfg(feature = "policy")]
mod policy;
mod relay;
mod service;
mod session;
mod stdio;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::service::Peer;
use serde_json::Value;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;
use toolseal_runtime::mcp::Change;
use toolseal_runtime::mcp::manifest::{Deployment, read_manifest, read_manifest_expanded};

pub use call::GatewayCall;
use caller::Callers;
use downstream::{Downstream, Link, Transport};
pub use http::HttpOptions;
pub use listing::{CompileError, Listing, ServerListing};
use listing::{Naming, State};
#[cfg(feature = "policy")]
pub use policy::{check_policies, policy_schema};
pub use service::GatewayService;
pub use toolseal_runtime::mcp::manifest::ManifestError;
pub use toolseal_runtime::pipeline::{AuditRecord, AuditSink, Decision, JsonLines};

/// What the gateway does when a server's live listing differs from its pin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnChange {
    /// Changed and removed tools are M4 and new tools unlisted until the pin is approved.
    #[default]
    Hold,
    /// Take the live listing at once (if the deployment still compiles with it) and tell clients.
    Accept,
}

/// Decides on a resolved call before it is forwarded (H4): the pipeline's [`Decision`].
pub trait CallGate: Send + Sync + 'static {
    /// Allow, deny or ask for confirmation of `call`.
    fn decide(&self, call: &GatewayCall<'_>) -> Decision;
}

impl<F: Fn(&GatewayCall<'_>) -> Decision + Send + Sync + 'static> CallGate for F {
    fn decide(&self, call: &GatewayCall<'_>) -> Decision {
        self(call)
    }
}

/// How a gateway runs.
#[derive(Clone)]
pub struct GatewayOptions {
    timeout: Duration,
    on_change: OnChange,
    name_budget: usize,
    max_message: usize,
    audit: Vec<Arc<dyn AuditSink>>,
    gate: Option<Arc<dyn CallGate>>,
    policies: Vec<PathBuf>,
}

impl Default for GatewayOptions {
    fn default() -> Self {
        GatewayOptions {
            timeout: Duration::from_secs(60),
            on_change: OnChange::Hold,
            name_budget: toolseal_runtime::mcp::MAX_LEN,
            max_message: downstream::MAX_MESSAGE,
            audit: Vec::new(),
            gate: None,
            policies: Vec::new(),
        }
    }
}

impl GatewayOptions {
    /// The longest wait for a server: to start, to list its tools, to answer a call (default 60 s;
    /// a server's own `timeout` in the manifest overrides it).
    pub fn timeout(mut self, timeout: Duration) -> GatewayOptions {
        self.timeout = timeout;
        self
    }

    /// What to do when a server's listing changes (default [`OnChange::Hold`]).
    pub fn on_change(mut self, on_change: OnChange) -> GatewayOptions {
        self.on_change = on_change;
        self
    }

    /// The longest tool name served (default and most 64; at least
    /// [`MIN_LEN`](toolseal_runtime::mcp::MIN_LEN)): leaves room for a prefix
    /// the client adds, e.g. 64 − `mcp__gateway__`.
    pub fn name_budget(mut self, budget: usize) -> GatewayOptions {
        self.name_budget = budget;
        self
    }

    /// The longest message a server may send, in bytes (default
    /// [`MAX_MESSAGE`](downstream::MAX_MESSAGE), 64 MiB). A stdio server's longer
    /// answer is dropped as it is read and its call answered at once with an
    /// error naming the limit; the server goes on serving. Over HTTP rmcp refuses
    /// a longer event or body and closes the connection: the call is answered an
    /// error at once and the server reconnected, as after a crash.
    pub fn max_message(mut self, bytes: usize) -> GatewayOptions {
        self.max_message = bytes.max(1);
        self
    }

    /// Hands every call's audit record to `sink` too (records are always emitted as `tracing` events).
    pub fn audit(mut self, sink: impl AuditSink + 'static) -> GatewayOptions {
        self.audit.push(Arc::new(sink));
        self
    }

    /// Runs `gate` on every resolved call before it is forwarded (after the
    /// Cedar policies, when they allowed it).
    pub fn gate(mut self, gate: impl CallGate) -> GatewayOptions {
        self.gate = Some(Arc::new(gate));
        self
    }

    /// Decides every resolved call by the Cedar policies of `file` too, besides the
    /// manifest's `policies` (feature `policy`; without it a gateway with policies
    /// refuses to start). With any policy, Cedar's default holds: what no policy
    /// permits is denied.
    pub fn policy_file(mut self, file: impl Into<PathBuf>) -> GatewayOptions {
        self.policies.push(file.into());
        self
    }
}

/// Why a gateway cannot start or serve.
#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// The manifest or a pinned registry cannot be read.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// A server has neither `command` nor `url`.
    #[error("{path}: server {server:?} has no `command` or `url` to reach it by")]
    Unreachable {
        /// The manifest.
        path: String,
        /// The server.
        server: String,
    },
    /// The pinned listings do not form a deployment (names, pins, served names).
    #[error("{path}: {source}")]
    Deployment {
        /// The manifest.
        path: String,
        /// What is wrong.
        #[source]
        source: CompileError,
    },
    /// The policies cannot be read, or this build has no policy support.
    #[error("{0}")]
    Policy(String),
    /// Serving failed (stdio closed with an error, an address that cannot be bound…).
    #[error("serving failed: {0}")]
    Serve(String),
}

/// Which served list changed (what a 2026-07-28 `subscriptions/listen` stream is told).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Changed {
    /// The tools.
    Tools,
    /// The prompts.
    Prompts,
    /// The resources (or their templates).
    Resources,
}

/// What the gateway shares between its clients, servers and tasks.
pub(crate) struct Core {
    options: GatewayOptions,
    naming: Naming,
    callers: Callers,
    /// The policy files as last read (replaced by a reload whose deployment compiles with them).
    #[cfg(feature = "policy")]
    policy: Mutex<Option<Arc<policy::PolicySources>>>,
    servers: Vec<Downstream>,
    listings: Mutex<Vec<ServerListing>>,
    state: RwLock<Arc<State>>,
    seq: AtomicU64,
    /// Fires when a served list changed (2026-07-28 listen streams wait on it).
    changed: broadcast::Sender<Changed>,
    /// Clients on sessions (up to 2025-11-25): told of list changes directly, and of what they asked to hear.
    sessions: session::Sessions,
    /// Confirmations asked of 2026-07-28 clients in input rounds, not answered yet.
    rounds: confirm::Rounds,
    /// Forwarded calls of 2026-07-28 clients held for their answers to a server's requests.
    held: held::HeldCalls,
    shutdown: CancellationToken,
}

impl Core {
    fn state(&self) -> Arc<State> {
        self.state.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Takes in server `s`'s live listing, recompiles, and tells clients if what they see changed.
    /// A listing that is not a registry makes every tool of the server M4 until one is.
    fn observe(&self, s: usize, live: Vec<Value>) {
        let mut listings = self.listings.lock().unwrap_or_else(|e| e.into_inner());
        let server = &mut listings[s];
        let name = server.name.clone();
        match Listing::from_tools(live).map_err(|e| e.to_string()) {
            Ok(live) => {
                for (tool, change) in server.observe(live) {
                    match change {
                        Change::Unchanged => {}
                        Change::Added => tracing::warn!(target: "toolseal::gateway", server = %name, tool, "a tool not in the pin: unlisted until approved (toolseal approve {name})"),
                        _ => tracing::warn!(target: "toolseal::gateway", server = %name, tool, ?change, "the tool differs from its pin: calls are M4 until approved (toolseal approve {name})"),
                    }
                }
            }
            Err(why) => {
                tracing::warn!(target: "toolseal::gateway", server = %server.name, "the live listing cannot be read: {why}; its tools are M4");
                server.unreadable(&why);
            }
        }
        if self.options.on_change == OnChange::Accept
            && let Some(previous) = listings[s].accept("the gateway accepted it")
            && let Err(e) = self.recompile(&listings)
        {
            tracing::warn!(target: "toolseal::gateway", server = %listings[s].name, "the new listing was not accepted: {e}");
            listings[s] = previous;
        }
        if let Err(e) = self.recompile(&listings) {
            tracing::error!(target: "toolseal::gateway", "the deployment no longer compiles, the previous one stays in force: {e}");
        }
    }

    /// Compiles `listings` and puts the result in force; tells clients when the served tool list changed.
    fn recompile(&self, listings: &[ServerListing]) -> Result<(), CompileError> {
        let state = self.compile(listings)?;
        self.put_in_force(state);
        Ok(())
    }

    /// Serves `state` from now on; tells clients when the served tool list changed.
    fn put_in_force(&self, state: State) {
        let mut current = self.state.write().unwrap_or_else(|e| e.into_inner());
        let changed = current.digest != state.digest;
        *current = Arc::new(state);
        drop(current);
        if changed {
            self.announce();
        }
    }

    /// Compiles `listings`, and checks the policies against the result.
    fn compile(&self, listings: &[ServerListing]) -> Result<State, CompileError> {
        compile(
            listings,
            &self.naming,
            #[cfg(feature = "policy")]
            self.policy.lock().unwrap_or_else(|e| e.into_inner()).as_deref(),
        )
    }

    /// The clients on sessions whose transport is still open.
    fn live_sessions(&self) -> Vec<Peer<RoleServer>> {
        self.sessions.live().into_iter().map(|s| s.peer.clone()).collect()
    }

    /// Tells every client that the tool list changed.
    fn announce(&self) {
        let _ = self.changed.send(Changed::Tools);
        for peer in self.live_sessions() {
            tokio::spawn(async move {
                let _ = peer.notify_tool_list_changed().await;
            });
        }
    }
}

/// How one server stands, for `toolseal gateway --check` and logs.
#[derive(Debug, Clone)]
pub struct ServerReport {
    /// The manifest's key for it.
    pub name: String,
    /// `None` when connected; why not otherwise.
    pub down: Option<String>,
    /// How its live listing differs from its pin (empty when it matches; `None` if never listed).
    pub changes: Option<Vec<(String, Change)>>,
    /// How its live prompts differ from the prompts its pin holds (`None` when the pin holds none).
    pub prompts: Option<Vec<(String, Change)>>,
}

impl ServerReport {
    /// Whether the server is up and lists exactly its pin (tools, and prompts when the pin holds them).
    pub fn matches(&self) -> bool {
        let unchanged = |changes: &[(String, Change)]| changes.iter().all(|(_, c)| *c == Change::Unchanged);
        self.down.is_none() && self.changes.as_deref().is_some_and(unchanged) && self.prompts.as_deref().is_none_or(unchanged)
    }
}

/// A running gateway: its servers are supervised until [`Gateway::shutdown`].
#[derive(Clone)]
pub struct Gateway {
    core: Arc<Core>,
    /// The servers' supervisors, awaited by [`Gateway::close`].
    tasks: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>>,
}

impl Gateway {
    /// Reads the manifest at `path` and its pins, expands each server's `env`
    /// and `headers` from this process's environment, starts every server in
    /// parallel and waits until each has connected or failed once (a failed
    /// server keeps being retried; its tools answer an error meanwhile).
    pub async fn start(path: &Path, options: GatewayOptions) -> Result<Gateway, GatewayError> {
        let deployment = read_manifest_expanded(path)?;
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).map(Path::to_path_buf);
        let shown = path.display().to_string();
        let mut servers = Vec::new();
        for server in &deployment.servers {
            let Some(transport) = Transport::of(server, dir.as_deref()) else {
                return Err(GatewayError::Unreachable { path: shown, server: server.name.clone() });
            };
            let downstream = Downstream::new(server.name.clone(), transport, server.timeout.unwrap_or(options.timeout));
            downstream.pin_prompts(&server.registry_bytes);
            servers.push(downstream);
        }
        let listings = pinned_listings(&deployment)?;
        let naming = Naming { pins: deployment.pins.clone(), policy: deployment.policy, budget: options.name_budget };
        let callers = Callers::new(&deployment);
        let policy_files: Vec<PathBuf> = deployment.policies.iter().chain(&options.policies).cloned().collect();
        #[cfg(feature = "policy")]
        let policy = policy::PolicySources::read(&policy_files, &deployment, &callers).map_err(|e| GatewayError::Policy(e.to_string()))?;
        #[cfg(not(feature = "policy"))]
        unsupported(&policy_files)?;
        let state = compile(
            &listings,
            &naming,
            #[cfg(feature = "policy")]
            policy.as_ref(),
        )
        .map_err(|source| GatewayError::Deployment { path: shown.clone(), source })?;
        for (server, tool, e) in state.deployment.quarantined() {
            tracing::warn!(target: "toolseal::gateway", server, tool, "quarantined (not listed, every call refused): {e}");
        }
        let core = Arc::new(Core {
            options,
            naming,
            callers,
            #[cfg(feature = "policy")]
            policy: Mutex::new(policy.map(Arc::new)),
            servers,
            listings: Mutex::new(listings),
            state: RwLock::new(Arc::new(state)),
            seq: AtomicU64::new(0),
            changed: broadcast::channel(16).0,
            sessions: session::Sessions::default(),
            rounds: confirm::Rounds::default(),
            held: held::HeldCalls::default(),
            shutdown: CancellationToken::new(),
        });
        let mut started = Vec::new();
        let mut tasks = Vec::new();
        for s in 0..core.servers.len() {
            let (tx, rx) = tokio::sync::oneshot::channel();
            tasks.push(tokio::spawn(downstream::supervise(core.clone(), s, tx)));
            tokio::spawn(downstream::relist(core.clone(), s));
            started.push(rx);
        }
        for rx in started {
            let _ = rx.await;
        }
        Ok(Gateway { core, tasks: Arc::new(Mutex::new(tasks)) })
    }

    /// The MCP server handler clients talk to (one per session; all share this gateway).
    pub fn service(&self) -> GatewayService {
        GatewayService::new(self.core.clone())
    }

    /// Serves one client over this process's stdin and stdout until it disconnects
    /// or [`Gateway::shutdown`]. At shutdown, calls in flight are answered that the
    /// gateway is shutting down before stdout closes. Pipes and sockets are read
    /// through the runtime's reactor; a terminal or a file by a blocking read, which
    /// cannot be cancelled: a host that exits while such a client keeps stdin open
    /// shuts its runtime down with a timeout (`Runtime::shutdown_timeout`), as the command does.
    pub async fn serve_stdio(&self) -> Result<(), GatewayError> {
        use rmcp::ServiceExt;
        let running = self.service().serve(stdio::streams()).await.map_err(|e| GatewayError::Serve(e.to_string()))?;
        let stop = running.cancellation_token();
        let waiting = running.waiting();
        tokio::pin!(waiting);
        tokio::select! {
            quit = &mut waiting => quit.map(drop).map_err(|e| GatewayError::Serve(e.to_string())),
            () = self.core.shutdown.cancelled() => {
                // Calls in flight answer at once that the gateway is shutting down; rmcp writes
                // the answers of its handlers (up to 2 s) before it closes the transport.
                stop.cancel();
                let _ = tokio::time::timeout(DRAIN, waiting).await;
                Ok(())
            }
        }
    }

    /// Serves Streamable HTTP at `/mcp` on `listener` until [`Gateway::shutdown`].
    pub async fn serve_http(&self, listener: tokio::net::TcpListener, options: HttpOptions) -> Result<(), GatewayError> {
        http::serve(self.clone(), listener, options).await
    }

    /// How every server stands now.
    pub fn report(&self) -> Vec<ServerReport> {
        let listings = self.core.listings.lock().unwrap_or_else(|e| e.into_inner());
        self.core
            .servers
            .iter()
            .zip(listings.iter())
            .enumerate()
            .map(|(s, (server, listing))| ServerReport {
                name: server.name.clone(),
                down: match server.link() {
                    Link::Up(..) => None,
                    Link::Starting => Some("not connected yet".to_owned()),
                    Link::Down(why) => Some(why),
                },
                changes: listing.changes().map(<[_]>::to_vec),
                prompts: self.core.prompt_changes(s),
            })
            .collect()
    }

    /// Reads the manifest's pins and policies again (after `toolseal approve`, or an
    /// edited policy file: the command does it on SIGHUP) and compares every server's
    /// newest live listing with the pins; clients hear of a change. If the new pins or
    /// policies do not compile together — a policy that no longer type-checks — nothing
    /// changes: the deployment in force keeps serving, and the error says why. Principals'
    /// groups are read again; their tokens are the ones the gateway started with.
    pub fn reload(&self, path: &Path) -> Result<(), GatewayError> {
        let deployment = read_manifest(path)?;
        let mut listings = self.core.listings.lock().unwrap_or_else(|e| e.into_inner());
        let mut next = listings.clone();
        for listing in &mut next {
            if let Some(server) = deployment.servers.iter().find(|s| s.name == listing.name) {
                listing.repin(Listing::pinned(server)?);
            }
        }
        #[cfg(feature = "policy")]
        {
            let files: Vec<PathBuf> = deployment.policies.iter().chain(&self.core.options.policies).cloned().collect();
            let sources = policy::PolicySources::read(&files, &deployment, &self.core.callers).map_err(|e| GatewayError::Policy(e.to_string()))?.map(Arc::new);
            let state = compile(&next, &self.core.naming, sources.as_deref()).map_err(|source| GatewayError::Deployment { path: path.display().to_string(), source })?;
            *self.core.policy.lock().unwrap_or_else(|e| e.into_inner()) = sources;
            self.core.put_in_force(state);
        }
        #[cfg(not(feature = "policy"))]
        {
            unsupported(&deployment.policies)?;
            self.core.recompile(&next).map_err(|source| GatewayError::Deployment { path: path.display().to_string(), source })?;
        }
        *listings = next;
        for downstream in &self.core.servers {
            if let Some(server) = deployment.servers.iter().find(|s| s.name == downstream.name) {
                downstream.pin_prompts(&server.registry_bytes);
            }
        }
        Ok(())
    }

    /// Stops serving and stops every server. Calls in flight are answered at once
    /// with an `isError` result saying the gateway is shutting down (and audited
    /// with [`Ending::Shutdown`](toolseal_runtime::pipeline::Ending::Shutdown)); their answers are written before
    /// the client's stream ends.
    pub fn shutdown(&self) {
        self.core.shutdown.cancel();
        // Calls held for 2026-07-28 clients' answers end now, each audited.
        self.core.held.end_all("the gateway is shutting down", toolseal_runtime::pipeline::Ending::Shutdown);
    }

    /// Resolves when [`Gateway::shutdown`] was called.
    pub async fn stopped(&self) {
        self.core.shutdown.cancelled().await;
    }

    /// [`Gateway::shutdown`], then waits (a few seconds at most) until every
    /// server's connection is closed and its child process stopped.
    pub async fn close(&self) {
        self.shutdown();
        let tasks = std::mem::take(&mut *self.tasks.lock().unwrap_or_else(|e| e.into_inner()));
        let _ = tokio::time::timeout(downstream::CLOSE + Duration::from_secs(1), futures_join(tasks)).await;
    }
}

/// The longest wait at shutdown for the answers of calls in flight to be written to their clients.
pub(crate) const DRAIN: Duration = Duration::from_secs(3);

/// Without feature `policy`, a gateway given policies does not start: it would allow what they deny.
#[cfg(not(feature = "policy"))]
fn unsupported(files: &[PathBuf]) -> Result<(), GatewayError> {
    match files.first() {
        Some(file) => Err(GatewayError::Policy(format!("{}: this build of toolseal-gateway has no policy support (feature `policy`)", file.display()))),
        None => Ok(()),
    }
}

/// Compiles `listings` and, with policies, checks them against the result.
fn compile(listings: &[ServerListing], naming: &Naming, #[cfg(feature = "policy")] policy: Option<&policy::PolicySources>) -> Result<State, CompileError> {
    #[cfg_attr(not(feature = "policy"), allow(unused_mut))]
    let mut state = State::compile(listings, naming)?;
    #[cfg(feature = "policy")]
    if let Some(policy) = policy {
        state.gate = Some(policy.gate(&state, listings)?);
    }
    Ok(state)
}

/// Every server of `deployment` with its pin as the accepted listing.
fn pinned_listings(deployment: &Deployment) -> Result<Vec<ServerListing>, GatewayError> {
    deployment.servers.iter().map(|server| Ok(ServerListing::pinned(server)?)).collect()
}

/// Waits for every task.
async fn futures_join(tasks: Vec<tokio::task::JoinHandle<()>>) {
    for task in tasks {
        let _ = task.await;
    }
}
