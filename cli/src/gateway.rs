//! `toolseal gateway`: the closed-world MCP gateway for any client, over
//! stdio or Streamable HTTP, in front of a manifest's servers; and
//! `toolseal approve`: re-pin a server's listing after a reviewed change.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use toolseal::mcp::Change;
use toolseal_gateway::downstream::{Transport, capture};
use toolseal_gateway::{Gateway, GatewayOptions, HttpOptions, OnChange};
use toolseal_runtime::mcp::manifest::DeploymentServer;
use toolseal_runtime::pipeline::JsonLines;

use crate::Failure;
use crate::capture::registry_file;

/// What `gateway` is asked to do.
pub(crate) struct Args {
    /// The deployment manifest.
    pub manifest: PathBuf,
    /// Serve Streamable HTTP here instead of stdio.
    pub http: Option<SocketAddr>,
    /// The environment variable holding the bearer token.
    pub token_env: String,
    /// `Host` values accepted over HTTP.
    pub allowed_hosts: Vec<String>,
    /// `Origin` values accepted over HTTP besides the loopback ones.
    pub allowed_origins: Vec<String>,
    /// Append one audit record per call here (JSON lines).
    pub audit: Option<PathBuf>,
    /// The wait for a server.
    pub timeout: Duration,
    /// What a listing change does.
    pub on_change: OnChange,
    /// The longest served tool name.
    pub name_budget: usize,
    /// The longest message from a stdio server, in bytes.
    pub max_message: usize,
    /// The most HTTP connections open at once.
    pub max_connections: usize,
    /// Only compare live listings with their pins.
    pub check: bool,
    /// Cedar policy files besides the manifest's.
    pub policies: Vec<PathBuf>,
    /// Re-read pins and policies when their files change.
    pub watch: bool,
}

/// Logs go to stderr (stdout may be the MCP stream); `RUST_LOG` overrides the default.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("toolseal=info,toolseal::audit=warn,rmcp=error"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_target(false).without_time().try_init();
}

/// The runtime: one thread for one stdio client (a call's tasks wake each other
/// without crossing threads: a fifth less CPU per call), two workers over HTTP.
fn runtime(http: bool) -> Result<tokio::runtime::Runtime, Failure> {
    let mut builder = if http {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        builder.worker_threads(2);
        builder
    } else {
        tokio::runtime::Builder::new_current_thread()
    };
    builder.enable_all().build().map_err(|e| Failure::new(2, format!("cannot start the async runtime: {e}")))
}

/// The HTTP options: loopback serves as given; any other address needs a token,
/// and an unspecified one (`0.0.0.0`) the host names clients will send.
fn http_options(address: SocketAddr, args: &Args) -> Result<HttpOptions, Failure> {
    let bearer = std::env::var(&args.token_env).ok().filter(|t| !t.is_empty());
    if !address.ip().is_loopback() && bearer.is_none() {
        return Err(Failure::new(2, format!("--http {address} is not a loopback address: set a bearer token in ${} (every request must carry it)", args.token_env)));
    }
    if address.ip().is_unspecified() && args.allowed_hosts.is_empty() {
        return Err(Failure::new(2, format!("--http {address} listens on every interface: name the host clients reach it by with --allowed-host (repeatable)")));
    }
    let options = HttpOptions { bearer, allowed_hosts: args.allowed_hosts.clone(), allowed_origins: args.allowed_origins.clone(), max_connections: args.max_connections };
    options.check().map_err(|e| match e {
        toolseal_gateway::GatewayError::Serve(why) => Failure::new(2, format!("--allowed-origin: {why}")),
        e => Failure::new(2, e.to_string()),
    })?;
    Ok(options)
}

/// The `Host` values accepted at `bound`, the address actually listened on: the given ones, or for a specific
/// non-loopback address that address (loopback names are rmcp's default).
fn allowed_hosts(mut options: HttpOptions, bound: SocketAddr) -> HttpOptions {
    if options.allowed_hosts.is_empty() && !bound.ip().is_loopback() {
        options.allowed_hosts = vec![bound.ip().to_string(), bound.to_string()];
    }
    options
}

/// Prints how every server stands; whether all match their pins.
fn print_report(gateway: &Gateway, manifest: &Path) -> bool {
    let mut all = true;
    for server in gateway.report() {
        all &= server.matches();
        if let Some(why) = &server.down {
            println!("{}: down: {why}", server.name);
            continue;
        }
        let tools = server.changes.iter().flatten().map(|(tool, c)| (c, tool.clone()));
        let prompts = server.prompts.iter().flatten().map(|(prompt, c)| (c, format!("prompt {prompt}")));
        let changes: Vec<String> = tools.chain(prompts).filter(|(c, _)| **c != Change::Unchanged).map(|(c, what)| format!("{} {what}", change_word(c))).collect();
        if changes.is_empty() {
            println!("{}: matches its pin", server.name);
        } else {
            println!("{}: differs from its pin: {}", server.name, changes.join(", "));
            println!("  review, then `toolseal approve {} --manifest {}`", server.name, manifest.display());
        }
    }
    all
}

fn change_word(change: &Change) -> &'static str {
    match change {
        Change::Unchanged => "unchanged",
        Change::Changed { .. } => "changed",
        Change::Added => "added",
        Change::Removed => "removed",
    }
}

/// Runs `gateway`.
pub(crate) fn run(args: Args) -> Result<u8, Failure> {
    init_logging();
    let http = args.http.map(|address| http_options(address, &args).map(|o| (address, o))).transpose()?;
    let mut options = GatewayOptions::default().timeout(args.timeout).on_change(args.on_change).name_budget(args.name_budget).max_message(args.max_message);
    for file in &args.policies {
        options = options.policy_file(file);
    }
    if let Some(path) = &args.audit {
        let file = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(|e| Failure::new(2, format!("cannot open {}: {e}", path.display())))?;
        options = options.audit(JsonLines::new(std::io::LineWriter::new(file)));
    }
    let runtime = runtime(http.is_some())?;
    let outcome = runtime.block_on(async {
        let gateway = Gateway::start(&args.manifest, options).await.map_err(|e| Failure::new(2, e.to_string()))?;
        if args.check {
            let all = print_report(&gateway, &args.manifest);
            gateway.close().await;
            return Ok(u8::from(!all));
        }
        for server in gateway.report() {
            if let Some(why) = server.down {
                eprintln!("toolseal: server {:?} is down, its tools answer an error until it restarts: {why}", server.name);
            }
        }
        let watched = args.watch.then(|| args.policies.clone());
        tokio::spawn(signals(gateway.clone(), args.manifest.clone(), watched));
        let served = match http {
            Some((address, options)) => {
                let listener = tokio::net::TcpListener::bind(address).await.map_err(|e| Failure::new(2, format!("cannot listen on {address}: {e}")))?;
                let bound = listener.local_addr().unwrap_or(address);
                eprintln!("toolseal: gateway serving http://{bound}/mcp");
                gateway.serve_http(listener, allowed_hosts(options, bound)).await
            }
            None => gateway.serve_stdio().await,
        };
        // The servers' connections close (and child processes stop) before the runtime goes.
        gateway.close().await;
        served.map(|()| 0).map_err(|e| Failure::new(2, e.to_string()))
    });
    // A blocking read of stdin cannot be cancelled: a client that keeps stdin open must not hold the exit.
    runtime.shutdown_timeout(Duration::from_millis(500));
    outcome
}

/// SIGHUP re-reads the pins (after `toolseal approve`) and the policies, and so does a change of
/// their files when `watched` (the `--policy` files besides the manifest's); SIGINT and SIGTERM
/// stop the gateway.
async fn signals(gateway: Gateway, manifest: PathBuf, watched: Option<Vec<PathBuf>>) {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut hangup), Ok(mut interrupt), Ok(mut terminate)) = (signal(SignalKind::hangup()), signal(SignalKind::interrupt()), signal(SignalKind::terminate())) else {
        return;
    };
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut seen = watched.as_ref().map(|extra| fingerprint(&manifest, extra));
    let reload = |why: &str| match gateway.reload(&manifest) {
        Ok(()) => eprintln!("toolseal: pins and policies re-read from {} ({why})", manifest.display()),
        Err(e) => eprintln!("toolseal: pins and policies not re-read ({why}), the previous ones stay in force: {e}"),
    };
    loop {
        tokio::select! {
            _ = hangup.recv() => reload("SIGHUP"),
            _ = tick.tick(), if watched.is_some() => {
                let now = watched.as_ref().map(|extra| fingerprint(&manifest, extra));
                if now != seen {
                    seen = now;
                    reload("a file changed");
                }
            }
            _ = interrupt.recv() => break,
            _ = terminate.recv() => break,
            () = gateway.stopped() => return,
        }
    }
    gateway.shutdown();
}

/// What `--watch` compares: each file a reload reads (the manifest, the pins, the policy
/// files — the manifest's as its globs name them now, and `extra`) with its size and time of
/// change, or why the manifest cannot be read.
fn fingerprint(manifest: &Path, extra: &[PathBuf]) -> Vec<(PathBuf, Option<(u64, std::time::SystemTime)>)> {
    let stat = |path: &Path| (path.to_path_buf(), std::fs::metadata(path).ok().and_then(|m| Some((m.len(), m.modified().ok()?))));
    let mut files = vec![stat(manifest)];
    match toolseal_runtime::mcp::manifest::read_manifest_unpinned(manifest) {
        Ok(deployment) => {
            files.extend(deployment.servers.iter().map(|s| s.registry_path.as_path()).chain(deployment.policies.iter().map(PathBuf::as_path)).chain(extra.iter().map(PathBuf::as_path)).map(stat))
        }
        Err(e) => files.push((PathBuf::from(e.to_string()), None)),
    }
    files
}

/// The server `name` of `manifest`, read for a command that reaches it to make or renew its pin (its registry
/// file need not exist yet).
pub(crate) fn unpinned_server(manifest: &Path, name: &str) -> Result<DeploymentServer, Failure> {
    let deployment = toolseal_runtime::mcp::manifest::read_manifest_unpinned(manifest).map_err(|e| Failure::new(2, e.to_string()))?;
    let names: Vec<&str> = deployment.servers.iter().map(|s| s.name.as_str()).collect();
    let Some(entry) = deployment.servers.iter().find(|s| s.name == name) else {
        return Err(Failure::new(2, format!("{}: no server {name:?} (servers: {names:?})", manifest.display())));
    };
    Ok(entry.clone())
}

/// Runs `approve`: lists `server`'s tools now and writes them as its pin (the first one too).
pub(crate) fn approve(server: &str, manifest: &Path, timeout: Duration) -> Result<u8, Failure> {
    let entry = unpinned_server(manifest, server)?;
    let dir = manifest.parent().filter(|d| !d.as_os_str().is_empty());
    let Some(transport) = Transport::of(&entry, dir) else {
        return Err(Failure::new(2, format!("{}: server {server:?} has no `command` or `url`", manifest.display())));
    };
    let captured = runtime(false)?.block_on(capture(&transport, entry.timeout.unwrap_or(timeout))).map_err(|e| Failure::new(4, e.to_string()))?;
    let (text, registry) = registry_file(&captured)?;
    if let Some(dir) = entry.registry_path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Failure::new(2, format!("cannot create {}: {e}", dir.display())))?;
    }
    std::fs::write(&entry.registry_path, text).map_err(|e| Failure::new(2, format!("cannot write {}: {e}", entry.registry_path.display())))?;
    eprintln!("toolseal: pinned {} tools of {server:?} into {}; a running gateway takes it on SIGHUP", registry.tools.len(), entry.registry_path.display());
    Ok(0)
}
