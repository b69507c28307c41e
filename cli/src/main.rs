//! `toolseal`: capture a server's listing, check it for drift, resolve calls
//! in bulk, and lint registries.
//!
//! ```text
//! toolseal capture [--out FILE] [--check FILE] [--timeout SECS] -- <server command...>
//! toolseal capture [--out FILE] [--check FILE] [--timeout SECS] --url URL [--header 'Name: value'...]
//! toolseal resolve (--registry FILE | --manifest toolseal.toml) [--lenient]  < calls.jsonl
//! toolseal host [--registry FILE] [--timeout SECS] -- <server command...>     < replies.jsonl
//! toolseal host --manifest toolseal.toml [--on-change hold|accept]            < replies.jsonl
//! toolseal gateway --manifest toolseal.toml [--http ADDR] [--audit FILE] [--check]
//! toolseal approve SERVER --manifest toolseal.toml
//! toolseal import CONFIG... --out DIR [--from FORMAT] [--dry-run]
//! toolseal lint FILE...
//! ```
//!
//! Exit codes: 0 done (for `resolve`, whatever the verdicts), 1 drift or lint
//! errors found, 2 bad usage or unreadable input, 3 the server did not start,
//! 4 the server did not complete `initialize` or `tools/list`, 5 timeout.

mod capture;
mod client_config;
mod gateway;
mod host;
mod import;
mod lint;
#[cfg(feature = "oauth")]
mod login;
#[cfg(feature = "policy")]
mod policy;
mod resolve;
mod route;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "toolseal", version, about = "Closed-world resolution of LLM tool calls: capture, check, resolve, lint")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// `toolseal policy …`.
#[cfg(feature = "policy")]
#[derive(Subcommand)]
enum PolicyAction {
    /// Type-check the policies against the pinned registries (exit 0, or 1 with each problem's file:line:column).
    Check {
        /// The deployment manifest; its `policies` are checked.
        #[arg(long)]
        manifest: PathBuf,
        /// A policy file to check too (repeatable).
        #[arg(long = "policy", value_name = "FILE")]
        policies: Vec<PathBuf>,
    },
    /// Print the Cedar schema generated from the pinned registries: an action per tool, `context.input` its arguments.
    Schema {
        /// The deployment manifest.
        #[arg(long)]
        manifest: PathBuf,
        /// Print Cedar's JSON schema format instead of its own syntax (without the comments).
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum Command {
    /// Start an MCP server over stdio (or reach one over Streamable HTTP with --url) and write its tool listing as a
    /// registry file.
    Capture {
        /// Where to write the registry (default: stdout).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Compare the live listing with this registry instead; exit 1 on drift.
        #[arg(long, conflicts_with = "out")]
        check: Option<PathBuf>,
        /// Seconds to wait for each of `initialize` and `tools/list`.
        #[arg(long, default_value_t = 60)]
        timeout: u64,
        /// Reach a Streamable HTTP server at this URL instead of starting a command.
        #[arg(long, conflicts_with = "server", required_unless_present = "server")]
        url: Option<String>,
        /// A header sent with every request to --url, `Name: value` (repeatable); `${VAR}` and `${VAR:-default}` in
        /// the value are taken from the environment, so a token need not be typed. Values are never printed.
        #[arg(long = "header", value_name = "NAME: VALUE", conflicts_with = "server")]
        headers: Vec<String>,
        /// The server command and its arguments (after `--`), unless --url.
        #[arg(last = true, required_unless_present = "url")]
        server: Vec<String>,
    },
    /// Resolve tool calls, one reply per line on stdin (any wire format, a bare Responses output item or Anthropic
    /// content block, or a call object, optionally pinned: {"server", "name", "arguments"}), into one verdict per call on stdout.
    Resolve {
        /// A registry file.
        #[arg(long, conflicts_with = "manifest", required_unless_present = "manifest")]
        registry: Option<PathBuf>,
        /// A deployment manifest (toolseal.toml).
        #[arg(long)]
        manifest: Option<PathBuf>,
        /// Coerce numbers given as strings; each accept verdict lists its coercions
        /// (`"coercions":[{"pointer":"/arguments/amount","text":"42"}]`).
        #[arg(long)]
        lenient: bool,
        /// Refuse the whole registry (or deployment) if any tool's schema cannot be enforced,
        /// instead of quarantining that tool.
        #[arg(long)]
        strict: bool,
    },
    /// A guarded session with a stdio MCP server: resolve each call of the model replies on stdin, forward only resolved ones.
    Host {
        /// Resolve against this registry (a capture); tools the server changed since are M4. Default: the live listing.
        #[arg(long, conflicts_with = "manifest")]
        registry: Option<PathBuf>,
        /// Start or reach every server of this manifest (its `command` or `url`, with its `env` or `headers`) and route
        /// each call (M1–M5) before forwarding it.
        #[arg(long)]
        manifest: Option<PathBuf>,
        /// Seconds to wait for `initialize`, `tools/list` and each call (a manifest server's `timeout` overrides it).
        #[arg(long, default_value_t = 60)]
        timeout: u64,
        /// When a server announces `notifications/tools/list_changed`: `hold` keeps its changed tools M4 (and new ones
        /// unknown) until the control line {"toolseal":"accept","server":NAME}; `accept` takes the new listing at once.
        #[arg(long, value_enum, default_value = "hold")]
        on_change: host::OnChange,
        /// The server command and its arguments (after `--`), unless --manifest.
        #[arg(last = true, required_unless_present = "manifest")]
        server: Vec<String>,
    },
    /// Serve MCP to any client (stdio, or Streamable HTTP with --http) in front of a manifest's servers: one merged,
    /// qualified tool list as pinned, and every `tools/call` resolved (M1–M5, H1–H3) before it is forwarded.
    Gateway {
        /// The deployment manifest (toolseal.toml): servers with `command` or `url`, tier and pinned `registry`.
        #[arg(long)]
        manifest: PathBuf,
        /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:8931; port 0 picks one).
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        /// The environment variable holding the bearer token every HTTP request must carry (required off loopback).
        #[arg(long, default_value = "TOOLSEAL_GATEWAY_TOKEN")]
        token_env: String,
        /// A `Host` header value accepted over HTTP (repeatable; default: loopback names, or the bound address).
        #[arg(long = "allowed-host")]
        allowed_hosts: Vec<String>,
        /// A browser origin (`http[s]://host[:port]`) accepted as `Origin` over HTTP, besides the loopback ones of the bound
        /// port (repeatable); a request with any other `Origin` is answered 403.
        #[arg(long = "allowed-origin", value_name = "ORIGIN")]
        allowed_origins: Vec<String>,
        /// Append one audit record per call to this file (JSON lines).
        #[arg(long)]
        audit: Option<PathBuf>,
        /// Seconds to wait for a server to start, list its tools, or answer a call (its manifest `timeout` overrides it).
        #[arg(long, default_value_t = 60)]
        timeout: u64,
        /// When a live listing differs from its pin: `hold` keeps changed and removed tools M4 and new ones unlisted
        /// until `toolseal approve` (then SIGHUP); `accept` takes it at once and tells clients.
        #[arg(long, value_enum, default_value = "hold")]
        on_change: host::OnChange,
        /// The longest tool name served (≤ 64): leave room for a prefix the client adds, e.g. 50 for `mcp__gateway__`.
        #[arg(long, default_value_t = 64)]
        name_budget: usize,
        /// The longest message a server may send, in MiB: a stdio server's longer answer is dropped as it is read and
        /// its call answered at once with an error naming the limit (over HTTP the connection is closed and restarted).
        #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u16).range(1..=4096))]
        max_message_mib: u16,
        /// The most HTTP connections open at once; one more is answered 503 and closed at once.
        #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..))]
        max_connections: u32,
        /// Start every server, compare each live listing with its pin, print the report and exit (1 on any difference).
        #[arg(long)]
        check: bool,
        /// A Cedar policy file deciding every resolved call, besides the manifest's `policies` (repeatable). With any
        /// policy, what no policy permits is denied.
        #[arg(long = "policy", value_name = "FILE")]
        policies: Vec<PathBuf>,
        /// Re-read the pins and the policies when the manifest, a pin or a policy file changes (looked at every
        /// second), as SIGHUP does: a set that does not hold leaves the one in force.
        #[arg(long)]
        watch: bool,
    },
    /// Cedar policies over the deployment's pinned tools: `check` them, or print the `schema` they are checked against.
    #[cfg(feature = "policy")]
    Policy {
        #[command(subcommand)]
        action: PolicyAction,
    },
    /// Pin a manifest server's current listing (its first pin, or after reviewing a change): writes its `registry` file.
    Approve {
        /// The server, as the manifest names it.
        server: String,
        /// The deployment manifest.
        #[arg(long)]
        manifest: PathBuf,
        /// Seconds to wait for the server (its manifest `timeout` overrides it).
        #[arg(long, default_value_t = 60)]
        timeout: u64,
    },
    /// Authorize the gateway at a manifest server that requires OAuth (`oauth`, authorization code with PKCE): prints
    /// the address to open in a browser, waits for its redirect to a loopback port, and stores the tokens (mode 600)
    /// where the gateway finds them; the gateway refreshes them. Then `toolseal approve` pins the server.
    #[cfg(feature = "oauth")]
    Login {
        /// The server, as the manifest names it.
        server: String,
        /// The deployment manifest.
        #[arg(long)]
        manifest: PathBuf,
        /// Seconds to wait for the browser's redirect.
        #[arg(long, default_value_t = 300)]
        wait: u64,
    },
    /// From a client's configuration to a working gateway: pin each server it names, write DIR/toolseal.toml and
    /// DIR/pins/, and rewrite the configuration to start the gateway in their place (a backup is kept beside it).
    Import {
        /// Claude Desktop (`claude_desktop_config.json`), Claude Code (`.mcp.json`), Cursor (`mcp.json`) or VS Code
        /// (`.vscode/mcp.json`) configurations.
        #[arg(required = true)]
        configs: Vec<PathBuf>,
        /// Where `toolseal.toml` and the pins go.
        #[arg(long)]
        out: PathBuf,
        /// The configurations' format, instead of detecting it.
        #[arg(long, value_enum)]
        from: Option<client_config::ClientFormat>,
        /// Print the manifest and the rewritten configurations (secrets redacted); start nothing, write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Seconds to wait for each server.
        #[arg(long, default_value_t = 60)]
        timeout: u64,
    },
    /// Report what would weaken closed-world resolution in registry files.
    Lint {
        /// Registry files (several: as the servers of one host).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

/// A failure with its exit code.
pub struct Failure {
    code: u8,
    /// What went wrong.
    pub message: String,
}

impl Failure {
    /// Exit `code` with `message` on stderr.
    pub fn new(code: u8, message: impl Into<String>) -> Failure {
        Failure { code, message: message.into() }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Capture { out, check, timeout, url, headers, server } => {
            let target = match url {
                Some(url) => capture::Target::Http { url, headers },
                None => capture::Target::Command(server),
            };
            capture::run(&target, out.as_deref(), check.as_deref(), std::time::Duration::from_secs(timeout))
        }
        Command::Resolve { registry, manifest, lenient, strict } => resolve::run(registry.as_deref(), manifest.as_deref(), lenient, strict),
        Command::Host { registry, manifest, timeout, on_change, server } => host::run(&server, registry.as_deref(), manifest.as_deref(), std::time::Duration::from_secs(timeout), on_change),
        Command::Gateway { manifest, http, token_env, allowed_hosts, allowed_origins, audit, timeout, on_change, name_budget, max_message_mib, max_connections, check, policies, watch } => {
            gateway::run(gateway::Args {
                manifest,
                http,
                token_env,
                allowed_hosts,
                allowed_origins,
                audit,
                timeout: std::time::Duration::from_secs(timeout),
                on_change: match on_change {
                    host::OnChange::Hold => toolseal_gateway::OnChange::Hold,
                    host::OnChange::Accept => toolseal_gateway::OnChange::Accept,
                },
                name_budget,
                max_message: usize::from(max_message_mib) << 20,
                max_connections: usize::try_from(max_connections).unwrap_or(usize::MAX),
                check,
                policies,
                watch,
            })
        }
        #[cfg(feature = "policy")]
        Command::Policy { action: PolicyAction::Check { manifest, policies } } => policy::check(&manifest, &policies),
        #[cfg(feature = "policy")]
        Command::Policy { action: PolicyAction::Schema { manifest, json } } => policy::schema(&manifest, json),
        Command::Approve { server, manifest, timeout } => gateway::approve(&server, &manifest, std::time::Duration::from_secs(timeout)),
        #[cfg(feature = "oauth")]
        Command::Login { server, manifest, wait } => login::run(&server, &manifest, std::time::Duration::from_secs(wait)),
        Command::Import { configs, out, from, dry_run, timeout } => import::run(&import::Args { configs, out, from, dry_run, timeout: std::time::Duration::from_secs(timeout) }),
        Command::Lint { files } => lint::run(&files),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(f) => {
            eprintln!("toolseal: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}
